// A run's page (or, with /sub/<id>, a sub-DAG run reached through its root):
// header with status and actions, the graph colored by status, the steps
// with "retry from here", the sub-DAG runs, and the log of the run or of the
// selected step.
import { enc, get, post } from "../api";
import { ApprovalPanel } from "../components/Approval";
import { ErrorBox, Loading, StatusBadge, toast } from "../components/common";
import { Graph } from "../components/Graph";
import { LogViewer } from "../components/LogViewer";
import { RunButtons, WorkerWaitNote, runAction, type RunSummary } from "../components/RunsTable";
import { childRunOf, StepsTable, type NodeInfo } from "../components/StepsTable";
import { StepTimeline } from "../components/StepTimeline";
import { fmtDurationMs, fmtTime, spanSeconds, triggerLabel } from "../format";
import { usePoll } from "../hooks";
import { useCanExecute } from "../auth";
import { href, navigate, type Route } from "../router";
import { useRef } from "preact/hooks";

interface RunDetails extends RunSummary {
  nodes?: NodeInfo[];
  parentDAGRunName?: string;
  parentDAGRunId?: string;
}

async function reschedule(name: string, id: string) {
  try {
    const r = await post<{ dagRunId?: string }>("/dag-runs/" + enc(name) + "/" + enc(id) + "/reschedule", {});
    toast("Rescheduled as " + (r.dagRunId || "a new run"));
    if (r.dagRunId) navigate(href(["runs", name, r.dagRunId]));
  } catch (e) {
    toast((e as Error).message, true);
  }
}

