// The distributed workers the coordinator knows (GET /api/v2/workers), as
// the Dashboard lists them: health, labels, pollers and the runs each is
// executing (a click opens the run).
import { fmtTime } from "../format";
import { href } from "../router";

export interface WorkerTask {
  dagName: string;
  dagRunId: string;
  rootDagRunName?: string;
  rootDagRunId?: string;
  startedAt?: string;
}
export interface Worker {
  id: string;
  labels?: Record<string, string>;
  healthStatus?: string;
  busyPollers?: number;
  totalPollers?: number;
  lastHeartbeatAt?: string;
  runningTasks?: WorkerTask[];
}

// `workers` null: the coordinator could not be asked (none runs).
export function WorkersPanel({ workers }: { workers: Worker[] | null }) {
  return (
    <div class="panel flush">
      <h2>Workers</h2>
      {workers === null ? <div class="empty" id="dash-workers-none">No coordinator is running: no distributed workers.</div>
        : !workers.length ? <div class="empty" id="dash-workers-none">No worker is connected to the coordinator.</div> : (
        <table id="dash-workers">
          <thead><tr><th>Worker</th><th>Health</th><th>Labels</th><th>Pollers</th><th>Running</th><th>Last heartbeat</th></tr></thead>
          <tbody>
            {workers.map((w) => (
              <tr key={w.id} data-worker={w.id}>
                <td class="mono">{w.id}</td>
                <td><span class={"badge " + (w.healthStatus === "healthy" ? "succeeded" : w.healthStatus === "warning" ? "queued" : "failed")}>
                  {w.healthStatus || "unknown"}</span></td>
                <td>{Object.entries(w.labels || {}).map(([k, v]) => <span class="tag" key={k}>{k}={v}</span>)}</td>
                <td class="num">{(w.busyPollers ?? 0) + " / " + (w.totalPollers ?? 0) + " busy"}</td>
                <td>{(w.runningTasks || []).map((t) => (
                  <div key={t.dagRunId}>
                    <a class="mono" href={href(["runs", t.rootDagRunName || t.dagName, t.rootDagRunId || t.dagRunId])}>{t.dagName} {t.dagRunId}</a>
                  </div>
                ))}</td>
                <td>{fmtTime(w.lastHeartbeatAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
