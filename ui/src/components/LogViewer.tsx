// A window of a log, never the whole file: the last or first N lines, or a
// page from line K, through the API's tail/head/offset+limit parameters, so
// a 100 MB log stays usable. `path` is the log endpoint (run log or step
// log) without a query; steps have stdout and stderr apart.
import { useState } from "preact/hooks";
import { get } from "../api";
import { usePoll } from "../hooks";

const PAGE = 500;

interface LogAnswer {
  content?: string;
  lineCount?: number;
  totalLines?: number;
  hasMore?: boolean;
  isEstimate?: boolean;
}

type Mode = { kind: "tail" } | { kind: "head" } | { kind: "page"; offset: number };

export function LogViewer({ path, title, streams, live }: { path: string; title: string; streams: boolean; live: boolean }) {
  const [stream, setStream] = useState<"stdout" | "stderr">("stdout");
  const [mode, setMode] = useState<Mode>({ kind: "tail" });
  const query = () => {
    const q = new URLSearchParams();
    if (streams) q.set("stream", stream);
    if (mode.kind === "tail") q.set("tail", String(PAGE));
    else if (mode.kind === "head") q.set("head", String(PAGE));
    else {
      q.set("offset", String(mode.offset));
      q.set("limit", String(PAGE));
    }
    return q.toString();
  };
  const log = usePoll<LogAnswer>(
    () => get<LogAnswer>(path + "?" + query()).catch((e) => ({ content: "(" + e.message + ")" })),
    [path, stream, JSON.stringify(mode)],
    live && mode.kind === "tail" ? undefined : 0,
  );
  const d = log.data;
  const total = d?.totalLines ?? 0;
  const count = d?.lineCount ?? 0;
  // The first line shown (1-based), for the position text and paging.
  const first = mode.kind === "head" ? 1 : mode.kind === "page" ? mode.offset : Math.max(1, total - count + 1);
  const last = count ? first + count - 1 : first - 1;
  const go = (offset: number) => setMode({ kind: "page", offset: Math.max(1, offset) });
  return (
    <div class="panel log-panel">
      <div class="page-head">
        <h2>{title}</h2>
        <span class="spacer" />
        {streams && (
          <span class="seg-tabs">
            <button data-stream="stdout" class={stream === "stdout" ? "on" : ""} onClick={() => setStream("stdout")}>stdout</button>
            <button data-stream="stderr" class={stream === "stderr" ? "on" : ""} onClick={() => setStream("stderr")}>stderr</button>
          </span>
        )}
        <span class="seg-tabs log-paging">
          <button data-log="head" class={mode.kind === "head" ? "on" : ""} onClick={() => setMode({ kind: "head" })}>Head</button>
          <button data-log="prev" disabled={first <= 1} onClick={() => go(first - PAGE)}>‹ Prev</button>
          <button data-log="next" disabled={last >= total} onClick={() => go(last + 1)}>Next ›</button>
          <button data-log="tail" class={mode.kind === "tail" ? "on" : ""} onClick={() => setMode({ kind: "tail" })}>Tail</button>
        </span>
      </div>
      <div class="muted log-pos">
        {d ? (total ? `lines ${first}–${last} of ${total}${d.isEstimate ? " (counted from the last 16 MiB)" : ""}` : "empty") : "loading…"}
        {mode.kind === "tail" && live ? " · following" : ""}
      </div>
      <pre class="log" id="log">{d ? d.content || "(empty)" : ""}</pre>
    </div>
  );
}
