// Dagu 1.30.2's own web UI on our REST API (issue 28), in headless Chromium
// (Debian's /usr/bin/chromium driven by playwright-core; no browser download).
//
// The fixture home of the API differential suite (tests/compat/api/fixture:
// its DAGs and the `cli:` seed runs of seed.yaml, each copy seeded by its own
// binary) is copied twice. `dagu start-all` of Dagu 1.30.2 runs on one copy
// and serves its UI and API ("theirs"); ours runs on the other. A small
// reverse proxy (below) serves 1.30.2's UI with every /api/* request sent to
// ours ("ours"). Every page of 1.30.2's UI is opened both ways, side by side;
// per page the console errors, uncaught page errors, failed /api requests
// (status >= 400 or no answer), the visible text and some element counts are
// recorded and compared.
//
// The test fails on a console error, page error or failed /api request seen
// through ours that 1.30.2 itself does not show on the same page, and on a
// page whose element counts differ. Text differences are printed. Pages of
// operations owned by the auth issue (users, API keys, webhooks) are visited
// and reported, never failed (AUTH_OWNED).
//
// usage: node dagu_ui_proxy_e2e.js <our dagu> <node_modules dir> <output dir>
// env:   DAGU_PEER_BINARY   Dagu 1.30.2 (else bench/fetch_peer.sh fetches it;
//                           exit 77, skipped, when it cannot be had)
//        DAGU_UI_SHOTS=1    a screenshot of each page, each way, in the output dir
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const http = require("http");
const { spawn, spawnSync } = require("child_process");

