// A DAG's page: header with the latest run and actions, and tabs for the
// latest run (graph, steps, log), the spec (CodeMirror, validation, save)
// and the history grid (last runs x steps).
import { DagLogTab } from "../components/DagLogTab";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, enc, get } from "../api";
import { Badge, ErrorBox, Loading, StatusBadge, toast } from "../components/common";
import { Graph, type GraphStep } from "../components/Graph";
import { LogViewer } from "../components/LogViewer";
import { RunButtons, RunsTable, type RunSummary } from "../components/RunsTable";
import type { SpecEditor } from "../components/SpecEditor";
import { StartDialog } from "../components/StartDialog";
import { childRunOf, StepsTable, type NodeInfo } from "../components/StepsTable";
import { fmtDurationMs, fmtTime, NODE_STATUS_LABELS, spanSeconds } from "../format";
import { usePoll } from "../hooks";
import { href, navigate, type Route } from "../router";
import { setSuspended } from "./Dags";
import { useCanExecute } from "../auth";
import { WebhookTab } from "../components/WebhookTab";

// The spec editor (CodeMirror: most of the UI's code) is loaded when the
// Spec tab first opens, so that no other page parses or runs it.
let specEditor: Promise<typeof SpecEditor> | null = null;
function LazySpecEditor(props: Parameters<typeof SpecEditor>[0]) {
  const [Editor, setEditor] = useState<typeof SpecEditor | null>(null);
  const [failed, setFailed] = useState<Error | null>(null);
  useEffect(() => {
    let live = true;
    specEditor ??= import("../components/SpecEditor").then((m) => m.SpecEditor);
    specEditor.then((e) => live && setEditor(() => e), (e) => { specEditor = null; if (live) setFailed(e as Error); });
    return () => { live = false; };
  }, []);
  if (failed) return <ErrorBox error={failed} />;
  return Editor ? <Editor {...props} /> : <Loading />;
}

interface StepDef { name: string; depends?: string[] | null; call?: string }
interface DagDetails {
  dag: { name?: string; description?: string; params?: string[]; tags?: string[]; steps?: StepDef[];
    schedule?: { expression: string; nextRun?: string }[]; location?: string; queue?: string; maxActiveRuns?: number };
  latestDAGRun?: RunSummary & { nodes?: NodeInfo[] };
  suspended: boolean;
  errors?: string[] | null;
}

// `childHref` links a sub-DAG step to the child run it started.
export function graphSteps(steps: StepDef[] | undefined, nodes: NodeInfo[] | undefined,
  childHref?: (childId: string) => string): GraphStep[] {
  const byName = new Map((nodes || []).map((n) => [n.step?.name || "", n]));
  return (steps || []).map((s) => {
    const n = byName.get(s.name);
    const child = n && childHref ? childRunOf(n) : undefined;
    return { name: s.name, depends: s.depends || [], status: n?.statusLabel || "not_started",
      child: child && childHref ? childHref(child) : undefined };
  });
}

export function DagPage({ route, canWrite }: { route: Route; canWrite: boolean }) {
  const file = route.parts[1];
  const tab = route.query.get("tab") || "run";
  const [starting, setStarting] = useState(false);
  const canExecute = useCanExecute();
  const dagName = useRef(file);  // the DAG's own name, which live events use
  const shown = useRef<DagDetails | undefined>(undefined);
  // While the file is being renamed or deleted, a reload already scheduled
  // (a debounced live event, the safety interval) keeps what is shown.
  const poll = usePoll(() => (leaving.has(file) && shown.current ? Promise.resolve(shown.current) : get<DagDetails>("/dags/" + enc(file))), [file], undefined,
    (ev) => ev.kind !== "queue" && !leaving.has(file) && (!ev.dag || ev.dag === file || ev.dag === dagName.current));
  const d = poll.data;
  shown.current = d;
  const dag = d?.dag || {};
  dagName.current = dag.name || file;
  useEffect(() => () => { leaving.delete(file); }, [file]);
  const latest = d?.latestDAGRun && d.latestDAGRun.dagRunId ? d.latestDAGRun : null;
  const tabLink = (t: string) => href(["dags", file], { tab: t === "run" ? undefined : t });
  return (
    <>
      <div class="crumbs"><a href={href(["dags"])}>DAGs</a> / {file}</div>
      <div class="page-head">
        <h1>{dag.name || file}</h1>
        {latest && <StatusBadge run={latest} />}
        {d?.suspended && <Badge label="suspended" />}
        <span class="spacer" />
        {d && canExecute && (
          <>
            <button class="primary" data-act="start" onClick={() => setStarting(true)}>Start</button>
            {latest && <RunButtons run={latest} reload={poll.reload} />}
            <button data-act={d.suspended ? "resume" : "suspend"} onClick={() => setSuspended(file, !d.suspended, poll.reload)}>
              {d.suspended ? "Resume" : "Suspend"}
            </button>
          </>
        )}
      </div>
      {latest && (
        <div class="run-line muted">
          last run <a class="mono" href={href(["runs", latest.name, latest.dagRunId])}>{latest.dagRunId}</a>
          {" · started "}{fmtTime(latest.startedAt)}{" · "}{fmtDurationMs(spanSeconds(latest))}
        </div>
      )}
      <ErrorBox error={poll.error} />
      {d?.errors?.length ? <div class="error-box">{d.errors.map((e) => <div key={e}>{e}</div>)}</div> : null}
      <nav class="page-tabs" aria-label="DAG">
        <a href={tabLink("run")} class={tab === "run" ? "active" : ""} data-tab="run">Latest run</a>
        <a href={tabLink("spec")} class={tab === "spec" ? "active" : ""} data-tab="spec">Spec</a>
        <a href={tabLink("history")} class={tab === "history" ? "active" : ""} data-tab="history">History</a>
        <a href={tabLink("webhook")} class={tab === "webhook" ? "active" : ""} data-tab="webhook">Webhook</a>
        <a href={tabLink("log")} class={tab === "log" ? "active" : ""} data-tab="log">Log</a>
      </nav>
      {!d ? (!poll.error && <Loading />) : tab === "spec" ? (
        <SpecTab file={file} canWrite={canWrite} onSaved={poll.reload} />
      ) : tab === "history" ? (
        <HistoryTab file={file} />
      ) : tab === "webhook" ? (
        <WebhookTab file={file} />
      ) : tab === "log" ? (
        <DagLogTab file={file} route={route} />
      ) : (
        <LatestTab d={d} route={route} file={file} />
      )}
      {starting && d && (
        <StartDialog file={file} params={dag.params} onClose={() => setStarting(false)} onStarted={() => poll.reload()} />
      )}
    </>
  );
}

