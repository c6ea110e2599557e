// The steps of a run with status, times and error; a click selects a step
// (its log); onRetryFrom adds "retry from here" buttons.
import { Badge } from "./common";
import { fmtDurationMs, fmtTime, spanSeconds } from "../format";

export interface NodeInfo {
  step?: { name?: string; depends?: string[] | null; call?: string };
  statusLabel?: string;
  startedAt?: string;
  finishedAt?: string;
  error?: string;
  retryCount?: number;
  subRuns?: { dagRunId: string }[];
  subRunsRepeated?: { dagRunId: string }[];
}

// The latest sub-DAG run a step started, or undefined.
export function childRunOf(n: NodeInfo): string | undefined {
  const all = [...(n.subRuns || []), ...(n.subRunsRepeated || [])];
  return all.length ? all[all.length - 1].dagRunId : undefined;
}

export function StepsTable({ nodes, selected, onSelect, onRetryFrom }: {
  nodes: NodeInfo[]; selected?: string | null; onSelect: (name: string | null) => void; onRetryFrom?: (name: string) => void;
}) {
  return (
    <table id="steps-table">
      <thead>
        <tr><th>Step</th><th>Status</th><th>Started</th><th>Finished</th><th>Duration</th><th>Error</th>{onRetryFrom && <th></th>}</tr>
      </thead>
      <tbody>
        {!nodes.length && <tr><td colSpan={7} class="empty">No steps.</td></tr>}
        {nodes.map((n) => {
          const name = n.step?.name || "";
          return (
            <tr key={name} class={"clickable" + (selected === name ? " row-selected" : "")} data-step={name}
              onClick={() => onSelect(selected === name ? null : name)}>
              <td>{name}</td>
              <td><Badge label={n.statusLabel || "not_started"} /></td>
              <td>{fmtTime(n.startedAt)}</td>
              <td>{fmtTime(n.finishedAt)}</td>
              <td class="num">{fmtDurationMs(spanSeconds(n))}</td>
              <td class="err">{n.error || ""}</td>
              {onRetryFrom && (
                <td class="actions">
                  <button data-act="retry-step" title={"retry the run from step " + name}
                    onClick={(e) => { e.stopPropagation(); onRetryFrom(name); }}>Retry from here</button>
                </td>
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
