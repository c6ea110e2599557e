// The DAG list: search by name, filter by tag, server-side pagination, the
// next scheduled time, the last run's status, a suspend toggle and start.
import { useState } from "preact/hooks";
import { enc, get, post } from "../api";
import { ErrorBox, Loading, Modal, StatusBadge, toast } from "../components/common";
import { StartDialog } from "../components/StartDialog";
import { ago, fmtTime, parseTime } from "../format";
import { usePoll } from "../hooks";
import { href, navigate, type Route } from "../router";
import { useCanExecute } from "../auth";

const PER_PAGE = 50;

export interface DagEntry {
  fileName: string;
  dag: { name?: string; description?: string; schedule?: { expression: string; nextRun?: string }[]; tags?: string[]; params?: string[] };
  latestDAGRun?: { statusLabel?: string; startedAt?: string; dagRunId?: string };
  suspended: boolean;
  errors?: string[] | null;
}

export function nextRunOf(sched: { nextRun?: string }[] | undefined): Date | null {
  let best: Date | null = null;
  for (const s of sched || []) {
    const t = parseTime(s.nextRun);
    if (t && (!best || t < best)) best = t;
  }
  return best;
}

export async function setSuspended(file: string, suspend: boolean, reload: () => void) {
  try {
    await post("/dags/" + enc(file) + "/suspend", { suspend });
    toast((suspend ? "Suspended " : "Resumed ") + file);
  } catch (e) {
    toast((e as Error).message, true);
  }
  reload();
}

