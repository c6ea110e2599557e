// All runs with filters (DAG name, status, run ID, a period: today, the last
// 7 or 30 days or a custom range), paginated. The filters live in the URL.
import { useState } from "preact/hooks";
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
  return { fromDate: Math.floor(today.getTime() / 1000) - (n - 1) * 86400 };
}

export function RunsPage({ route }: { route: Route }) {
  const q = route.query;
  const f = { name: q.get("name") || "", status: q.get("status") || "", runId: q.get("runId") || "",
    days: q.get("days") || DEFAULT_DAYS, from: q.get("from") || "", to: q.get("to") || "" };
  const page = Math.max(1, Number(q.get("page")) || 1);
  const [name, setName] = useState(f.name);
  const [runId, setRunId] = useState(f.runId);
  const set = (changes: Partial<typeof f> & { page?: number }) => {
    const next = { ...f, ...changes };
    if (next.days !== "custom") { next.from = ""; next.to = ""; }
    navigate(href(["runs"], { ...next, days: next.days === DEFAULT_DAYS ? undefined : next.days, page: changes.page && changes.page > 1 ? changes.page : undefined }), true);
  };
  const poll = usePoll(() => {
    const qs = new URLSearchParams();
    const p = period(f.days, f.from, f.to);
    if (p.fromDate !== undefined) qs.set("fromDate", String(Math.floor(p.fromDate)));
    if (p.toDate !== undefined) qs.set("toDate", String(Math.floor(p.toDate)));
    if (f.name) qs.set("name", f.name);
    if (f.status) qs.set("status", f.status);
    if (f.runId) qs.set("dagRunId", f.runId);
    return get("/dag-runs?" + qs);
  }, [f.name, f.status, f.runId, f.days, f.from, f.to], undefined, (ev) => ev.kind !== "dag");
  const runs = (poll.data?.dagRuns || []) as RunSummary[];
  const pages = Math.max(1, Math.ceil(runs.length / PER_PAGE));
  const shown = runs.slice((page - 1) * PER_PAGE, page * PER_PAGE);
  return (
    <>
      <div class="page-head"><h1>Runs</h1><span class="muted">{poll.data ? runs.length + " runs" : ""}</span></div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); set({ name: name.trim(), runId: runId.trim(), page: 1 }); }}>
        <input id="filter-name" placeholder="DAG name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <input id="filter-run" placeholder="Run ID" value={runId} onInput={(e) => setRunId((e.target as HTMLInputElement).value)} />
        <select id="filter-status" value={f.status} onChange={(e) => set({ status: (e.target as HTMLSelectElement).value, page: 1 })}>
          <option value="">any status</option>
          {RUN_STATUSES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
        </select>
        <select id="filter-days" value={f.days} onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          set(v === "custom" ? { days: v, from: f.from || isoDay(new Date(Date.now() - 6 * 86400000)), to: f.to || isoDay(new Date()) } : { days: v, page: 1 });
        }}>
          <option value="1">today</option>
          <option value="7">last 7 days</option>
          <option value="30">last 30 days</option>
          <option value="custom">date range…</option>
        </select>
        {f.days === "custom" && (
          <>
            <input type="date" id="filter-from" value={f.from} onChange={(e) => set({ from: (e.target as HTMLInputElement).value, page: 1 })} />
            <span class="muted">to</span>
            <input type="date" id="filter-to" value={f.to} onChange={(e) => set({ to: (e.target as HTMLInputElement).value, page: 1 })} />
          </>
        )}
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={poll.error} />
      {!poll.data ? (!poll.error && <Loading />) : (
        <div class="panel flush"><RunsTable runs={shown} withDag reload={poll.reload} /></div>
      )}
      {pages > 1 && (
        <div class="pager">
          <button data-page="prev" disabled={page <= 1} onClick={() => set({ page: page - 1 })}>‹ Prev</button>
          <span class="muted">page {page} of {pages}</span>
          <button data-page="next" disabled={page >= pages} onClick={() => set({ page: page + 1 })}>Next ›</button>
        </div>
      )}
    </>
  );
}