export function RunPage({ route }: { route: Route }) {
  const canExecute = useCanExecute();
  const [, name, id, subKw, sub] = route.parts;
  const subId = subKw === "sub" ? sub : null;
  const step = route.query.get("step");
  const base = "/dag-runs/" + enc(name) + "/" + enc(id) + (subId ? "/sub-dag-runs/" + enc(subId) : "");
  const children = "/dag-runs/" + enc(name) + "/" + enc(id) + "/sub-dag-runs" + (subId ? "?parentSubDAGRunId=" + enc(subId) : "");
  // A sub-DAG run's events name the child DAG: a run with children follows all.
  const hasSubs = useRef(false);
  const poll = usePoll(async () => {
    const [detail, subs, outputs] = await Promise.all([
      get(base),
      get(children).then((d) => (d.subRuns || []) as RunSummary[], () => [] as RunSummary[]),
      subId ? Promise.resolve({}) : get(base + "/outputs").then((d) => (d.outputs || {}) as Record<string, unknown>, () => ({})),
    ]);
    return { r: (detail.dagRunDetails || {}) as RunDetails, subs, outputs: outputs as Record<string, unknown> };
  }, [base], undefined, (ev) => ev.kind === "run" && (!ev.dag || ev.dag === name || !!subId || hasSubs.current));
  const select = (s: string | null) =>
    navigate(href(route.parts, { step: s || undefined }), true);
  if (!poll.data) return poll.error ? <ErrorBox error={poll.error} /> : <Loading />;
  const { r, subs, outputs } = poll.data;
  hasSubs.current = subs.length > 0 || (r.nodes || []).some((n) => !!n.step?.call);
  const nodes = r.nodes || [];
  const running = r.statusLabel === "running" || r.statusLabel === "queued" || r.statusLabel === "waiting";
  // Which DAG each sub-run is: the `call` of the step that started it.
  const dagOf = new Map<string, string>();
  for (const n of nodes) for (const c of [...(n.subRuns || []), ...(n.subRunsRepeated || [])]) dagOf.set(c.dagRunId, n.step?.call || "");
  const rootRun: RunSummary = { ...r, name, dagRunId: id };
  return (
    <>
      <div class="crumbs">
        <a href={href(["runs"])}>Runs</a> / <a href={href(["dags", name])}>{name}</a> /{" "}
        {subId ? <><a href={href(["runs", name, id])}>{id}</a> / {r.name} {subId}</> : id}
      </div>
      <div class="page-head">
        <h1 class="mono">{subId || id}</h1>
        <StatusBadge run={r} />
        <span class="spacer" />
        {!subId && <RunButtons run={rootRun} reload={poll.reload} />}
        {!subId && !running && canExecute && (
          <button data-act="reschedule" title="a new run with the same params" onClick={() => reschedule(name, id)}>Reschedule</button>
        )}
      </div>
      <ErrorBox error={poll.error} />
      <div class="panel">
        <dl class="kv">
          <dt>DAG</dt><dd>{r.name}</dd>
          {r.parentDAGRunId && <><dt>Parent</dt><dd class="mono">{r.parentDAGRunName + " " + r.parentDAGRunId}</dd></>}
          <dt>Trigger</dt><dd>{triggerLabel(r.triggerType)}</dd>
          <dt>Schedule time</dt><dd>{fmtTime(r.scheduleTime)}</dd>
          <dt>Started</dt><dd>{fmtTime(r.startedAt)}</dd>
          <dt>Finished</dt><dd>{fmtTime(r.finishedAt)}</dd>
          <dt>Duration</dt><dd>{fmtDurationMs(spanSeconds(r))}</dd>
          <dt>Params</dt><dd class="mono">{r.params || "–"}</dd>
          {!subId && r.statusLabel === "queued" && r.waitingForWorker && (
            <><dt>Waiting</dt><dd><WorkerWaitNote run={r} /></dd></>
          )}
        </dl>
      </div>
      {nodes.filter((n) => n.statusLabel === "waiting" && (n.step as any)?.executorConfig?.type === "hitl").map((n) => (
        <ApprovalPanel key={n.step?.name} base={base} node={n} reload={poll.reload} />
      ))}
      <div class="panel">
        <h2>Graph</h2>
        <Graph steps={nodes.map((n) => {
          const child = childRunOf(n);
          return { name: n.step?.name || "", depends: n.step?.depends || [], status: n.statusLabel,
            child: child ? href(["runs", name, id, "sub", child]) : undefined };
        })}
          selected={step} onSelect={(s) => select(s === step ? null : s)} />
      </div>
      <div class="panel flush">
        <h2>Steps</h2>
        <StepsTable nodes={nodes} selected={step} onSelect={select}
          onRetryFrom={subId || running || !canExecute ? undefined : (s) => runAction(rootRun, "retry", poll.reload, s)} />
      </div>
      <div class="panel">
        <h2>Timeline</h2>
        <StepTimeline nodes={nodes} />
      </div>
      {Object.keys(outputs).length > 0 && (
        <div class="panel">
          <h2>Outputs</h2>
          <dl class="kv" id="outputs">
            {Object.entries(outputs).flatMap(([k, v]) => [
              <dt class="mono" key={"k" + k}>{k}</dt>,
              <dd class="mono" key={"v" + k}>{typeof v === "string" ? v : JSON.stringify(v)}</dd>,
            ])}
          </dl>
        </div>
      )}
      {subs.length > 0 && (
        <div class="panel flush">
          <h2>Sub-DAG runs</h2>
          <table id="subruns-table">
            <thead><tr><th>Sub-run ID</th><th>DAG</th><th>Params</th><th>Status</th><th>Started</th><th>Duration</th></tr></thead>
            <tbody>
              {subs.map((c) => (
                <tr key={c.dagRunId} data-subrun={c.dagRunId}>
                  <td class="mono"><a href={href(["runs", name, id, "sub", c.dagRunId])}>{c.dagRunId}</a></td>
                  <td>{dagOf.get(c.dagRunId) || ""}</td>
                  <td class="mono">{c.params || ""}</td>
                  <td><StatusBadge run={c} /></td>
                  <td>{fmtTime(c.startedAt)}</td>
                  <td class="num">{fmtDurationMs(spanSeconds(c))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LogViewer key={base + (step || "")} path={base + (step ? "/steps/" + enc(step) + "/log" : "/log")} title={step ? "Log of step " + step : "Run log"}
        streams={!!step} live={running} />
    </>
  );
}