// "New DAG": a name, then the spec editor of the new file (1.30.2's template).
function NewDagForm({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState("");
  const [error, setError] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await post("/dags", { name: name.trim() });
      toast("Created " + name.trim());
      onClose();
      navigate(href(["dags", name.trim()], { tab: "spec" }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Modal title="New DAG" onClose={onClose}>
      <form id="new-dag-form" onSubmit={submit}>
        <label class="field"><span>Name</span>
          <input name="name" value={name} autoFocus placeholder="my-dag" onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        {error && <div class="error-box">{error}</div>}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={!name.trim()}>Create</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}

export function DagsPage({ route, canWrite }: { route: Route; canWrite: boolean }) {
  const name = route.query.get("q") || "";
  const tag = route.query.get("tag") || "";
  const page = Math.max(1, Number(route.query.get("page")) || 1);
  const sort = route.query.get("sort") || "name";
  const order = route.query.get("order") === "desc" ? "desc" : "asc";
  const [search, setSearch] = useState(name);
  const [starting, setStarting] = useState<DagEntry | null>(null);
  const [creating, setCreating] = useState(false);
  const canExecute = useCanExecute();
  const go = (q: { q?: string; tag?: string; page?: number; sort?: string; order?: string }) => {
    const s = q.sort ?? sort, o = q.order ?? order;
    navigate(href(["dags"], { q: q.q ?? name, tag: q.tag ?? tag, page: q.page && q.page > 1 ? q.page : undefined,
      sort: s === "name" ? undefined : s, order: o === "asc" ? undefined : o }), true);
  };
  // A header that sorts by `key`; a second click reverses the order.
  const sortHead = (key: string, label: string) => (
    <th class="sortable" data-sort={key} aria-sort={sort === key ? (order === "asc" ? "ascending" : "descending") : "none"}
      onClick={() => go({ sort: key, order: sort === key && order === "asc" ? "desc" : "asc", page: 1 })}>
      {label}{sort === key ? (order === "asc" ? " ▲" : " ▼") : ""}
    </th>
  );

  const poll = usePoll(async () => {
    const qs = new URLSearchParams({ page: String(page), perPage: String(PER_PAGE), sort, order });
    if (name) qs.set("name", name);
    if (tag) qs.set("tag", tag);
    return { list: await get("/dags?" + qs) };
  }, [name, tag, page, sort, order], undefined, () => true);
  // The tags apart: the list must not wait for them (GET /dags/tags reads
  // every DAG file: seconds at 10,000 DAGs; docs/benchmarks.md).
  const tagsPoll = usePoll(() => get("/dags/tags").then((t) => (t.tags || []) as string[], () => [] as string[]), [], undefined,
    (ev) => ev.kind === "dag");

  const data = poll.data;
  const dags = (data?.list.dags || []) as DagEntry[];
  const pg = data?.list.pagination || { totalRecords: dags.length, currentPage: 1, totalPages: 1 };
  return (
    <>
      <div class="page-head">
        <h1>DAGs</h1>
        <span class="muted">{data ? pg.totalRecords + " definitions" : ""}</span>
        <span class="spacer" />
        {canWrite && <button class="primary" data-act="new-dag" onClick={() => setCreating(true)}>New DAG</button>}
      </div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); go({ q: search.trim(), page: 1 }); }}>
        <input id="dag-search" type="search" placeholder="Search by name" value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
        <select id="dag-tag" value={tag} onChange={(e) => go({ tag: (e.target as HTMLSelectElement).value, page: 1 })}>
          <option value="">any tag</option>
          {(tagsPoll.data || []).map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
        {(name || tag) && <a href={href(["dags"])} onClick={() => setSearch("")}>clear</a>}
      </form>
      <ErrorBox error={poll.error} />
      {data?.list.errors?.length ? <div class="error-box">{data.list.errors.map((e: string) => <div>{e}</div>)}</div> : null}
      {!data ? (!poll.error && <Loading />) : (
        <div class="panel flush">
          <table id="dags-table">
            <thead>
              <tr>{sortHead("name", "Name")}<th>Schedule</th>{sortHead("nextRun", "Next run")}<th>Last run</th><th>Enabled</th><th></th></tr>
            </thead>
            <tbody>
              {!dags.length && <tr><td colSpan={6} class="empty">{name || tag ? "No DAG matches." : "No DAG files in the DAGs directory."}</td></tr>}
              {dags.map((d) => {
                const dag = d.dag || {};
                const next = nextRunOf(dag.schedule);
                const last = d.latestDAGRun && d.latestDAGRun.dagRunId ? d.latestDAGRun : null;
                return (
                  <tr key={d.fileName} data-dag={d.fileName}>
                    <td>
                      <a href={href(["dags", d.fileName])}>{dag.name || d.fileName}</a>
                      {(dag.tags || []).map((t) => (
                        <a key={t} class="tag" href={href(["dags"], { tag: t })}>{t}</a>
                      ))}
                      {dag.description && <div class="muted">{dag.description}</div>}
                      {d.errors && d.errors.length ? <div class="badge failed">{d.errors[0]}</div> : null}
                    </td>
                    <td>{dag.schedule?.length ? dag.schedule.map((s) => <div key={s.expression}><code>{s.expression}</code></div>) : <span class="muted">–</span>}</td>
                    <td>{d.suspended ? <span class="muted">suspended</span> : next ? fmtTime(next) : "–"}</td>
                    <td>
                      <StatusBadge run={last} />
                      {last?.startedAt && <div class="muted">{ago(last.startedAt)}</div>}
                    </td>
                    <td>
                      <label class="switch" title={d.suspended ? "suspended: the scheduler skips it" : "enabled"}>
                        <input type="checkbox" checked={!d.suspended} data-act="toggle" disabled={!canExecute}
                          onChange={() => setSuspended(d.fileName, !d.suspended, poll.reload)} />
                        <span />
                      </label>
                    </td>
                    <td class="actions">{canExecute && <>
                      <button class="primary" data-act="start" onClick={() => setStarting(d)}>Start</button>
                      <button data-act={d.suspended ? "resume" : "suspend"} onClick={() => setSuspended(d.fileName, !d.suspended, poll.reload)}>
                        {d.suspended ? "Resume" : "Suspend"}
                      </button>
                    </>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {pg.totalPages > 1 && (
        <div class="pager">
          <button data-page="prev" disabled={page <= 1} onClick={() => go({ page: page - 1 })}>‹ Prev</button>
          <span class="muted">page {page} of {pg.totalPages}</span>
          <button data-page="next" disabled={page >= pg.totalPages} onClick={() => go({ page: page + 1 })}>Next ›</button>
        </div>
      )}
      {creating && <NewDagForm onClose={() => setCreating(false)} />}
      {starting && (
        <StartDialog file={starting.fileName} params={starting.dag.params} onClose={() => setStarting(null)}
          onStarted={() => poll.reload()} />
      )}
    </>
  );
}
