// Live updates: one stream of GET /api/v2/events per page (server-sent
// events, our extension: docs/web.md "Live updates"). It is read with
// fetch() rather than EventSource so that the Bearer token of builtin auth
// goes with it. Pages subscribe through usePoll (hooks.ts): while the stream
// is live they reload when an event concerns them and otherwise only every
// LIVE_SAFETY_MS; when it fails (or the server says it cannot see every
// change: {"live":false}) they poll as before, and it is tried again later.
import { getToken } from "./api";
import { config } from "./config";

export interface LiveEvent {
  kind: "run" | "dag" | "queue";
  dag?: string;
  runId?: string;
  queue?: string;
}

export const LIVE_SAFETY_MS = 60000;

type Listener = (ev: LiveEvent) => void;
const listeners = new Set<Listener>();
const stateListeners = new Set<(live: boolean) => void>();
let live = false;
let started = false;
let retryMs = 3000;

export function isLive(): boolean {
  return live;
}

function setLive(v: boolean) {
  if (v === live) return;
  live = v;
  document.documentElement.dataset.live = v ? "on" : "off";
  stateListeners.forEach((fn) => fn(v));
}

// Calls `fn` for each event; returns the unsubscribe function. The stream
// opens with the first subscriber and stays open for the page's life.
export function subscribe(fn: Listener): () => void {
  listeners.add(fn);
  if (!started) {
    started = true;
    void connect();
  }
  return () => listeners.delete(fn);
}

export function onLiveChange(fn: (live: boolean) => void): () => void {
  stateListeners.add(fn);
  return () => stateListeners.delete(fn);
}

function dispatch(event: string, data: string) {
  let parsed: any;
  try {
    parsed = JSON.parse(data);
  } catch {
    return;
  }
  if (event === "hello") {
    setLive(parsed.live === true);
    retryMs = 3000;
    return;
  }
  if (event === "run" || event === "dag" || event === "queue") listeners.forEach((fn) => fn(parsed as LiveEvent));
}

async function connect() {
  const headers: Record<string, string> = { Accept: "text/event-stream" };
  const token = getToken();
  if (token) headers.Authorization = "Bearer " + token;
  try {
    const res = await fetch(config.apiURL + "/events", { headers, credentials: "same-origin", cache: "no-store" });
    if (!res.ok || !res.body) throw new Error("HTTP " + res.status);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      // Events end with a blank line; a line is "field: value".
      let end: number;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) dispatch(event, data.join("\n"));
      }
    }
  } catch {
    /* the stream failed: pages poll until it is back */
  }
  setLive(false);
  window.setTimeout(() => void connect(), retryMs);
  retryMs = Math.min(retryMs * 2, 30000);
}
