// Scheduler instances: which one is active, the standbys, and the history of
// role changes with the measured takeover times.
import { get } from "../api";
import { Badge, Card, ErrorBox, Loading } from "../components/common";
import { ago, fmtDuration, fmtTime, parseTime } from "../format";
import { usePoll } from "../hooks";

interface Instance {
  instanceId: string; role?: string; status?: string; host?: string; pid?: number; roleSince?: string;
  startedAt?: string; lastRenewalAgeSeconds?: number; reportAgeSeconds?: number; lockHolder?: string;
}
interface Change {
  time: string; instance: string; host?: string; from?: string; to: string; reason?: string;
  previousHolder?: string; takeoverSeconds?: number;
}

export function InstancesPage() {
  const poll = usePoll(async () => {
    const [s, h] = await Promise.all([get("/services/scheduler"), get("/services/scheduler/history?limit=200")]);
    return { list: (s.schedulers || []) as Instance[], changes: (h.changes || []) as Change[] };
  }, []);
  if (!poll.data) return poll.error ? <ErrorBox error={poll.error} /> : <Loading />;
  const { list, changes } = poll.data;
  const active = list.filter((s) => s.role === "active");
  const standby = list.filter((s) => s.role !== "active");
  let lastTakeover: Change | null = null;
  for (let i = changes.length - 1; i >= 0; i--) {
    if (changes[i].to === "active" && typeof changes[i].takeoverSeconds === "number") {
      lastTakeover = changes[i];
      break;
    }
  }
  const a = active[0];
  const since = a ? parseTime(a.roleSince) || parseTime(a.startedAt) : null;
  return (
    <>
      <div class="page-head"><h1>Scheduler instances</h1></div>
      <ErrorBox error={poll.error} />
      <div class="cards">
        <Card label="Active" value={active.length} sub={a ? a.instanceId : "no active scheduler"} />
        <Card label="Standby" value={standby.length} sub={standby.length ? standby.map((s) => s.host).join(", ") : "none"} />
        <Card label="Active since" value={since ? fmtDuration((Date.now() - since.getTime()) / 1000) : "–"}
          sub={a ? fmtTime(a.roleSince || a.startedAt) : ""} />
        <Card label="Last takeover" value={lastTakeover ? fmtDuration(lastTakeover.takeoverSeconds) : "–"}
          sub={lastTakeover ? fmtTime(lastTakeover.time) + " by " + lastTakeover.host : "no takeover recorded"} />
      </div>
      <div class="panel flush">
        <table id="instances-table">
          <thead>
            <tr><th>Instance</th><th>Role</th><th>Host</th><th>PID</th><th>Role since</th><th>Last renewal</th><th>Lock holder</th><th>Started</th></tr>
          </thead>
          <tbody>
            {!list.length && <tr><td colSpan={8} class="empty">No scheduler is registered (entries older than 30 s are ignored).</td></tr>}
            {list.map((s) => (
              <tr key={s.instanceId} data-instance={s.instanceId} data-role={s.role}>
                <td class="mono">{s.instanceId}</td>
                <td><Badge label={s.role || s.status || "unknown"} /></td>
                <td>{s.host}</td>
                <td class="num">{s.pid || "–"}</td>
                <td>{s.roleSince ? <>{fmtTime(s.roleSince)} <span class="muted">({ago(s.roleSince)})</span></> : "–"}</td>
                <td title={typeof s.reportAgeSeconds === "number" ? "as reported by the instance " + fmtDuration(s.reportAgeSeconds) + " ago" : undefined}>
                  {typeof s.lastRenewalAgeSeconds === "number" ? fmtDuration(s.lastRenewalAgeSeconds) + " ago" : "–"}
                </td>
                <td class="mono">{s.lockHolder || "–"}</td>
                <td>{fmtTime(s.startedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="panel">
        <h2>Role history</h2>
        <RoleTimeline changes={changes} />
      </div>
    </>
  );
}

// One lane per instance with its active periods, then the list of changes.
function RoleTimeline({ changes }: { changes: Change[] }) {
  if (!changes.length) return <div class="empty">No role changes recorded yet.</div>;
  const now = Date.now();
  const start = parseTime(changes[0].time)?.getTime() ?? now;
  const span = Math.max(now - start, 1000);
  const lanes = new Map<string, { segs: [number, number, boolean][]; open: number | null }>();
  for (const c of changes) {
    const t = parseTime(c.time);
    if (!t) continue;
    if (!lanes.has(c.instance)) lanes.set(c.instance, { segs: [], open: null });
    const lane = lanes.get(c.instance)!;
    if (c.to === "active") lane.open = t.getTime();
    else if (lane.open !== null) {
      lane.segs.push([lane.open, t.getTime(), false]);
      lane.open = null;
    }
  }
  return (
    <>
      <div class="timeline">
        {[...lanes.entries()].map(([id, lane]) => {
          const segs = lane.open !== null ? [...lane.segs, [lane.open, now, true] as [number, number, boolean]] : lane.segs;
          return (
            <div class="lane" key={id}>
              <div class="lane-name mono" title={id}>{id}</div>
              <div class="lane-track">
                {segs.map((s, i) => (
                  <div key={i} class={"seg" + (s[2] ? " open" : "")}
                    style={{ left: (((s[0] - start) / span) * 100).toFixed(3) + "%", width: (((s[1] - s[0]) / span) * 100).toFixed(3) + "%" }}
                    title={"active " + fmtTime(new Date(s[0])) + " – " + (s[2] ? "now" : fmtTime(new Date(s[1])))} />
                ))}
              </div>
            </div>
          );
        })}
        <div class="axis"><div /><div class="axis-track"><span>{fmtTime(new Date(start))}</span><span>now</span></div></div>
      </div>
      <ul class="events">
        {changes.slice().reverse().map((c, i) => (
          <li key={i}>
            <span>{fmtTime(c.time)}</span>
            <span class="what">
              <span class="mono">{c.instance}</span> <Badge label={c.from || "starting"} /> → <Badge label={c.to} />{" "}
              <span class="muted">{(c.reason || "") + (c.previousHolder ? " (previous holder " + c.previousHolder + ")" : "")}</span>
            </span>
            {typeof c.takeoverSeconds === "number" ? (
              <span class="takeover" title="from the last renewal of the previous holder that this instance saw to becoming active">
                takeover {fmtDuration(c.takeoverSeconds)}
              </span>
            ) : <span />}
          </li>
        ))}
      </ul>
    </>
  );
}
