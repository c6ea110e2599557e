// Queues: the summary and each queue's running and waiting runs.
import { get } from "../api";
import { Card, ErrorBox, Loading } from "../components/common";
import { RunsTable, type RunSummary } from "../components/RunsTable";
import { usePoll } from "../hooks";

export function QueuesPage() {
  const poll = usePoll(() => get("/queues"), []);
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
              <span class="muted">{running.length} / {q.maxConcurrency} running, {queued.length} queued</span>
            </h2>
            <RunsTable runs={running.concat(queued)} withDag reload={poll.reload} />
          </div>
        );
      })}
    </>
  );
}
