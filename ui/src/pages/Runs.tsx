// All runs with filters (DAG name, status, run ID, a period: today, the last
// 7 or 30 days or a custom range), paginated on the server: each page is one
// GET /dag-runs?limit=50&cursor=... (ours), so every run of the range can be
// reached, not only the 1,000 newest, and a page costs 50 rows. The filters
// and the page's cursor (`after`) live in the URL; the cursors of the pages
// before it are kept in memory for "Prev".
import { useRef, useState } from "preact/hooks";
import { get } from "../api";
import { ErrorBox, Loading } from "../components/common";
import { RunsTable, type RunSummary } from "../components/RunsTable";
import { isoDay, RUN_STATUSES } from "../format";
import { usePoll } from "../hooks";
import { href, navigate, type Route } from "../router";

const PER_PAGE = 50;
// Today by default, as 1.30.2's runs page: at 1,000,000 runs a week is
// ~230,000 runs to look through (docs/benchmarks.md, "UI page loads").
const DEFAULT_DAYS = "1";

// The period's bounds in Unix seconds (local days).
function period(days: string, from: string, to: string): { fromDate?: number; toDate?: number } {
  const startOf = (s: string) => {
    const [y, m, d] = s.split("-").map(Number);
    return new Date(y, (m || 1) - 1, d || 1).getTime() / 1000;
  };
  if (days === "custom") {
    return { fromDate: from ? startOf(from) : undefined, toDate: to ? startOf(to) + 86400 - 1 : undefined };
  }
  const n = Number(days) || 7;
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  // With its end (today's): a closed range of up to 7 days is what the
  // server's day index answers from memory (docs/web.md, "Run lists over all
  // DAGs of up to a week"); an open one stats every DAG's folders.
  const first = new Date(today.getFullYear(), today.getMonth(), today.getDate() - (n - 1));
  const next = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1);
  return { fromDate: first.getTime() / 1000, toDate: next.getTime() / 1000 - 1 };
}

export function RunsPage({ route }: { route: Route }) {
  const q = route.query;
  const f = { name: q.get("name") || "", status: q.get("status") || "", runId: q.get("runId") || "",
    days: q.get("days") || DEFAULT_DAYS, from: q.get("from") || "", to: q.get("to") || "", per: q.get("per") || "" };
  const after = q.get("after") || "";
  // Rows per page: 50, or `per` (1..1000) from the URL.
  const per = Math.min(1000, Math.max(1, Number(q.get("per")) || PER_PAGE));
  const [name, setName] = useState(f.name);
  const [runId, setRunId] = useState(f.runId);
  // The cursors of the pages before this one ("" is the first page), for the
  // filters they were taken with.
  const filterKey = JSON.stringify(f);
  const back = useRef<{ key: string; cursors: string[] }>({ key: filterKey, cursors: [] });
  if (back.current.key !== filterKey) back.current = { key: filterKey, cursors: [] };
  const set = (changes: Partial<typeof f>, cursor = "") => {
    const next = { ...f, ...changes };
    if (next.days !== "custom") { next.from = ""; next.to = ""; }
    navigate(href(["runs"], { ...next, days: next.days === DEFAULT_DAYS ? undefined : next.days, after: cursor || undefined }), true);
  };
  const poll = usePoll(() => {
    const qs = new URLSearchParams();
    const p = period(f.days, f.from, f.to);
    if (p.fromDate !== undefined) qs.set("fromDate", String(Math.floor(p.fromDate)));
    if (p.toDate !== undefined) qs.set("toDate", String(Math.floor(p.toDate)));
    if (f.name) qs.set("name", f.name);
    if (f.status) qs.set("status", f.status);
    if (f.runId) qs.set("dagRunId", f.runId);
    qs.set("limit", String(per));
    qs.set("cursor", after);
    return get("/dag-runs?" + qs);
  }, [f.name, f.status, f.runId, f.days, f.from, f.to, per, after], undefined, (ev) => ev.kind !== "dag");
  const runs = (poll.data?.dagRuns || []) as RunSummary[];
  const nextCursor = (poll.data?.nextCursor || "") as string;
  // A shared link to a later page does not know the pages before it.
  const known = !after || back.current.cursors.length > 0;
  const page = after ? back.current.cursors.length + 1 : 1;
  const first = (page - 1) * per;
  const next = () => { back.current.cursors.push(after); set({}, nextCursor); };
  const prev = () => set({}, back.current.cursors.pop() || "");
  return (
    <>
      <div class="page-head"><h1>Runs</h1><span class="muted" id="runs-count">{!poll.data ? "" : !runs.length ? "0 runs" :
        known ? "runs " + (first + 1) + "–" + (first + runs.length) + (nextCursor ? ", more on the next pages" : "") : runs.length + " runs"}</span></div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); set({ name: name.trim(), runId: runId.trim() }); }}>
        <input id="filter-name" placeholder="DAG name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <input id="filter-run" placeholder="Run ID" value={runId} onInput={(e) => setRunId((e.target as HTMLInputElement).value)} />
        <select id="filter-status" value={f.status} onChange={(e) => set({ status: (e.target as HTMLSelectElement).value })}>
          <option value="">any status</option>
          {RUN_STATUSES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
        </select>
        <select id="filter-days" value={f.days} onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          set(v === "custom" ? { days: v, from: f.from || isoDay(new Date(Date.now() - 6 * 86400000)), to: f.to || isoDay(new Date()) } : { days: v });
        }}>
          <option value="1">today</option>
          <option value="7">last 7 days</option>
          <option value="30">last 30 days</option>
          <option value="custom">date range…</option>
        </select>
        {f.days === "custom" && (
          <>
            <input type="date" id="filter-from" value={f.from} onChange={(e) => set({ from: (e.target as HTMLInputElement).value })} />
            <span class="muted">to</span>
            <input type="date" id="filter-to" value={f.to} onChange={(e) => set({ to: (e.target as HTMLInputElement).value })} />
          </>
        )}
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={poll.error} />
      {!poll.data ? (!poll.error && <Loading />) : (
        <div class="panel flush"><RunsTable runs={runs} withDag reload={poll.reload} /></div>
      )}
      {(after || nextCursor) && (
        <div class="pager">
          <button data-page="prev" disabled={!after} onClick={prev}>‹ Prev</button>
          <span class="muted">{known ? "page " + page : "a later page"}</span>
          <button data-page="next" disabled={!nextCursor} onClick={next}>Next ›</button>
        </div>
      )}
    </>
  );
}
