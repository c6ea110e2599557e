// Queues: the summary and each queue's running and waiting runs; Clear
// dequeues every waiting run of a queue (as 1.30.2's UI does: one
// GET .../dequeue per run, the API has no operation for a whole queue).
import { api, enc, get } from "../api";
import { Card, ErrorBox, Loading, toast } from "../components/common";
import { RunsTable, type RunSummary } from "../components/RunsTable";
import { usePoll } from "../hooks";

async function clearQueue(queue: string, queued: RunSummary[], reload: () => void) {
  if (!window.confirm("Dequeue the " + queued.length + " waiting run(s) of " + queue + "?")) return;
  const results = await Promise.allSettled(
    queued.map((r) => api("GET", "/dag-runs/" + enc(r.name) + "/" + enc(r.dagRunId) + "/dequeue")),
  );
  const failed = results.filter((x) => x.status === "rejected").length;
  if (failed) toast(failed + " of " + queued.length + " could not be dequeued", true);
  else toast("Cleared " + queue + ": " + queued.length + " dequeued");
  reload();
}

export function QueuesPage() {
  const poll = usePoll(() => get("/queues"), [], undefined, (ev) => ev.kind !== "dag");
  if (!poll.data) return poll.error ? <ErrorBox error={poll.error} /> : <Loading />;
  const qs = (poll.data.queues || []) as any[];
  const sum = poll.data.summary || {};
  return (
    <>
      <div class="page-head"><h1>Queues</h1></div>
      <div class="cards">
        <Card label="Queues" value={sum.totalQueues || 0} />
        <Card label="Running" value={sum.totalRunning || 0} />
        <Card label="Queued" value={sum.totalQueued || 0} />
        <Card label="Capacity" value={sum.totalCapacity || 0} sub={(sum.utilizationPercentage || 0) + "% used"} />
      </div>
      {!qs.length && <div class="panel empty">No queue has running or waiting items.</div>}
      {qs.map((q) => {
        const running = (q.running || []) as RunSummary[], queued = (q.queued || []) as RunSummary[];
        return (
          <div class="panel flush queue" data-queue={q.name} key={q.name}>
            <h2>
              {q.name} <span class="tag">{q.type}</span>{" "}
              <span class="muted">{running.length} / {q.maxConcurrency} running, {queued.length} queued</span>{" "}
              {queued.length > 0 && (
                <button class="danger" data-act="clear-queue" onClick={() => clearQueue(q.name, queued, poll.reload)}>Clear</button>
              )}
            </h2>
            <RunsTable runs={running.concat(queued)} withDag reload={poll.reload} />
          </div>
        );
      })}
    </>
  );
}
