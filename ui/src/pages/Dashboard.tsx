// The dashboard: the chosen day's runs on a timeline (a lane per DAG, bars
// colored by status, a click opens the run), counts by status, the
// scheduler instances and the host's resources.
import { WorkersPanel, type Worker } from "../components/Workers";
import { useState } from "preact/hooks";
import { get } from "../api";
import { Card, ErrorBox, Loading } from "../components/common";
import type { RunSummary } from "../components/RunsTable";
import { fmtDurationMs, fmtTime, isoDay, parseTime, spanSeconds } from "../format";
import { usePoll } from "../hooks";
import { href, navigate, type Route } from "../router";

interface Point { timestamp: number; value: number }

function dayBounds(day: string): [number, number] {
  const [y, m, d] = day.split("-").map(Number);
  const start = new Date(y, (m || 1) - 1, d || 1).getTime();
  const end = new Date(y, (m || 1) - 1, (d || 1) + 1).getTime();
  return [start, end];
}

function Sparkline({ points }: { points: Point[] }) {
  if (points.length < 2) return null;
  const w = 160, h = 32;
  const t0 = points[0].timestamp, t1 = points[points.length - 1].timestamp || t0 + 1;
  const max = Math.max(100, ...points.map((p) => p.value));
  const d = points.map((p, i) => (i ? "L" : "M") + (((p.timestamp - t0) / Math.max(1, t1 - t0)) * w).toFixed(1) + " " +
    (h - (p.value / max) * h).toFixed(1)).join(" ");
  return <svg class="spark" width={w} height={h} viewBox={`0 0 ${w} ${h}`}><path d={d} /></svg>;
}

export function DashboardPage({ route }: { route: Route }) {
  const day = route.query.get("date") || isoDay(new Date());
  const dag = route.query.get("dag") || "";
  const [dagInput, setDagInput] = useState(dag);
  const set = (q: { date?: string; dag?: string }) =>
    navigate(href(["dashboard"], { date: q.date ?? (route.query.get("date") || undefined), dag: q.dag ?? dag }), true);
  const [start, end] = dayBounds(day);
  const poll = usePoll(async () => {
    const qs = new URLSearchParams({ fromDate: String(Math.floor(start / 1000)), toDate: String(Math.floor(end / 1000) - 1) });
    if (dag) qs.set("name", dag);
    const [runs, sched, res, workers] = await Promise.all([
      get("/dag-runs?" + qs),
      get("/services/scheduler").catch(() => ({ schedulers: [] })),
      get("/services/resources/history").catch(() => ({})),
      get("/workers").then((w) => (w.workers || []) as Worker[], () => null),
    ]);
    return { runs: (runs.dagRuns || []) as RunSummary[], schedulers: (sched.schedulers || []) as any[], res, workers };
  }, [day, dag], undefined, (ev) => ev.kind !== "dag");
  const data = poll.data;
  const counts: Record<string, number> = {};
  for (const r of data?.runs || []) counts[r.statusLabel || "not_started"] = (counts[r.statusLabel || "not_started"] || 0) + 1;
  const lanes = new Map<string, RunSummary[]>();
  for (const r of data?.runs || []) {
    if (!lanes.has(r.name)) lanes.set(r.name, []);
    lanes.get(r.name)!.push(r);
  }
  const span = end - start;
  const now = Date.now();
  const active = (data?.schedulers || []).filter((s) => s.role === "active").length;
  const res = data?.res || {};
  const last = (k: string) => {
    const arr = (res[k] || []) as Point[];
    return arr.length ? arr[arr.length - 1].value : null;
  };
  return (
    <>
      <div class="page-head">
        <h1>Dashboard</h1>
        <span class="spacer" />
        <form class="filters inline" onSubmit={(e) => { e.preventDefault(); set({ dag: dagInput.trim() }); }}>
          <input id="dash-dag" placeholder="DAG name" value={dagInput} onInput={(e) => setDagInput((e.target as HTMLInputElement).value)} />
          <input id="dash-date" type="date" value={day} onChange={(e) => set({ date: (e.target as HTMLInputElement).value })} />
        </form>
      </div>
      <ErrorBox error={poll.error} />
      {!data ? (!poll.error && <Loading />) : (
        <>
          <div class="cards" id="dash-counts">
            <Card label="Runs" value={data.runs.length} sub={day} />
            <Card label="Succeeded" value={counts.succeeded || 0} />
            <Card label="Failed" value={(counts.failed || 0) + (counts.rejected || 0)} />
            <Card label="Running" value={(counts.running || 0) + (counts.queued || 0)} sub={(counts.queued || 0) + " queued"} />
            <Card label="Schedulers" value={<a href={href(["instances"])}>{active + " active"}</a>}
              sub={(data.schedulers.length - active) + " standby"} />
          </div>
          <div class="panel">
            <h2>Runs of {day}</h2>
            {!lanes.size ? <div class="empty">No runs on this day.</div> : (
              <div class="timeline day-timeline" id="dash-timeline">
                {[...lanes.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([name, runs]) => (
                  <div class="lane" key={name} data-dag={name}>
                    <div class="lane-name"><a href={href(["dags", name])}>{name}</a></div>
                    <div class="lane-track">
                      {runs.map((r) => {
                        const a = parseTime(r.startedAt)?.getTime() ?? parseTime(r.queuedAt)?.getTime();
                        if (a === undefined) return null;
                        const b = parseTime(r.finishedAt)?.getTime() ?? Math.min(now, end);
                        const left = Math.max(0, (a - start) / span) * 100;
                        const width = Math.max(0.25, ((Math.min(b, end) - Math.max(a, start)) / span) * 100);
                        return (
                          <a key={r.dagRunId} class={"bar " + (r.statusLabel || "not_started")} data-run={r.dagRunId}
                            href={href(["runs", r.name, r.dagRunId])} style={{ left: left.toFixed(3) + "%", width: width.toFixed(3) + "%" }}
                            title={r.dagRunId + " · " + (r.statusLabel || "") + " · " + fmtTime(r.startedAt) + " · " + fmtDurationMs(spanSeconds(r))} />
                        );
                      })}
                    </div>
                  </div>
                ))}
                <div class="axis"><div /><div class="axis-track">
                  {[0, 3, 6, 9, 12, 15, 18, 21, 24].map((h) => <span key={h}>{String(h).padStart(2, "0")}:00</span>)}
                </div></div>
              </div>
            )}
          </div>
          <WorkersPanel workers={data.workers} />
          <div class="panel">
            <h2>Host resources</h2>
            <div class="cards resources">
              {([["cpu", "CPU"], ["memory", "Memory"], ["disk", "Disk"], ["load", "Load"]] as [string, string][]).map(([k, label]) => {
                const v = last(k);
                return (
                  <div class="card" key={k}>
                    <div class="label">{label}</div>
                    <div class="value">{v === null ? "–" : k === "load" ? v.toFixed(2) : Math.round(v) + "%"}</div>
                    <Sparkline points={(res[k] || []) as Point[]} />
                  </div>
                );
              })}
            </div>
          </div>
        </>
      )}
    </>
  );
}
