// A table of runs (the Runs page, a DAG's runs, a queue's items) with the
// actions each run allows.
import { api, enc } from "../api";
import { fmtDurationMs, fmtTime, spanSeconds, triggerLabel } from "../format";
import { href } from "../router";
import { StatusBadge, toast } from "./common";
import { useCanExecute } from "../auth";

export interface RunSummary {
  name: string;
  dagRunId: string;
  statusLabel?: string;
  status?: number;
  triggerType?: string;
  scheduleTime?: string;
  startedAt?: string;
  finishedAt?: string;
  queuedAt?: string;
  params?: string;
  // Ours: why a queued run of a DAG with a workerSelector is not dispatched yet.
  waitingForWorker?: WorkerWait;
}

export interface WorkerWait {
  reason: string; // no_coordinator | no_matching_worker | coordinator_failed
  message: string; // "no worker matches pool=gpu"
  detail?: string;
  workerSelector?: Record<string, string>;
  since?: string;
}

// "waiting for a worker: no worker matches pool=gpu" (nothing when it does not wait).
export function WorkerWaitNote({ run }: { run: RunSummary }) {
  const w = run.statusLabel === "queued" ? run.waitingForWorker : undefined;
  if (!w) return null;
  return (
    <div class="muted wait-note" data-wait={w.reason} title={(w.detail || "") + (w.since ? " (since " + fmtTime(w.since) + ")" : "")}>
      waiting for a worker: {w.message}
    </div>
  );
}

export async function runAction(r: RunSummary, act: "stop" | "retry" | "dequeue", reload: () => void, stepName?: string) {
  const base = "/dag-runs/" + enc(r.name) + "/" + enc(r.dagRunId);
  try {
    if (act === "stop") {
      await api("POST", base + "/stop");
      toast("Stop requested for " + r.dagRunId);
    } else if (act === "dequeue") {
      await api("GET", base + "/dequeue");
      toast("Dequeued " + r.dagRunId);
    } else {
      const body: Record<string, string> = { dagRunId: r.dagRunId };
      if (stepName) body.stepName = stepName;
      await api("POST", base + "/retry", body);
      toast("Retrying " + r.dagRunId + (stepName ? " from step " + stepName : ""));
    }
  } catch (e) {
    toast((e as Error).message, true);
  }
  reload();
}

export function RunButtons({ run, reload }: { run: RunSummary; reload: () => void }) {
  if (!useCanExecute()) return null; // a viewer (builtin auth) may not run DAGs
  if (run.statusLabel === "running")
    return <button class="danger" data-act="stop" onClick={() => runAction(run, "stop", reload)}>Stop</button>;
  if (run.statusLabel === "queued")
    return <button class="danger" data-act="dequeue" onClick={() => runAction(run, "dequeue", reload)}>Dequeue</button>;
  return <button data-act="retry" onClick={() => runAction(run, "retry", reload)}>Retry</button>;
}

export function RunsTable({ runs, withDag, reload }: { runs: RunSummary[]; withDag: boolean; reload: () => void }) {
  return (
    <table class="runs-table">
      <thead>
        <tr>
          {withDag && <th>DAG</th>}
          <th>Run ID</th><th>Status</th><th>Trigger</th><th>Schedule time</th><th>Started</th><th>Duration</th><th></th>
        </tr>
      </thead>
      <tbody>
        {!runs.length && <tr><td colSpan={withDag ? 8 : 7} class="empty">No runs.</td></tr>}
        {runs.map((r) => (
          <tr key={r.name + "/" + r.dagRunId} data-run={r.dagRunId}>
            {withDag && <td><a href={href(["dags", r.name])}>{r.name}</a></td>}
            <td class="mono"><a href={href(["runs", r.name, r.dagRunId])}>{r.dagRunId}</a></td>
            <td><StatusBadge run={r} /><WorkerWaitNote run={r} /></td>
            <td>{triggerLabel(r.triggerType)}</td>
            <td>{fmtTime(r.scheduleTime)}</td>
            <td>{fmtTime(r.startedAt || r.queuedAt)}</td>
            <td class="num">{fmtDurationMs(spanSeconds(r))}</td>
            <td class="actions"><RunButtons run={r} reload={reload} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