function LatestTab({ d, route, file }: { d: DagDetails; route: Route; file: string }) {
  const dag = d.dag;
  const latest = d.latestDAGRun && d.latestDAGRun.dagRunId ? d.latestDAGRun : null;
  const step = route.query.get("step");
  const select = (s: string | null) => navigate(href(["dags", file], { step: s || undefined }), true);
  return (
    <>
      <div class="panel">
        <dl class="kv">
          <dt>Description</dt><dd>{dag.description || "–"}</dd>
          <dt>Schedule</dt>
          <dd>{dag.schedule?.length ? dag.schedule.map((s) => (
            <div key={s.expression}><code>{s.expression}</code>{s.nextRun && <span class="muted"> next {fmtTime(s.nextRun)}</span>}</div>
          )) : "–"}</dd>
          <dt>Params</dt><dd class="mono">{(dag.params || []).join(" ") || "–"}</dd>
          <dt>Tags</dt><dd>{(dag.tags || []).map((t) => <a key={t} class="tag" href={href(["dags"], { tag: t })}>{t}</a>)}{!dag.tags?.length && "–"}</dd>
          {dag.location && <><dt>File</dt><dd class="mono">{dag.location}</dd></>}
        </dl>
      </div>
      <div class="panel">
        <h2>Graph{latest ? "" : " (never run)"}</h2>
        <Graph steps={graphSteps(dag.steps || [], latest?.nodes,
          latest ? (c) => href(["runs", latest.name, latest.dagRunId, "sub", c]) : undefined)} selected={step} onSelect={(s) => select(s === step ? null : s)} />
      </div>
      {latest && (
        <>
          <div class="panel flush">
            <h2>Steps of the latest run</h2>
            <StepsTable nodes={latest.nodes || []} selected={step} onSelect={select} />
          </div>
          <LogViewer key={latest.name + latest.dagRunId + (step || "")}
            path={"/dag-runs/" + enc(latest.name) + "/" + enc(latest.dagRunId) + (step ? "/steps/" + enc(step) + "/log" : "/log")}
            title={step ? "Log of step " + step : "Run log"} streams={!!step} live={latest.statusLabel === "running" || latest.statusLabel === "queued"} />
        </>
      )}
    </>
  );
}

// DAG files being renamed or deleted from their page: the page stops
// reloading on live events for them, which the change itself raises before
// or after its answer (the reload would ask for a file that is gone: a 404).
// A file leaves the set when its page goes away or the change failed.
const leaving = new Set<string>();

async function rename(file: string) {
  const to = window.prompt("Rename " + file + " to", file);
  if (!to || to.trim() === file) return;
  leaving.add(file);
  try {
    await api("POST", "/dags/" + enc(file) + "/rename", { newFileName: to.trim() });
    toast("Renamed " + file + " to " + to.trim());
    navigate(href(["dags", to.trim()], { tab: "spec" }), true);
  } catch (e) {
    leaving.delete(file);
    toast((e as Error).message, true);
  }
}

async function remove(file: string) {
  if (!window.confirm("Delete the DAG file " + file + "?")) return;
  leaving.add(file);
  try {
    await api("DELETE", "/dags/" + enc(file));
    toast("Deleted " + file);
    navigate(href(["dags"]));
  } catch (e) {
    leaving.delete(file);
    toast((e as Error).message, true);
  }
}