if (process.argv.length < 5) {
  console.error("usage: node dagu_ui_proxy_e2e.js <our dagu> <node_modules dir> <output dir>");
  process.exit(2);
}
const [oursBinary, nodeModules, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
const peerBinary = (() => {
  const r = spawnSync("bash", [path.join(__dirname, "..", "..", "bench", "fetch_peer.sh")], { encoding: "utf8" });
  const last = (r.stdout || "").trim().split("\n").pop();
  if (r.status !== 0 || !last || !fs.existsSync(last)) {
    console.log("SKIP Dagu 1.30.2 cannot be had: " + (r.stdout || "") + (r.stderr || ""));
    process.exit(77);
  }
  return last;
})();
const { chromium } = require(path.join(nodeModules, "playwright-core"));

const FIXTURE = path.join(__dirname, "..", "compat", "api", "fixture");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const VIEWPORT = { width: 1366, height: 900 };
const SETTLE_MS = Number(process.env.DAGU_UI_SETTLE_MS || 1500);  // a page polls every second
// Pages of operations the auth issue builds (users, API keys, webhooks):
// reported, not failed.
const AUTH_OWNED = /^\/(users|api-keys|webhooks)\b|\/webhook(\?|$)|\/api\/v2\/(users|api-keys|auth|webhooks)|\/webhook\b/;

let passed = 0, failed = 0;
const T0 = Date.now();
const stamp = (what) => console.log("     [" + ((Date.now() - T0) / 1000).toFixed(1) + " s] " + what);
const procs = [];
function check(ok, what) {
  if (ok) { passed++; console.log("ok   " + what); } else { failed++; console.log("FAIL " + what); }
  return ok;
}
const { sleep, pollUntil, freePort } = require("./e2e_support");
async function getJson(port, target) {
  const res = await fetch("http://127.0.0.1:" + port + target);
  if (!res.ok) throw new Error(target + " -> HTTP " + res.status);
  return res.json();
}

// ---- the two homes ----

// The `cli:` entries of seed.yaml: flow sequences such as `- [start, chain]`.
function seedCommands() {
  const text = fs.readFileSync(path.join(FIXTURE, "seed.yaml"), "utf8");
  const cli = text.split(/^http:/m)[0].split(/^cli:/m)[1] || "";
  return cli.split("\n").map((l) => l.match(/^\s*-\s*\[(.*)\]\s*$/)).filter(Boolean)
    .map((m) => m[1].split(",").map((s) => s.trim()));
}
function sideEnv(side) {
  const env = Object.assign({}, process.env, { DAGU_HOME: side.home, HOME: side.user, TZ: "UTC", SHELL: "/bin/sh" });
  for (const k of ["DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
    "DAGU_QUEUE_ENABLED", "DAGU_BASICAUTH_USERNAME", "DAGU_BASICAUTH_PASSWORD", "DAGU_AUTHTOKEN", "DAGU_AUTH_MODE",
    "DAGU_CERT_FILE", "DAGU_KEY_FILE", "DAGU_BASE_PATH", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "DAGU_LOG_DIR"]) delete env[k];
  return env;
}
function run(side, args, logName) {
  return new Promise((resolve) => {
    const log = fs.openSync(path.join(outDir, logName), "w");
    const c = spawn(side.binary, args, { env: sideEnv(side), cwd: side.home, stdio: ["ignore", log, log] });
    c.on("exit", (code) => { fs.closeSync(log); resolve(code); });
  });
}
async function startAll(side) {
  side.port = await freePort();
  const args = ["start-all", "--host", "127.0.0.1", "--port", String(side.port)];
  if (side.name === "theirs") args.push("--coordinator.port", String(await freePort()));
  const env = Object.assign(sideEnv(side), { DAGU_SCHEDULER_PORT: String(await freePort()) });
  const log = fs.openSync(path.join(outDir, "server-" + side.name + ".log"), "w");
  const child = spawn(side.binary, args, { env, cwd: side.home, stdio: ["ignore", log, log] });
  const p = { name: side.name, child, exited: null };
  child.on("exit", (code, sig) => { p.exited = code !== null ? code : 128 + (os.constants.signals[sig] || 0); });
  procs.push(p);
  await pollUntil(async () => (await fetch("http://127.0.0.1:" + side.port + "/api/v2/health")).ok, 30000,
    side.name + " start-all");
}
async function stopAll() {
  for (const p of procs) if (p.exited === null) p.child.kill("SIGTERM");
  const deadline = Date.now() + 15000;
  while (procs.some((p) => p.exited === null) && Date.now() < deadline) await sleep(100);
  for (const p of procs) if (p.exited === null) p.child.kill("SIGKILL");
}

// ---- the proxy: /api/* to ours, everything else to 1.30.2 ----

function startProxy(uiPort, apiPort) {
  const server = http.createServer((req, res) => {
    const port = req.url.startsWith("/api/") ? apiPort : uiPort;
    const up = http.request({ host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
      (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
    up.on("error", (e) => { res.writeHead(502, { "Content-Type": "text/plain" }); res.end("proxy: " + e.message); });
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// ---- one page, one way ----

// Run IDs, times, durations and numbers out of the visible text, so that the
// two homes' pages compare.
function normaliseIds(s, ids) {
  for (const [id, tag] of ids) s = s.split(id).join(tag);
  return s.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>")
    .replace(/\b(fromDate|toDate)=\d+/g, "$1=<time>");
}
function normaliseText(s, ids) {
  return normaliseIds(s, ids)
    .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?/g, "<time>")
    .replace(/\b\d{1,2}:\d\d(:\d\d)?( ?[AP]M)?\b/g, "<clock>")
    .replace(/attempt-id=("[^"]*"|\S+)/g, "attempt-id=<id>")  // the run log's own text (1.30.2 writes "")
    .replace(/\b(\d+(\.\d+)?\s?(ms|s|m|h|d|sec|secs|seconds?|minutes?|hours?|days?)\s*)+\b/g, "<duration>")
    .replace(/\d+(\.\d+)?\s?(%|B|KB|MB|GB|KiB|MiB|GiB)\b/g, "<n$2>")
    .replace(/\d+/g, "<n>");
}

const COUNTED = {
  "table rows": "tr",
  "buttons": "button",
  "links": "a[href]",
  "graph nodes": "svg g.node",
  "headings": "h1, h2, h3",
  "inputs": "input, select, textarea",
};

// One tab per side: 1.30.2's bundle (7 MB, a development build of React) is
// loaded once, then each page is reached by the UI's own router
// (history.pushState and a popstate event), as a click on a link does.
async function openUi(context, base, ids) {
  const p = await context.newPage();
  const tab = { p, base, ids, seen: null };
  const reset = () => { tab.seen = { console: [], apiFailures: [], api: new Set(), inFlight: 0, last: Date.now() }; };
  reset();
  tab.reset = reset;
  const apiPath = (u) => { const url = new URL(u); return url.pathname + url.search; };
  const isApi = (u) => new URL(u).pathname.startsWith("/api/");
  p.on("console", (m) => { if (m.type() === "error") tab.seen.console.push(m.text() + locationOf(m)); });
  p.on("pageerror", (e) => tab.seen.console.push("page error: " + e.message));
  p.on("request", (r) => { if (isApi(r.url())) { tab.seen.inFlight++; tab.seen.last = Date.now(); } });
  const done = (r) => { if (isApi(r.url())) { tab.seen.inFlight--; tab.seen.last = Date.now(); } };
  p.on("requestfinished", done);
  p.on("response", (r) => {
    if (!isApi(r.url())) return;
    const what = r.request().method() + " " + apiPath(r.url());
    tab.seen.api.add(what);
    if (r.status() >= 400) tab.seen.apiFailures.push(what + " => " + r.status());
  });
  p.on("requestfailed", (r) => {
    if (!isApi(r.url())) return;
    done(r);
    tab.seen.apiFailures.push(r.method() + " " + apiPath(r.url()) + " => " + (r.failure() || {}).errorText);
  });
  await p.goto(base + "/", { waitUntil: "domcontentloaded", timeout: 120000 });
  await p.waitForFunction(() => document.body.innerText.includes("Dashboard"), null, { timeout: 120000 });
  return tab;
}
function locationOf(m) {
  const l = m.location();
  return l && l.url ? " [" + new URL(l.url).pathname + "]" : "";
}

async function visit(tab, page) {
  const target = page.path;
  await tab.p.evaluate(() => window.scrollTo(0, 0));
  if (!page.first) tab.reset();  // the first page keeps what the initial load showed
  await tab.p.evaluate((to) => {
    window.history.pushState({}, "", to);
    window.dispatchEvent(new PopStateEvent("popstate", { state: {} }));
  }, target);
  let shown = await settle(tab);
  if (page.action) {
    try { await page.action(tab.p); } catch (e) { tab.seen.console.push("action failed: " + e.message.split("\n")[0]); }
    shown = await settle(tab);
  }
  if (process.env.DAGU_UI_SHOTS) await tab.p.screenshot({ path: path.join(outDir, page.name + "-" + tab.ids.side + ".png") });
  const norm = (l) => normaliseIds(l, tab.ids.map);
  const seen = tab.seen;
  // A failure keeps its status: "GET <path> => 404".
  const normFailure = (f) => { const i = f.lastIndexOf(" => "); return norm(f.slice(0, i)) + f.slice(i); };
  return { console: seen.console.map(norm), apiFailures: seen.apiFailures.map(normFailure), api: [...seen.api].map(norm).sort(),
    lines: shown.lines, counts: shown.counts };
}

// Waits until the page has settled: no /api request is in flight or ended in
// the last 300 ms, and what it shows (normalised) is the same in two samples
// 500 ms apart; at least SETTLE_MS, at most SETTLE_MS + 15 s. Returns what
// it shows.
async function settle(tab) {
  const t0 = Date.now();
  await sleep(SETTLE_MS);
  let shown = await snapshot(tab), previous = null;
  while (Date.now() - t0 < SETTLE_MS + 15000) {
    const quiet = tab.seen.inFlight <= 0 && Date.now() - tab.seen.last >= 300;
    if (quiet && previous !== null && JSON.stringify(previous) === JSON.stringify(shown)) break;
    await sleep(500);
    previous = shown;
    shown = await snapshot(tab);
  }
  return shown;
}

// Actions, as a user does them; each runs on both sides and must work on
// both (an action that fails is recorded as a console error, and fails the
// test when it fails only through ours).
const byIcon = (p, icon) => p.locator("main button:has(svg.lucide-" + icon + ")").first();
const dialogButton = (p, text) => p.locator('[role="dialog"] button', { hasText: text }).last();
const mainText = (p, re, ms) => p.waitForFunction((src) => new RegExp(src).test((document.querySelector("main") ||
  document.body).innerText), re.source, { timeout: ms || 20000 });
async function startThenStop(p) {
  await byIcon(p, "play").click({ timeout: 10000 });
  await dialogButton(p, "Start").click({ timeout: 10000 });
  await mainText(p, /\brunning\b/);
  await byIcon(p, "square").click({ timeout: 10000 });
  await dialogButton(p, "Stop").click({ timeout: 10000 });
  await p.waitForFunction(() => !/\brunning\b/.test((document.querySelector("main") || document.body).innerText), null,
    { timeout: 20000 });
}
// What the page shows: its visible text lines (normalised) and element counts.
async function snapshot(tab) {
  const { text, counts } = await tab.p.evaluate((counted) => {
    const c = {};
    for (const [k, sel] of Object.entries(counted)) c[k] = document.querySelectorAll(sel).length;
    return { text: (document.querySelector("main") || document.body).innerText, counts: c };
  }, COUNTED);
  const lines = text.split("\n").map((l) => normaliseText(l.trim(), tab.ids.map)).filter((l) => l !== "");
  return { lines, counts };
}

function minus(a, b) {
  const rest = b.slice();
  return a.filter((x) => { const i = rest.indexOf(x); if (i < 0) return true; rest.splice(i, 1); return false; });
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dagu-ui-proxy-"));
  const sides = [
    { name: "theirs", binary: peerBinary, home: path.join(tmp, "theirs"), user: path.join(tmp, "theirs-user") },
    { name: "ours", binary: oursBinary, home: path.join(tmp, "ours"), user: path.join(tmp, "ours-user") },
  ];
  for (const s of sides) {
    fs.mkdirSync(s.user, { recursive: true });
    fs.cpSync(path.join(FIXTURE, "dags"), path.join(s.home, "dags"), { recursive: true });
  }
  const seeds = seedCommands();
  await Promise.all(sides.map(async (s) => {
    let n = 0;
    for (const args of seeds) {
      const code = await run(s, args, "seed-" + s.name + "-" + (++n) + ".log");
      if (code !== 0 && !(args[0] === "start" && args[1] === "failing"))
        throw new Error(s.name + ": seed `dagu " + args.join(" ") + "` exited " + code);
    }
  }));
  stamp("seeded");
  await Promise.all(sides.map(startAll));
  stamp("servers up");
  for (const s of sides) {
    const r = await fetch("http://127.0.0.1:" + s.port + "/api/v2/dags/suspended/suspend",
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ suspend: true }) });
    if (!r.ok) throw new Error(s.name + ": suspend seed answered " + r.status);
  }
  const theirs = sides[0], ours = sides[1];
  const proxy = await startProxy(theirs.port, ours.port);
  ours.base = "http://127.0.0.1:" + proxy.address().port;
  theirs.base = "http://127.0.0.1:" + theirs.port;

  // The run IDs each side's pages show: the newest run of chain, failing,
  // parent and its sub-run.
  for (const s of sides) {
    const id = async (dag) => (await getJson(s.port, "/api/v2/dags/" + dag + "/dag-runs")).dagRuns[0].dagRunId;
    s.runs = { chain: await id("chain"), failing: await id("failing"), parent: await id("parent") };
    const d = (await getJson(s.port, "/api/v2/dag-runs/parent/" + s.runs.parent)).dagRunDetails;
    const call = d.nodes.find((n) => n.subRuns && n.subRuns.length);
    s.runs.sub = call ? call.subRuns[0].dagRunId : "none";
    s.ids = { side: s.name, map: Object.entries(s.runs).map(([k, v]) => [v, "<run:" + k + ">"]) };
  }
  const P = (s) => [
    { name: "dashboard", path: "/", first: true },
    { name: "dags", path: "/dags" },
    { name: "dags-search-tag", path: "/dags?tags=alpha" },
    { name: "dag-chain-status", path: "/dags/chain" },
    { name: "dag-chain-spec", path: "/dags/chain/spec" },
    { name: "dag-chain-history", path: "/dags/chain/history" },
    { name: "dag-chain-run", path: "/dags/chain?dagRunId=" + s.runs.chain },
    { name: "dag-chain-run-log", path: "/dags/chain/dagRun-log?dagRunId=" + s.runs.chain },
    { name: "dag-chain-step-log", path: "/dags/chain/log?dagRunId=" + s.runs.chain + "&step=second" },
    { name: "dag-failing-status", path: "/dags/failing" },
    { name: "dag-failing-history", path: "/dags/failing/history" },
    { name: "dag-invalid-status", path: "/dags/invalid", known: "our loader leaves a depends on a missing step out of the steps it shows (docs/web.md)" },
    { name: "dag-invalid-spec", path: "/dags/invalid/spec", known: "our loader leaves a depends on a missing step out of the steps it shows (docs/web.md)" },
    { name: "dag-params-status", path: "/dags/params_named" },
    { name: "dag-suspended-status", path: "/dags/suspended" },
    { name: "dag-never-run", path: "/dags/tagged" },
    { name: "dag-parent-status", path: "/dags/parent" },
    { name: "dag-parent-sub-run", path: "/dags/parent?subDAGRunId=" + s.runs.sub + "&dagRunId=" + s.runs.parent +
      "&dagRunName=parent" },
    { name: "dag-runs", path: "/dag-runs" },
    { name: "dag-run-chain", path: "/dag-runs/chain/" + s.runs.chain },
    { name: "dag-run-failing", path: "/dag-runs/failing/" + s.runs.failing },
    { name: "dag-run-parent", path: "/dag-runs/parent/" + s.runs.parent },
    { name: "dag-run-sub", path: "/dag-runs/parent/" + s.runs.parent + "?subDAGRunId=" + s.runs.sub +
      "&dagRunId=" + s.runs.parent + "&dagRunName=parent" },
    { name: "search", path: "/search?q=echo" },
    { name: "queues", path: "/queues" },
    { name: "action-start-stop", path: "/dags/sleeper", action: startThenStop },
    { name: "users", path: "/users" },
    { name: "api-keys", path: "/api-keys" },
    { name: "webhooks", path: "/webhooks" },
    { name: "dag-chain-webhook", path: "/dags/chain/webhook" },
  ];

  // playwright gives each launch a fresh, empty user data directory.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  const tabs = {};
  await Promise.all(sides.map(async (s) => {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: "UTC" });
    tabs[s.name] = await openUi(context, s.base, s.ids);
  }));
  stamp("UI loaded");
  const report = [];
  const pagesTheirs = P(theirs), pagesOurs = P(ours);
  for (let i = 0; i < pagesTheirs.length; i++) {
    const [t, o] = await Promise.all([visit(tabs.theirs, pagesTheirs[i]), visit(tabs.ours, pagesOurs[i])]);
    const name = pagesTheirs[i].name, authOwned = AUTH_OWNED.test(pagesTheirs[i].path);
    const known = pagesTheirs[i].known;
    const newConsole = minus(o.console, t.console), newFailures = minus(o.apiFailures, t.apiFailures);
    const countDiffs = Object.keys(COUNTED).filter((k) => o.counts[k] !== t.counts[k])
      .map((k) => k + " " + o.counts[k] + " (1.30.2: " + t.counts[k] + ")");
    const onlyOurs = minus(o.lines, t.lines), onlyTheirs = minus(t.lines, o.lines);
    const entry = { name, path: pagesTheirs[i].path, authOwned, newConsole, newFailures, countDiffs, onlyOurs,
      onlyTheirs, apiOurs: minus(o.api, t.api), apiTheirs: minus(t.api, o.api), theirs: t, ours: o };
    report.push(entry);
    const same = !newConsole.length && !newFailures.length && !countDiffs.length;
    const label = "page " + name + " (" + pagesTheirs[i].path.replace(/[?].*/, "") + ")";
    const detail = [
      newConsole.length ? "console errors only through ours: " + JSON.stringify(newConsole) : "",
      newFailures.length ? "failed /api requests only through ours: " + JSON.stringify(newFailures) : "",
      countDiffs.length ? "element counts differ: " + countDiffs.join(", ") : "",
    ].filter(Boolean).join("; ");
    if (pagesTheirs[i].action) {
      const broken = t.console.filter((c) => c.startsWith("action failed"));
      check(!broken.length, label + ": the action works on 1.30.2 itself" + (broken.length ? ": " + broken.join("; ") : ""));
    }
    if (authOwned) console.log((same ? "ok   " : "AUTH ") + label + (same ? "" : ": " + detail + " (auth issue)"));
    else if (known && !newConsole.length && !newFailures.length)
      console.log((same ? "ok   " : "KNOWN ") + label + (same ? "" : ": " + detail + " (" + known + ")"));
    else check(same, label + (same ? "" : ": " + detail));
    if (entry.apiOurs.length || entry.apiTheirs.length)
      console.log("     /api requests only through ours: " + JSON.stringify(entry.apiOurs) +
        "\n     /api requests only on 1.30.2: " + JSON.stringify(entry.apiTheirs));
    if (onlyOurs.length || onlyTheirs.length)
      console.log("     text only ours: " + JSON.stringify(onlyOurs.slice(0, 12)) +
        "\n     text only 1.30.2: " + JSON.stringify(onlyTheirs.slice(0, 12)));
  }
  fs.writeFileSync(path.join(outDir, "ui-proxy-report.json"), JSON.stringify(report, null, 1));
  const called = new Set();
  for (const e of report) for (const a of e.ours.api) called.add(a.replace(/\?.*/, ""));
  console.log("     the UI called through ours: " + [...called].sort().join(", "));
  await browser.close();
  proxy.close();
}

main().catch((e) => { failed++; console.log("FAIL " + (e && e.stack ? e.stack : e)); })
  .then(stopAll)
  .then(() => {
    console.log(passed + " passed, " + failed + " failed");
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  });
