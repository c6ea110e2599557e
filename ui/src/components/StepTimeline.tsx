// A Gantt of a run's steps: a bar per step from its start to its end (or
// now while it runs), on the run's time span, colored by status.
import { fmtDurationMs, parseTime, spanSeconds } from "../format";
import type { NodeInfo } from "./StepsTable";

export function StepTimeline({ nodes }: { nodes: NodeInfo[] }) {
  const now = Date.now();
  const times = nodes.map((n) => {
    const a = parseTime(n.startedAt)?.getTime();
    const b = parseTime(n.finishedAt)?.getTime();
    return a === undefined ? null : [a, b ?? now] as [number, number];
  });
  const known = times.filter((t): t is [number, number] => t !== null);
  if (!known.length) return <div class="empty">No step has started.</div>;
  const start = Math.min(...known.map((t) => t[0]));
  // Times are whole seconds: a step within one second still gets a visible bar.
  const end = Math.max(start + 1000, ...known.map((t) => t[1] + 1000));
  const span = end - start;
  return (
    <div class="timeline gantt" id="step-timeline">
      {nodes.map((n, i) => {
        const t = times[i];
        const name = n.step?.name || "";
        return (
          <div class="lane" key={name} data-step={name}>
            <div class="lane-name" title={name}>{name}</div>
            <div class="lane-track">
              {t && (
                <div class={"bar " + (n.statusLabel || "not_started")}
                  style={{ left: (((t[0] - start) / span) * 100).toFixed(3) + "%", width: Math.max(0.5, ((t[1] + 1000 - t[0]) / span) * 100).toFixed(3) + "%" }}
                  title={name + " · " + fmtDurationMs(spanSeconds(n))} />
              )}
            </div>
          </div>
        );
      })}
      <div class="axis"><div /><div class="axis-track"><span>0s</span><span>{fmtDurationMs(span / 1000)}</span></div></div>
    </div>
  );
}
