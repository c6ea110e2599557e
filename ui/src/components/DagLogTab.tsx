// A DAG's Log tab: the scheduler log (the run's main log, GET
// /dag-runs/<dag>/<id>/log) of one of its runs, the latest by default, as
// 1.30.2's DAG page shows it; a list picks another of the recent runs.
import { enc, get } from "../api";
import { fmtTime } from "../format";
import { usePoll } from "../hooks";
import { href, navigate, type Route } from "../router";
import { ErrorBox, Loading } from "./common";
import { LogViewer } from "./LogViewer";
import type { RunSummary } from "./RunsTable";

export function DagLogTab({ file, route }: { file: string; route: Route }) {
  const poll = usePoll(() => get("/dags/" + enc(file) + "/dag-runs"), [file], undefined, (ev) => ev.kind === "run");
  if (!poll.data) return poll.error ? <ErrorBox error={poll.error} /> : <Loading />;
  const runs = ((poll.data.dagRuns || []) as RunSummary[]).filter((r) => r.dagRunId);
  if (!runs.length) return <div class="panel empty">No runs yet: no scheduler log.</div>;
  const wanted = route.query.get("run");
  const run = runs.find((r) => r.dagRunId === wanted) || runs[0];
  const pick = (id: string) => navigate(href(["dags", file], { tab: "log", run: id }), true);
  return (
    <>
      <div class="panel filters inline">
        <label>Run{" "}
          <select id="log-run" value={run.dagRunId} onChange={(e) => pick((e.target as HTMLSelectElement).value)}>
            {runs.map((r) => (
              <option key={r.dagRunId} value={r.dagRunId}>{r.dagRunId + " · " + (r.statusLabel || "") + " · " + fmtTime(r.startedAt)}</option>
            ))}
          </select>
        </label>{" "}
        <a class="mono" href={href(["runs", run.name, run.dagRunId])}>open the run</a>
      </div>
      <LogViewer key={run.name + run.dagRunId} path={"/dag-runs/" + enc(run.name) + "/" + enc(run.dagRunId) + "/log"}
        title={"Scheduler log of " + run.dagRunId} streams={false} live={run.statusLabel === "running" || run.statusLabel === "queued"} />
    </>
  );
}
