// Page loads in headless Chromium, side by side: our web UI and Dagu 1.30.2's
// own UI, each served by its own `dagu server` on the same DAGU_HOME (made by
// bench/scale/scale_gen.cc: 10,000 DAGs, 1,000,000 runs). docs/benchmarks.md,
// "UI page loads at scale".
//
// For each page kind, the time from the navigation's start to the page being
// usable, on the browser's own clock (a MutationObserver in the page notes the
// first change after which the ready condition holds):
//   dag_list   the DAG list shows its first page       (a row naming dag-00000)
//   runs_list  the runs list of the newest run's day    (a row naming one of that day's runs
//              shows runs                               either server lists for it)
//   dag_page   a DAG's page draws its graph             (an SVG node naming the step "work")
// Each load is in a fresh browser context (no cache: a first visit); the two
// servers alternate load by load, so the machine's load hits both alike.
// The same condition is checked on both UIs (text in the page, not a
// selector of ours), so neither is favoured by what counts as "usable".
//
// usage: node bench/ui_load_bench.js --home /tmp/scale_home --ours build/default/bin/dagu
//          --peer /work/peer/package/bin/dagu --node-modules <dir with playwright-core>
//          [--rounds 5] [--out bench/results/x.md]
"use strict";
const fs = require("fs");
const net = require("net");
const path = require("path");
const { spawn } = require("child_process");

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
for (const k of ["home", "ours", "node-modules"]) if (!args[k]) { console.error("missing --" + k); process.exit(2); }
const rounds = Number(args.rounds || 5);
const { chromium } = require(path.join(path.resolve(args["node-modules"]), "playwright-core"));
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
    s.on("error", reject);
  });
}

async function startServer(label, binary) {
  const port = await freePort();
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("DAGU_")) env[k] = v;
  Object.assign(env, { DAGU_HOME: path.resolve(args.home), DAGU_TZ: "UTC" });
  const child = spawn(binary, ["server", "--host", "127.0.0.1", "--port", String(port)],
    { env, stdio: "ignore", detached: true });
  const deadline = Date.now() + 180000;
  for (;;) {
    try { if ((await fetch("http://127.0.0.1:" + port + "/api/v2/health")).ok) break; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(label + " not ready");
    await sleep(200);
  }
  return { label, port, child, times: {} };
}

// The page paths and what makes them usable.
const KINDS = {
  dag_list: { ours: "/#/dags", peer: "/dags", ready: () => [...document.querySelectorAll("a, td, span, div")].some((e) => e.childElementCount === 0 && e.textContent.trim() === "dag-00000") },
  // The day of the newest run (today, or the last day of a home made before
  // today), chosen in main(): both UIs take it from the URL.
  runs_list: { ours: "/#/runs", peer: "/dag-runs", ready: (ids) => { const t = document.body.innerText; return ids.some((id) => t.includes(id)); } },
  dag_page: { ours: "/#/dags/dag-00001", peer: "/dags/dag-00001", ready: () => [...document.querySelectorAll("svg")].some((s) => /\bwork\b/.test(s.textContent || "")) },
};

async function load(browser, server, kind, arg) {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await ctx.newPage();
  const url = "http://127.0.0.1:" + server.port + (server.label === "ours" ? KINDS[kind].ours : KINDS[kind].peer);
  // The page itself notes, on the browser's clock (performance.now(): from
  // the navigation's start), the first DOM change after which the page is
  // usable; polling from outside would add its own delay (a headless page
  // draws frames late, and each check is a round trip to the browser).
  await page.addInitScript(([ready, arg]) => {
    const check = new Function("arg", "return (" + ready + ")(arg);");
    const seen = () => {
      if (window.__readyAt === undefined && document.body && check(arg)) window.__readyAt = performance.now();
    };
    new MutationObserver(seen).observe(document, { childList: true, subtree: true, characterData: true });
  }, [KINDS[kind].ready.toString(), arg]);
  let ms = null;
  try {
    await page.goto(url, { waitUntil: "commit", timeout: 120000 });
    await page.waitForFunction(() => window.__readyAt !== undefined, null, { timeout: 120000, polling: 50 });
    ms = Math.round(await page.evaluate(() => window.__readyAt));
  } catch (e) {
    console.error(server.label + " " + kind + ": " + e.message.split("\n")[0]);
  }
  await ctx.close();
  return ms;
}