function SpecTab({ file, canWrite, onSaved }: { file: string; canWrite: boolean; onSaved: () => void }) {
  const [loaded, setLoaded] = useState<{ spec: string; errors: string[] } | null>(null);
  const [loadError, setLoadError] = useState<Error | null>(null);
  const [text, setText] = useState("");
  const [errors, setErrors] = useState<string[]>([]);
  const [saving, setSaving] = useState(false);
  const validateTimer = useRef<number | undefined>(undefined);

  const load = () =>
    get("/dags/" + enc(file) + "/spec").then(
      (r) => {
        setLoaded({ spec: r.spec || "", errors: r.errors || [] });
        setText(r.spec || "");
        setErrors(r.errors || []);
      },
      (e) => setLoadError(e),
    );
  useEffect(() => {
    load();
    return () => window.clearTimeout(validateTimer.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [file]);

  // Validation with the same loader that runs the DAG, while typing.
  const onChange = (t: string) => {
    setText(t);
    window.clearTimeout(validateTimer.current);
    validateTimer.current = window.setTimeout(() => {
      api("POST", "/dags/validate", { spec: t, name: file }).then(
        (r) => setErrors(r.errors || []),
        () => undefined,
      );
    }, 400);
  };
  const save = async () => {
    setSaving(true);
    try {
      const r = await api("PUT", "/dags/" + enc(file) + "/spec", { spec: text });
      if (r.errors && r.errors.length) {
        setErrors(r.errors);
        toast("Not saved: the spec has errors", true);
      } else {
        toast("Saved " + file);
        setLoaded({ spec: text, errors: [] });
        setErrors([]);
        onSaved();
      }
    } catch (e) {
      toast((e as Error).message, true);
    } finally {
      setSaving(false);
    }
  };
  if (loadError) return <ErrorBox error={loadError} />;
  if (!loaded) return <Loading />;
  const dirty = text !== loaded.spec;
  return (
    <div class="panel">
      <div class="page-head">
        <h2>Spec</h2>
        {dirty && <span class="badge queued">unsaved</span>}
        {errors.length ? <span class="badge failed">{errors.length} error{errors.length > 1 ? "s" : ""}</span> : <span class="badge succeeded">valid</span>}
        <span class="spacer" />
        {canWrite ? (
          <>
            <button data-act="rename" onClick={() => rename(file)}>Rename</button>
            <button class="danger" data-act="delete" onClick={() => remove(file)}>Delete</button>
            <button data-act="revert" disabled={!dirty || saving} onClick={() => { setText(loaded.spec); setErrors(loaded.errors); }}>Revert</button>
            <button class="primary" data-act="save" disabled={!dirty || saving} onClick={save}>Save</button>
          </>
        ) : <span class="muted">read only (your role may not write DAGs)</span>}
      </div>
      <LazySpecEditor value={text} readOnly={!canWrite} errors={errors} onChange={onChange} />
      {errors.length > 0 && (
        <ul class="spec-errors" id="spec-errors">{errors.map((e) => <li key={e}>{e}</li>)}</ul>
      )}
    </div>
  );
}

function HistoryTab({ file }: { file: string }) {
  const dagName = useRef(file);
  const poll = usePoll(() => get("/dags/" + enc(file) + "/dag-runs"), [file], undefined,
    (ev) => ev.kind === "run" && (!ev.dag || ev.dag === file || ev.dag === dagName.current));
  if (!poll.data) return poll.error ? <ErrorBox error={poll.error} /> : <Loading />;
  const runs = (poll.data.dagRuns || []) as RunSummary[];
  if (runs.length && runs[0].name) dagName.current = runs[0].name;
  const grid = (poll.data.gridData || []) as { name: string; history: number[] }[];
  // Oldest run on the left, newest on the right.
  const cols = runs.map((r, i) => ({ r, i })).reverse();
  return (
    <>
      <div class="panel">
        <h2>History of the last {runs.length} runs</h2>
        {!runs.length ? <div class="empty">No runs.</div> : (
          <div class="grid-scroll">
            <table class="history-grid" id="history-grid">
              <thead>
                <tr><th>Step</th>{cols.map(({ r }) => (
                  <th key={r.dagRunId} class="hcell"><a href={href(["runs", r.name, r.dagRunId])} title={r.dagRunId + " " + fmtTime(r.startedAt)}>
                    <span class={"cell run " + (r.statusLabel || "not_started")} data-run={r.dagRunId} /></a></th>
                ))}</tr>
              </thead>
              <tbody>
                {grid.map((row) => (
                  <tr key={row.name} data-step={row.name}>
                    <td class="mono">{row.name}</td>
                    {cols.map(({ r, i }) => {
                      const st = NODE_STATUS_LABELS[row.history[i] ?? 0] || "not_started";
                      return (
                        <td key={r.dagRunId} class="hcell">
                          <a href={href(["runs", r.name, r.dagRunId], { step: row.name })} title={row.name + ": " + st.replace(/_/g, " ")}>
                            <span class={"cell " + st} />
                          </a>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      <div class="panel flush"><h2>Runs</h2><RunsTable runs={runs} withDag={false} reload={poll.reload} /></div>
    </>
  );
}
