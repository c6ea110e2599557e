// Time, duration and status helpers shared by every page.
export function parseTime(s: string | null | undefined): Date | null {
  if (!s || s === "-") return null;
  const t = Date.parse(s);
  return isNaN(t) ? null : new Date(t);
}

const pad = (n: number) => (n < 10 ? "0" + n : "" + n);

// The zone times are shown in: "" = the viewer's, else an IANA name ("UTC",
// the server's configured tz). Chosen in the top bar, kept in localStorage.
const ZONE_KEY = "dagu.timeZone";
let zone = "";
try {
  zone = localStorage.getItem(ZONE_KEY) || "";
} catch {
  zone = "";
}
let zoneFormat: Intl.DateTimeFormat | null = null;

export function timeZone(): string {
  return zone;
}
export function setTimeZone(z: string) {
  zone = z;
  zoneFormat = null;
  try {
    if (z) localStorage.setItem(ZONE_KEY, z);
    else localStorage.removeItem(ZONE_KEY);
  } catch {
    /* storage disabled */
  }
}

export function fmtTime(s: string | Date | null | undefined): string {
  const d = s instanceof Date ? s : parseTime(s);
  if (!d) return "–";
  if (zone) {
    try {
      // sv-SE writes "2026-12-05 18:19:22".
      zoneFormat ??= new Intl.DateTimeFormat("sv-SE", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
        hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
      return zoneFormat.format(d);
    } catch {
      zone = "";
    }
  }
  return (
    d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
    pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds())
  );
}

export function fmtDuration(sec: number | null | undefined): string {
  if (sec === null || sec === undefined || isNaN(sec)) return "–";
  if (sec < 0) sec = 0;
  if (sec < 10) return Math.round(sec * 10) / 10 + "s";
  if (sec < 60) return Math.round(sec) + "s";
  const m = Math.floor(sec / 60), s = Math.round(sec % 60);
  if (m < 60) return m + "m " + s + "s";
  const h = Math.floor(m / 60);
  if (h < 48) return h + "h " + (m % 60) + "m";
  return Math.floor(h / 24) + "d " + (h % 24) + "h";
}

// A run's or step's duration to the millisecond: "0.352s", "20.000s",
// "1m 2.005s", "3h 4m 5.000s", "2d 1h 0m 0.000s". Dagu's records keep whole
// seconds (RFC3339), so their spans end in ".000"; sub-second times (a
// queuedAt) keep their milliseconds.
export function fmtDurationMs(sec: number | null | undefined): string {
  if (sec === null || sec === undefined || isNaN(sec)) return "–";
  let ms = Math.max(0, Math.round(sec * 1000));
  const d = Math.floor(ms / 86400000);
  ms -= d * 86400000;
  const h = Math.floor(ms / 3600000);
  ms -= h * 3600000;
  const m = Math.floor(ms / 60000);
  ms -= m * 60000;
  const s = Math.floor(ms / 1000) + "." + String(ms % 1000).padStart(3, "0") + "s";
  if (d) return d + "d " + h + "h " + m + "m " + s;
  if (h) return h + "h " + m + "m " + s;
  if (m) return m + "m " + s;
  return s;
}

export function ago(s: string | Date | null | undefined): string {
  const d = s instanceof Date ? s : parseTime(s);
  if (!d) return "–";
  return fmtDuration((Date.now() - d.getTime()) / 1000) + " ago";
}

export function spanSeconds(r: { startedAt?: string; finishedAt?: string }): number | null {
  const a = parseTime(r.startedAt), b = parseTime(r.finishedAt);
  if (!a) return null;
  return ((b ? b.getTime() : Date.now()) - a.getTime()) / 1000;
}

export function triggerLabel(t: string | undefined): string {
  const labels: Record<string, string> = {
    scheduler: "scheduled", catchup: "catch-up", manual: "manual", retry: "retry", webhook: "webhook", subdag: "sub-DAG",
  };
  return (t && labels[t]) || t || "–";
}

// Dagu's numeric run and node statuses (core.Status / core.NodeStatus).
export const RUN_STATUSES: [string, string][] = [
  ["1", "running"], ["5", "queued"], ["4", "succeeded"], ["2", "failed"], ["3", "aborted"],
  ["6", "partially succeeded"], ["7", "waiting"], ["8", "rejected"], ["0", "not started"],
];
export const NODE_STATUS_LABELS: Record<number, string> = {
  0: "not_started", 1: "running", 2: "failed", 3: "aborted", 4: "succeeded", 5: "skipped",
  6: "partially_succeeded", 7: "waiting", 8: "rejected",
};

// Local yyyy-mm-dd of a date, for <input type=date>.
export function isoDay(d: Date): string {
  return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
}