function stats(xs) {
  const ok = xs.filter((x) => x !== null).sort((a, b) => a - b);
  if (!ok.length) return { n: 0 };
  return { n: ok.length, failed: xs.length - ok.length, min: ok[0], p50: ok[Math.floor((ok.length - 1) / 2)], max: ok[ok.length - 1] };
}

async function main() {
  const servers = [await startServer("ours", path.resolve(args.ours))];
  if (args.peer) servers.push(await startServer("dagu-1.30.2", path.resolve(args.peer)));
  // The newest run's UTC day (the home may end before today), and the runs
  // either server lists for it (1.30.2's list of a day holds runs of only
  // some DAG folders: docs/web.md).
  const week = Math.floor(Date.now() / 86400000) * 86400 - 7 * 86400;
  const recent = await (await fetch("http://127.0.0.1:" + servers[0].port + "/api/v2/dag-runs?limit=1&fromDate=" + week)).json();
  const newest = (recent.dagRuns || [])[0];
  const day = Math.floor(Date.parse(newest ? newest.startedAt || newest.queuedAt : new Date().toISOString()) / 86400000) * 86400;
  const iso = new Date(day * 1000).toISOString().slice(0, 10);
  KINDS.runs_list.ours = "/#/runs?days=custom&from=" + iso + "&to=" + iso;
  KINDS.runs_list.peer = "/dag-runs?fromDate=" + day + "&toDate=" + (day + 86399) + "&dateMode=custom";
  const ids = [];
  for (const s of servers) {
    const list = await (await fetch("http://127.0.0.1:" + s.port + "/api/v2/dag-runs?fromDate=" + day + "&toDate=" + (day + 86399))).json();
    for (const r of list.dagRuns || []) ids.push(r.dagRunId);
  }
  console.log("runs_list: day " + iso + ", " + ids.length + " run IDs to look for");
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: CHROMIUM_FLAGS });
  try {
    for (const s of servers) for (const k of Object.keys(KINDS)) s.times[k] = [];
    // One warm-up load each (the servers' first requests fill their caches, as in use).
    for (const s of servers) for (const k of Object.keys(KINDS)) await load(browser, s, k, ids);
    for (let r = 0; r < rounds; r++) {
      for (const k of Object.keys(KINDS)) {
        for (const s of servers) {
          const ms = await load(browser, s, k, ids);
          s.times[k].push(ms);
          console.log(s.label + " " + k + " " + (ms === null ? "failed" : ms + " ms"));
        }
      }
    }
  } finally {
    await browser.close();
    for (const s of servers) try { process.kill(-s.child.pid, "SIGTERM"); } catch { /* gone */ }
  }
  const lines = ["| page | " + servers.map((s) => s.label + " p50 (min–max) ms").join(" | ") + " |",
    "| --- | " + servers.map(() => "---").join(" | ") + " |"];
  for (const k of Object.keys(KINDS)) {
    lines.push("| " + k + " | " + servers.map((s) => {
      const st = stats(s.times[k]);
      return st.n ? st.p50 + " (" + st.min + "–" + st.max + ")" + (st.failed ? ", " + st.failed + " failed" : "") : "failed";
    }).join(" | ") + " |");
  }
  const text = "UI page loads, " + rounds + " rounds, home " + args.home + "\n\n" + lines.join("\n") + "\n";
  console.log(text);
  if (args.out) fs.writeFileSync(args.out, text);
}

main().catch((e) => { console.error(e); process.exit(1); });
