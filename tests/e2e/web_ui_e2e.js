// End-to-end test of the dagu web UI in real headless Chromium (Debian's
// /usr/bin/chromium driven by playwright-core; no browser is downloaded).
//
// It starts `dagu start-all` A, B and C on one temporary DAGU_HOME (A
// active; A stops and B takes over; C stands by), opens the UI of B and
// checks every page: Instances (one active, one standby, with a screenshot check), DAGs
// (search, tag filter, suspend/resume, start through the params form), a DAG
// (the diamond's graph with 4 nodes and 4 edges colored by status, a click on
// a step shows its log, the spec in CodeMirror: a save round-trips to the
// file, a bad edit shows the loader's error in place and is not saved, the
// history grid), Runs (filters, the started run, its graph, steps and step
// logs with head/tail paging, retry from a step; a parent's sub-DAG runs
// with their status and a link to the child's page), live updates (a run
// page turns from running to succeeded without a reload), and Queue (with a
// queued run that says why it waits for a worker). A fifth
// instance with builtin auth under a base path shows the login form and,
// signed in, the DAG list. Any uncaught page error or console error fails
// the test.
//
// usage: node web_ui_e2e.js <dagu binary> <node_modules dir> <output dir>
// env:   DAGU_E2E_SCREENSHOT  where to copy the Instances screenshot too
//                             (docs/images/instances.png when updating it)
//        DAGU_E2E_SHOTS      a folder for a screenshot of each page (ui-*.png;
//                             docs/images when updating docs/web.md's pictures)
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const zlib = require("zlib");
const { spawn } = require("child_process");

const [daguBinary, nodeModules, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
if (process.argv.length < 5) {
  console.error("usage: node web_ui_e2e.js <dagu binary> <node_modules dir> <output dir>");
  process.exit(2);
}
const { chromium } = require(path.join(nodeModules, "playwright-core"));

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];
const VIEWPORT = { width: 1366, height: 768 };  // a laptop screen

let passed = 0, failed = 0;
const procs = [];

function check(ok, what) {
  if (ok) { passed++; console.log("ok   " + what); }
  else { failed++; console.log("FAIL " + what); }
  return ok;
}
const { sleep, pollUntil, freePort } = require("./e2e_support");
async function getJson(port, target) {
  const res = await fetch("http://127.0.0.1:" + port + target);
  if (!res.ok) throw new Error(target + " -> HTTP " + res.status);
  return res.json();
}

// Decodes an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium writes) into
// {width, height, channels, pixels}.
function decodePng(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG");
  let pos = 8, width = 0, height = 0, colorType = 0, depth = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos), type = buf.toString("ascii", pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4); depth = data[8]; colorType = data[9];
      if (data[12] !== 0) throw new Error("interlaced PNG");
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    pos += 12 + len;
  }
  if (depth !== 8 || (colorType !== 2 && colorType !== 6)) throw new Error("unsupported PNG " + depth + "/" + colorType);
  const channels = colorType === 6 ? 4 : 3, stride = width * channels;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const px = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? px[y * stride + x - channels] : 0;
      const b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? px[(y - 1) * stride + x - channels] : 0;
      let v = row[x];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c); v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      px[y * stride + x] = v & 0xff;
    }
  }
  return { width, height, channels, pixels: px };
}
// Pixels within `tol` of an RGB colour, inside an optional box.
function countColour(img, [r, g, b], tol, box) {
  const x0 = box ? Math.max(0, Math.floor(box.x)) : 0, y0 = box ? Math.max(0, Math.floor(box.y)) : 0;
  const x1 = box ? Math.min(img.width, Math.ceil(box.x + box.width)) : img.width;
  const y1 = box ? Math.min(img.height, Math.ceil(box.y + box.height)) : img.height;
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) {
    const i = (y * img.width + x) * img.channels;
    if (Math.abs(img.pixels[i] - r) <= tol && Math.abs(img.pixels[i + 1] - g) <= tol && Math.abs(img.pixels[i + 2] - b) <= tol) n++;
  }
  return n;
}

// A screenshot of the page as ui-<name>.png into DAGU_E2E_SHOTS, when set.
async function pageShot(page, name) {
  if (!process.env.DAGU_E2E_SHOTS) return;
  fs.mkdirSync(process.env.DAGU_E2E_SHOTS, { recursive: true });
  await sleep(300);
  await page.screenshot({ path: path.join(process.env.DAGU_E2E_SHOTS, "ui-" + name + ".png") });
}

async function startAll(name, home, extraEnv = {}, basePath = "") {
  const webPort = await freePort(), healthPort = await freePort();
  const env = Object.assign({}, process.env, {
    DAGU_HOME: home, HOME: path.join(home, "..", "user"),
    DAGU_SCHEDULER_PORT: String(healthPort),
    DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: "3s", DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: "1s",
    DAGU_PORT: "", DAGU_HOST: "", DAGU_BASICAUTH_USERNAME: "", DAGU_BASICAUTH_PASSWORD: "", DAGU_AUTHTOKEN: "",
  }, extraEnv);
  const log = fs.openSync(path.join(outDir, "e2e-" + name + ".log"), "w");
  const child = spawn(daguBinary, ["start-all", "--host", "127.0.0.1", "--port", String(webPort)],
    { env, stdio: ["ignore", log, log] });
  const p = { name, child, webPort, healthPort, exited: null };
  child.on("exit", (code, sig) => { p.exited = code !== null ? code : 128 + (os.constants.signals[sig] || 0); });
  procs.push(p);
  await pollUntil(async () => (await fetch("http://127.0.0.1:" + webPort + basePath + "/api/v2/health")).ok, 30000, name + " web server");
  return p;
}

async function stopAll() {
  for (const p of procs) if (p.exited === null) p.child.kill("SIGTERM");
  const deadline = Date.now() + 15000;
  while (procs.some((p) => p.exited === null) && Date.now() < deadline) await sleep(100);
  for (const p of procs) if (p.exited === null) p.child.kill("SIGKILL");
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dagu-e2e-"));
  const home = path.join(tmp, "home");
  fs.mkdirSync(path.join(home, "dags"), { recursive: true });
  fs.writeFileSync(path.join(home, "dags", "hello.yaml"),
    "description: Says hello every five minutes\nschedule: \"*/5 * * * *\"\ntags: [demo]\nsteps:\n" +
    "  - name: greet\n    run: echo hello from the e2e test\n  - name: done\n    run: echo done\n    depends: [greet]\n");
  fs.writeFileSync(path.join(home, "dags", "nightly-report.yaml"),
    "description: Builds the nightly report\nschedule: \"30 2 * * *\"\nsteps:\n  - name: build\n    run: echo report\n");
  fs.writeFileSync(path.join(home, "dags", "family.yaml"),
    "steps:\n  - name: ask\n    call: kid\n    params: WHO=e2e\n");
  fs.writeFileSync(path.join(home, "dags", "kid.yaml"),
    "params: WHO=nobody\nsteps:\n  - name: answer\n    command: echo kid says hi to ${WHO}\n");
  fs.writeFileSync(path.join(home, "dags", "gated.yaml"),
    "steps:\n  - name: before\n    command: echo before\n  - name: gate\n    type: hitl\n    config:\n" +
    "      prompt: ship it?\n      input: [REASON]\n      required: [REASON]\n  - name: after\n    command: echo \"after $REASON\"\n");
  fs.writeFileSync(path.join(home, "dags", "diamond.yaml"),
    "description: A diamond\ntype: graph\ntags: [shape]\nparams: \"NAME=world COUNT=3\"\nsteps:\n" +
    "  - name: a\n    command: echo a says ${NAME} ${COUNT}\n    output: GREETING\n" +
    "  - name: b\n    command: sh -c 'for i in $(seq 1 1200); do echo line $i; done'\n    depends: [a]\n" +
    "  - name: c\n    command: echo c\n    depends: [a]\n" +
    "  - name: d\n    command: echo d\n    depends: [b, c]\n");
  // A parent run with a child, for the run page's sub-DAG runs.
  await new Promise((resolve) => {
    const c = spawn(daguBinary, ["start", "-q", "--run-id=fam-1", "family"],
      { env: Object.assign({}, process.env, { DAGU_HOME: home, HOME: path.join(tmp, "user") }), stdio: "ignore" });
    c.on("exit", (code) => { check(code === 0, "a parent run with a sub-DAG call succeeded (exit " + code + ")"); resolve(); });
  });

  // A becomes active, B stands by; A stops cleanly and B takes over; C
  // stands by. The UI of B then shows one active (B), one standby (C) and
  // the history of the handover.
  const a = await startAll("a", home);
  await pollUntil(async () => (await getJson(a.webPort, "/api/v2/services/scheduler")).schedulers.some((s) => s.role === "active"), 30000, "an active scheduler");
  const b = await startAll("b", home);
  const roles = async (port) => (await getJson(port, "/api/v2/services/scheduler")).schedulers.map((s) => s.role + ":" + s.pid).join(",");
  await pollUntil(async () => (await roles(a.webPort)) === "active:" + a.child.pid + ",standby:" + b.child.pid, 30000, "A active, B standby");
  a.child.kill("SIGTERM");
  await pollUntil(async () => a.exited !== null, 15000, "A to stop");
  check(a.exited === 0, "A stopped cleanly on SIGTERM (exit " + a.exited + ")");
  await pollUntil(async () => (await roles(b.webPort)) === "active:" + b.child.pid, 30000, "B to take over");
  const c = await startAll("c", home);
  await pollUntil(async () => (await roles(b.webPort)) === "active:" + b.child.pid + ",standby:" + c.child.pid, 30000, "B active, C standby");

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  const page = await browser.newPage({ viewport: VIEWPORT });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
  // Chromium's console names no URL for a failed load: the answers >= 400, to say which.
  const failedLoads = [];
  page.on("response", (r) => { if (r.status() >= 400) failedLoads.push(r.status() + " " + r.url()); });
  const base = "http://127.0.0.1:" + b.webPort + "/";

  // ---- Instances ----
  await page.goto(base + "#/instances");
  await page.waitForSelector('#instances-table tr[data-role="standby"]', { timeout: 20000 });
  const activeRows = await page.locator('#instances-table tbody tr[data-role="active"]').count();
  const standbyRows = await page.locator('#instances-table tbody tr[data-role="standby"]').count();
  check(activeRows === 1, "Instances: one active instance row (" + activeRows + ")");
  check(standbyRows === 1, "Instances: one standby instance row (" + standbyRows + ")");
  const activeText = await page.locator('#instances-table tbody tr[data-role="active"]').innerText();
  check(activeText.includes(String(b.child.pid)), "Instances: the active row shows B's pid " + b.child.pid);
  const standbyText = await page.locator('#instances-table tbody tr[data-role="standby"]').innerText();
  check(standbyText.includes(String(c.child.pid)), "Instances: the standby row shows C's pid " + c.child.pid);
  check(/ago/.test(activeText), "Instances: the active row shows a last renewal age");
  const lanes = await page.locator(".timeline .lane").count();
  check(lanes === 3, "Instances: the role history has a lane per instance (" + lanes + ")");
  check((await page.locator(".timeline .seg").count()) >= 2, "Instances: the timeline shows A's and B's active periods");
  check((await page.locator(".events li").count()) >= 5, "Instances: the role changes are listed");
  const takeover = await page.locator(".events .takeover").first().innerText();
  check(/takeover \d/.test(takeover), "Instances: the handover shows its measured duration (" + takeover + ")");
  const lastTakeover = await page.locator(".cards .card").nth(3).innerText();
  check(!/–/.test(lastTakeover.split("\n")[1] || "–"), "Instances: the Last takeover card has a duration (" + lastTakeover.replace(/\n/g, " ") + ")");
  await sleep(500);  // let the page settle after its first refresh
  const shot = path.join(outDir, "instances.png");
  await page.screenshot({ path: shot });
  const img = decodePng(fs.readFileSync(shot));
  check(img.width === VIEWPORT.width && img.height === VIEWPORT.height, "screenshot is " + img.width + "x" + img.height);
  const activeBadge = await page.locator('#instances-table tbody tr[data-role="active"] .badge').boundingBox();
  const standbyBadge = await page.locator('#instances-table tbody tr[data-role="standby"] .badge').boundingBox();
  const green = countColour(img, [0xdc, 0xfc, 0xe7], 6, activeBadge);
  const grey = countColour(img, [0xe5, 0xe7, 0xeb], 6, standbyBadge);
  check(green > 50, "screenshot: the active badge is green (" + green + " px)");
  check(grey > 50, "screenshot: the standby badge is grey (" + grey + " px)");
  check(countColour(img, [0x11, 0x18, 0x27], 2, { x: 0, y: 0, width: VIEWPORT.width, height: 40 }) > 20000,
    "screenshot: the dark top bar is drawn");
  if (process.env.DAGU_E2E_SCREENSHOT) {
    fs.mkdirSync(path.dirname(process.env.DAGU_E2E_SCREENSHOT), { recursive: true });
    fs.copyFileSync(shot, process.env.DAGU_E2E_SCREENSHOT);
    console.log("wrote " + process.env.DAGU_E2E_SCREENSHOT);
  }

  // ---- DAGs ----
  await page.goto(base + "#/dags");
  await page.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 10000 });
  check((await page.locator("#dags-table tbody tr[data-dag]").count()) === 6, "DAGs: all six DAGs are listed");
  await pageShot(page, "dags");
  const helloRow = page.locator('#dags-table tr[data-dag="hello"]');
  const rowText = await helloRow.innerText();
  check(rowText.includes("*/5 * * * *"), "DAGs: hello shows its schedule");
  check(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(rowText), "DAGs: hello shows its next run time");
  await helloRow.locator('button[data-act="suspend"]').click();
  await page.waitForSelector('#dags-table tr[data-dag="hello"] button[data-act="resume"]', { timeout: 10000 });
  check(fs.existsSync(path.join(home, "suspend", "hello.suspend")), "DAGs: Suspend wrote the suspend flag");
  check(!(await page.locator('#dags-table tr[data-dag="hello"] input[data-act="toggle"]').isChecked()),
    "DAGs: the enabled switch of a suspended DAG is off");
  await page.locator('#dags-table tr[data-dag="hello"] .switch').click();
  await page.waitForSelector('#dags-table tr[data-dag="hello"] button[data-act="suspend"]', { timeout: 10000 });
  check(!fs.existsSync(path.join(home, "suspend", "hello.suspend")), "DAGs: the enabled switch resumed it (flag removed)");

  // Sort by name, then reversed.
  const firstDag = () => page.locator("#dags-table tbody tr[data-dag]").first().getAttribute("data-dag");
  check((await firstDag()) === "diamond", "DAGs: sorted by name, diamond comes first");
  await page.locator('#dags-table th[data-sort="name"]').click();
  // (the table is replaced by "Loading…" while the sorted page loads)
  await page.waitForFunction(() => (document.querySelector("#dags-table tbody tr[data-dag]") || { dataset: {} }).dataset.dag === "nightly-report",
    null, { timeout: 10000 });
  check(/order=desc/.test(page.url()), "DAGs: a second click on Name sorts descending (nightly-report first)");
  await page.goto(base + "#/dags");
  await page.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 10000 });

  // Search by name and filter by tag; both live in the URL.
  await page.fill("#dag-search", "diam");
  await page.press("#dag-search", "Enter");
  await page.waitForFunction(() => document.querySelectorAll("#dags-table tbody tr[data-dag]").length === 1, null, { timeout: 10000 });
  check((await page.locator("#dags-table tbody tr[data-dag]").getAttribute("data-dag")) === "diamond" && /q=diam/.test(page.url()),
    "DAGs: searching 'diam' lists only diamond (" + page.url().split("#")[1] + ")");
  await page.goto(base + "#/dags?tag=demo");
  await page.waitForFunction(() => document.querySelectorAll("#dags-table tbody tr[data-dag]").length === 1, null, { timeout: 10000 });
  check((await page.locator("#dags-table tbody tr[data-dag]").getAttribute("data-dag")) === "hello", "DAGs: the tag filter 'demo' lists only hello");
  check((await page.locator("#dag-tag").inputValue()) === "demo", "DAGs: the tag select shows the filter");

  await page.goto(base + "#/dags");
  await page.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 10000 });
  await page.locator('#dags-table tr[data-dag="hello"] button[data-act="start"]').click();
  await page.waitForSelector(".modal .start-form", { timeout: 5000 });
  check((await page.locator(".modal .start-form input[name^=param-]").count()) === 0, "DAGs: hello's start form has no parameters");
  await page.locator('.modal button[data-act="confirm-start"]').click();
  await page.waitForFunction(() => /Started hello/.test(document.getElementById("toast").textContent), null, { timeout: 15000 });
  const startedToast = await page.locator("#toast").innerText();
  const helloRunId = (/\(([^)]+)\)/.exec(startedToast) || [])[1];
  check(!!helloRunId, "DAGs: Start reports the new run (" + startedToast + ")");

  // ---- a DAG: start with params, graph, step log ----
  await page.goto(base + "#/dags/diamond");
  await page.waitForSelector("svg.graph g.node", { timeout: 10000 });
  check((await page.locator("svg.graph g.node").count()) === 4 && (await page.locator("svg.graph path.edge").count()) === 4,
    "DAG: the never-run diamond is drawn with 4 nodes and 4 edges");
  await page.locator('.page-head button[data-act="start"]').click();
  await page.waitForSelector('.modal input[name="param-NAME"]', { timeout: 5000 });
  check((await page.locator('.modal input[name="param-NAME"]').inputValue()) === "world" &&
    (await page.locator('.modal input[name="param-COUNT"]').inputValue()) === "3", "DAG: the start form is built from params with the defaults");
  await page.fill('.modal input[name="param-NAME"]', "e2e \"quoted\" name");
  await page.fill('.modal input[name="dagRunId"]', "diamond-e2e-1");
  await pageShot(page, "start");
  await page.locator('.modal button[data-act="confirm-start"]').click();
  await page.waitForFunction(() => /Started diamond \(diamond-e2e-1\)/.test(document.getElementById("toast").textContent), null, { timeout: 15000 });
  await pollUntil(async () => (await getJson(b.webPort, "/api/v2/dag-runs/diamond/diamond-e2e-1")).dagRunDetails.statusLabel === "succeeded",
    60000, "the diamond run to succeed");
  await page.waitForFunction(() => document.querySelectorAll('svg.graph g.node[data-status="succeeded"]').length === 4, null, { timeout: 15000 });
  const edges = await page.locator("svg.graph path.edge").evaluateAll((els) => els.map((e) => e.dataset.from + ">" + e.dataset.to).sort().join(","));
  check(edges === "a>b,a>c,b>d,c>d", "DAG: the graph of the latest run has the diamond's 4 edges (" + edges + ")");
  check(true, "DAG: all 4 nodes are colored succeeded");
  const fill = await page.locator('svg.graph g.node[data-step="a"] rect').evaluate((e) => getComputedStyle(e).fill);
  check(fill === "rgb(220, 252, 231)", "DAG: a succeeded node is filled green (" + fill + ")");
  await page.locator('svg.graph g.node[data-step="a"]').click();
  await page.waitForFunction(() => (document.getElementById("log") || {}).textContent &&
    document.getElementById("log").textContent.includes("a says e2e quoted name 3"), null, { timeout: 15000 });
  check(true, "DAG: a click on a graph node shows the step's log, with the params of the form");
  const startedParams = (await getJson(b.webPort, "/api/v2/dag-runs/diamond/diamond-e2e-1")).dagRunDetails.params;
  check(startedParams === 'NAME=e2e "quoted" name COUNT=3', "DAG: the form's values reached the run quoted (" + startedParams + ")");
  check(/step=a/.test(page.url()), "DAG: the selected step is in the URL");
  await pageShot(page, "dag");

  // ---- a DAG: the spec editor ----
  const diamondFile = path.join(home, "dags", "diamond.yaml");
  const before = fs.readFileSync(diamondFile, "utf8");
  await page.locator('.page-tabs a[data-tab="spec"]').click();
  await page.waitForSelector(".spec-editor .cm-content", { timeout: 10000 });
  check((await page.locator(".spec-editor .cm-content").innerText()).includes("description: A diamond"), "Spec: CodeMirror shows the YAML");
  check((await page.locator(".spec-editor .tok-propertyName, .spec-editor .ͼc, .spec-editor span[class^=ͼ]").count()) > 0,
    "Spec: the YAML is highlighted");
  await page.locator(".spec-editor .cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.insertText("# edited in the e2e test\n");
  await page.waitForSelector('button[data-act="save"]:not([disabled])', { timeout: 5000 });
  await page.locator('button[data-act="save"]').click();
  await page.waitForFunction(() => /Saved diamond/.test(document.getElementById("toast").textContent), null, { timeout: 10000 });
  const after = fs.readFileSync(diamondFile, "utf8");
  check(after === before + "# edited in the e2e test\n", "Spec: Save wrote the edited YAML to the file");
  const specAnswer = await getJson(b.webPort, "/api/v2/dags/diamond/spec");
  check(specAnswer.spec === after, "Spec: the API reads back the saved text");
  await page.keyboard.insertText("histRetentionDays: oops\n");
  await page.waitForSelector("#spec-errors li", { timeout: 10000 });
  check((await page.locator("#spec-errors").innerText()).includes("histRetentionDays"), "Spec: a bad edit shows the loader's error");
  await page.waitForSelector(".spec-editor .cm-lintRange-error", { timeout: 5000 });
  check(true, "Spec: the error is marked in place in the editor");
  await pageShot(page, "spec");
  await page.locator('button[data-act="save"]').click();
  await page.waitForFunction(() => /Not saved/.test(document.getElementById("toast").textContent), null, { timeout: 10000 });
  check(fs.readFileSync(diamondFile, "utf8") === after, "Spec: a spec with errors is not saved");
  await page.locator('button[data-act="revert"]').click();

  // ---- new DAG, rename, delete ----
  await page.goto(base + "#/dags");
  await page.locator('button[data-act="new-dag"]').click();
  await page.fill('#new-dag-form input[name="name"]', "made-in-ui");
  await page.locator('#new-dag-form button[type="submit"]').click();
  await page.waitForSelector(".spec-editor .cm-content", { timeout: 10000 });
  check(/#\/dags\/made-in-ui\?tab=spec$/.test(page.url()) && fs.existsSync(path.join(home, "dags", "made-in-ui.yaml")),
    "New DAG: creates the file and opens its spec");
  page.once("dialog", (d) => d.accept("renamed-in-ui"));
  await page.locator('button[data-act="rename"]').click();
  await page.waitForFunction(() => /#\/dags\/renamed-in-ui/.test(location.hash), null, { timeout: 10000 });
  check(fs.existsSync(path.join(home, "dags", "renamed-in-ui.yaml")) && !fs.existsSync(path.join(home, "dags", "made-in-ui.yaml")),
    "Rename: moves the file and follows it");
  page.once("dialog", (d) => d.accept());
  await page.locator('button[data-act="delete"]').click();
  await page.waitForFunction(() => location.hash === "#/dags", null, { timeout: 10000 });
  check(!fs.existsSync(path.join(home, "dags", "renamed-in-ui.yaml")), "Delete: removes the file and returns to the list");

  // ---- a DAG: history grid ----
  await page.goto(base + "#/dags/diamond?tab=history");
  await page.waitForSelector("#history-grid tbody tr[data-step]", { timeout: 10000 });
  check((await page.locator("#history-grid tbody tr[data-step]").count()) === 4, "History: a row per step");
  check((await page.locator("#history-grid tbody .cell.succeeded").count()) === 4, "History: the run's cells are green");
  await pageShot(page, "history");

  // ---- Runs ----
  await page.goto(base + "#/runs");
  await page.waitForSelector(".runs-table tbody tr[data-run]", { timeout: 15000 });
  await page.fill("#filter-name", "hello");
  await page.press("#filter-name", "Enter");
  // (hello's schedule may have added a run of its own by now)
  await page.waitForFunction((id) => [...document.querySelectorAll(".runs-table tbody tr[data-run] td:first-child")].every((td) => td.textContent === "hello") &&
    !!document.querySelector('.runs-table tbody tr[data-run="' + id + '"]'), helloRunId, { timeout: 10000 });
  const runId = helloRunId;
  check(/name=hello/.test(page.url()), "Runs: the name filter lists only hello's runs, the started one among them (" + runId + ")");
  await pageShot(page, "runs");
  await page.selectOption("#filter-status", "2");
  await page.waitForSelector(".runs-table td.empty", { timeout: 10000 });
  check(true, "Runs: the status filter 'failed' lists none");
  await page.goto(base + "#/runs?days=custom&from=2001-01-01&to=2001-01-02");
  await page.waitForSelector(".runs-table td.empty", { timeout: 10000 });
  check((await page.locator("#filter-from").inputValue()) === "2001-01-01", "Runs: a date range in 2001 lists none");
  // Server-side pages (GET /dag-runs?limit&cursor): Next walks every run of the
  // range, each once (runs started meanwhile are newer than the cursor: they
  // go to page 1); Prev returns to the page before.
  {
    const today = Math.floor(new Date(new Date().setHours(0, 0, 0, 0)).getTime() / 1000);
    const before = ((await getJson(b.webPort, "/api/v2/dag-runs?fromDate=" + today)).dagRuns || []).map((r) => r.dagRunId + "@" + r.name);
    const pageIds = () => page.evaluate(() => [...document.querySelectorAll(".runs-table tbody tr[data-run]")]
      .map((tr) => tr.getAttribute("data-run") + "@" + tr.querySelector("td").textContent));
    await page.goto(base + "#/runs?per=2");
    await page.waitForSelector(".runs-table tbody tr[data-run]", { timeout: 15000 });
    const pages = [await pageIds()];
    while (await page.locator('button[data-page="next"]:not([disabled])').count()) {
      const hash = await page.evaluate(() => location.hash);
      await page.locator('button[data-page="next"]').click();
      await page.waitForFunction((h) => location.hash !== h && !!document.querySelector(".runs-table tbody tr[data-run]"), hash, { timeout: 10000 });
      await page.waitForFunction((n) => (document.getElementById("runs-count") || {}).textContent?.startsWith("runs " + (2 * n + 1) + "–"), pages.length, { timeout: 10000 });
      pages.push(await pageIds());
      if (pages.length > 200) break;
    }
    const walked = pages.flat();
    check(before.length > 2 && pages.every((p) => p.length <= 2) && new Set(walked).size === walked.length && before.every((id) => walked.includes(id)),
      "Runs: server-side pages of 2 reach all " + before.length + " runs of today, each once (" + pages.length + " pages, " + walked.length + " rows)");
    const lastHash = await page.evaluate(() => location.hash);
    await page.locator('button[data-page="prev"]').click();
    await page.waitForFunction((h) => location.hash !== h, lastHash, { timeout: 10000 });
    await page.waitForFunction((n) => (document.getElementById("runs-count") || {}).textContent?.startsWith("runs " + (2 * n + 1) + "–"), pages.length - 2, { timeout: 10000 });
    const back = await pageIds();
    check(JSON.stringify(back) === JSON.stringify(pages[pages.length - 2]), "Runs: Prev shows the page before again (" + back.join(", ") + ")");
  }
  await pollUntil(async () => {
    const d = await getJson(b.webPort, "/api/v2/dag-runs/hello/" + encodeURIComponent(runId));
    return ["succeeded", "failed"].includes(d.dagRunDetails.statusLabel) && d.dagRunDetails.statusLabel;
  }, 60000, "the run to finish");
  await page.goto(base + "#/runs/hello/" + encodeURIComponent(runId));
  await page.waitForSelector('#steps-table tr[data-step="greet"]', { timeout: 15000 });
  await page.waitForFunction(() => document.querySelector(".page-head .badge") &&
    document.querySelector(".page-head .badge").textContent === "succeeded", null, { timeout: 15000 });
  check(true, "Runs: the run detail shows succeeded");
  check((await page.locator("svg.graph g.node").count()) === 2 && (await page.locator("svg.graph path.edge").count()) === 1,
    "Runs: the run page draws its graph (2 nodes, 1 edge)");
  await page.locator('#steps-table tr[data-step="greet"]').click();
  await page.waitForFunction(() => (document.getElementById("log") || {}).textContent &&
    document.getElementById("log").textContent.includes("hello from the e2e test"), null, { timeout: 15000 });
  check(true, "Runs: clicking a step shows its log");
  // Durations to the millisecond, from the API's times (the run, its step, the timeline's tooltip).
  {
    const d = (await getJson(b.webPort, "/api/v2/dag-runs/hello/" + encodeURIComponent(runId))).dagRunDetails;
    const msText = (a, z) => { const ms = Date.parse(z) - Date.parse(a); return ms < 60000 ? Math.floor(ms / 1000) + "." + String(ms % 1000).padStart(3, "0") + "s" : null; };
    const runWant = msText(d.startedAt, d.finishedAt), node = d.nodes.find((n) => n.step.name === "greet");
    const stepWant = msText(node.startedAt, node.finishedAt);
    const runShown = (await page.locator('dt:text-is("Duration") + dd').innerText()).trim();
    const stepShown = (await page.locator('#steps-table tr[data-step="greet"] td.num').innerText()).trim();
    const barTitle = await page.locator('#step-timeline .lane[data-step="greet"] .bar').getAttribute("title");
    check(runWant !== null && runShown === runWant && stepShown === stepWant && barTitle === "greet · " + stepWant,
      "Runs: durations to the millisecond from the API's times (run " + runShown + ", step " + stepShown + ", timeline '" + barTitle + "'; want " + runWant + ", " + stepWant + ")");
  }

  // A long step log is paged: the tail first, then the head, then the next page.
  await page.goto(base + "#/runs/diamond/diamond-e2e-1?step=b");
  await page.waitForFunction(() => /line 1200\s*$/.test((document.getElementById("log") || {}).textContent || ""), null, { timeout: 15000 });
  check(/lines 701–1200 of 1200/.test(await page.locator(".log-pos").innerText()), "Logs: the tail shows the last 500 of 1200 lines");
  await page.locator('button[data-log="head"]').click();
  await page.waitForFunction(() => /^line 1\n/.test((document.getElementById("log") || {}).textContent || ""), null, { timeout: 10000 });
  check(/lines 1–500 of 1200/.test(await page.locator(".log-pos").innerText()), "Logs: Head shows the first 500 lines");
  await page.locator('button[data-log="next"]').click();
  await page.waitForFunction(() => /^line 501\n/.test((document.getElementById("log") || {}).textContent || ""), null, { timeout: 10000 });
  check(/lines 501–1000 of 1200/.test(await page.locator(".log-pos").innerText()), "Logs: Next pages on from line 501");
  check((await page.locator("#step-timeline .lane .bar.succeeded").count()) === 4, "Run: the step timeline has a green bar per step");
  const outputsText = await page.locator("#outputs").innerText();
  check(/greeting\s+a says e2e quoted name 3/i.test(outputsText), "Run: the outputs show step a's GREETING (" + outputsText.replace(/\s+/g, " ") + ")");
  await pageShot(page, "run");

  // Retry from one step: only that step and the ones after it run again (new
  // log files); the steps before it keep their results (the same log files).
  const node = (d, name) => d.nodes.find((n) => n.step.name === name);
  const original = (await getJson(b.webPort, "/api/v2/dag-runs/diamond/diamond-e2e-1")).dagRunDetails;
  await page.locator('#steps-table tr[data-step="d"] button[data-act="retry-step"]').click();
  await page.waitForFunction(() => /Retrying diamond-e2e-1 from step d/.test(document.getElementById("toast").textContent), null, { timeout: 10000 });
  await pollUntil(async () => {
    const d = (await getJson(b.webPort, "/api/v2/dag-runs/diamond/diamond-e2e-1")).dagRunDetails;
    return d.statusLabel === "succeeded" && node(d, "d").stdout !== node(original, "d").stdout;
  }, 30000, "the retry from step d to run d again");
  const retried = (await getJson(b.webPort, "/api/v2/dag-runs/diamond/diamond-e2e-1")).dagRunDetails;
  check(["a", "b", "c"].every((s) => node(retried, s).stdout === node(original, s).stdout),
    "Runs: retry from step d ran d again and left a, b and c as they were");

  // A parent's page lists its sub-DAG runs; each links to the child's page.
  await page.goto(base + "#/runs/family/fam-1");
  await page.waitForSelector("#subruns-table tr[data-subrun]", { timeout: 15000 });
  // In the graph, the sub-DAG step opens the child run.
  await page.locator('svg.graph g.node[data-step="ask"]').click();
  await page.waitForFunction(() => /^#\/runs\/family\/fam-1\/sub\/[^/?]+$/.test(location.hash), null, { timeout: 10000 });
  await page.waitForSelector('#steps-table tr[data-step="answer"]', { timeout: 15000 });
  check(true, "Runs: the sub-DAG step in the parent's graph opens the child run (" + decodeURIComponent(page.url().split("#")[1]) + ")");
  await page.goto(base + "#/runs/family/fam-1");
  await page.waitForSelector("#subruns-table tr[data-subrun]", { timeout: 15000 });
  const subRow = page.locator("#subruns-table tr[data-subrun]").first();
  const subText = await subRow.innerText();
  check(subText.includes("kid") && subText.includes("succeeded") && subText.includes('WHO="e2e"'),
    "Runs: the parent lists its sub-DAG run with DAG, params and status (" + subText.replace(/\s+/g, " ") + ")");
  await subRow.locator("a").click();
  await page.waitForSelector('#steps-table tr[data-step="answer"]', { timeout: 15000 });
  check((await page.locator(".crumbs").innerText()).includes("fam-1"), "Runs: the child's page links back to its parent");
  await page.locator('#steps-table tr[data-step="answer"]').click();
  await page.waitForFunction(() => (document.getElementById("log") || {}).textContent &&
    document.getElementById("log").textContent.includes("kid says hi to e2e"), null, { timeout: 15000 });
  check(true, "Runs: the child's step log is shown");

  // ---- live updates: a run page follows its run without a reload ----
  const postJson = (target, body) => fetch("http://127.0.0.1:" + b.webPort + target,
    { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  // (written now: the DAG list's checks above count six DAGs)
  fs.writeFileSync(path.join(home, "dags", "slow.yaml"),
    "steps:\n  - name: wait\n    command: sleep 4\n  - name: end\n    command: echo end\n    depends: [wait]\n");
  check((await postJson("/api/v2/dags/slow/start", { dagRunId: "live-1" })).ok, "Live: started the slow DAG");
  await page.goto(base + "#/runs/slow/live-1");
  await page.waitForFunction(() => document.documentElement.dataset.live === "on", null, { timeout: 15000 });
  check(true, "Live: the page follows the server's event stream (GET /api/v2/events)");
  await page.waitForFunction(() => document.querySelector(".page-head .badge") &&
    document.querySelector(".page-head .badge").textContent === "running", null, { timeout: 15000 });
  await page.evaluate(() => { window.__notReloaded = true; });
  // While live the page polls only every 60 s: the change within 20 s is pushed.
  await page.waitForFunction(() => document.querySelector(".page-head .badge") &&
    document.querySelector(".page-head .badge").textContent === "succeeded", null, { timeout: 20000 });
  check(await page.evaluate(() => window.__notReloaded === true) &&
    (await page.locator('#steps-table tr[data-step="end"]').innerText()).includes("succeeded"),
    "Live: the run page turned from running to succeeded by itself (no reload), its steps too");

  // ---- approval of a waiting step, reschedule, reject ----
  check((await postJson("/api/v2/dags/gated/start", { dagRunId: "g1" })).ok, "Approval: started the gated DAG");
  await pollUntil(async () => (await getJson(b.webPort, "/api/v2/dag-runs/gated/g1")).dagRunDetails.statusLabel === "waiting", 30000, "g1 to wait");
  await page.goto(base + "#/runs/gated/g1");
  await page.waitForSelector('.approval[data-approval="gate"]', { timeout: 15000 });
  check((await page.locator(".approval .prompt").innerText()) === "ship it?", "Approval: the waiting step shows its prompt");
  const errorsBefore = pageErrors.length;
  await page.locator('.approval button[data-act="approve"]').click();
  await page.waitForFunction(() => /missing required inputs/.test(document.getElementById("toast").textContent), null, { timeout: 10000 });
  // The browser logs the refused request (400) as a console error: expected here.
  for (let i = pageErrors.length - 1; i >= errorsBefore; i--) if (/status of 400/.test(pageErrors[i])) pageErrors.splice(i, 1);
  check(true, "Approval: approving without the required input is refused (" + (await page.locator("#toast").innerText()) + ")");
  await page.fill('.approval input[name="input-REASON"]', "fine by the e2e test");
  await page.locator('.approval button[data-act="approve"]').click();
  await pollUntil(async () => (await getJson(b.webPort, "/api/v2/dag-runs/gated/g1")).dagRunDetails.statusLabel === "succeeded", 30000, "g1 to succeed");
  await page.goto(base + "#/runs/gated/g1?step=after");
  await page.waitForFunction(() => /after fine by the e2e test/.test((document.getElementById("log") || {}).textContent || ""), null, { timeout: 15000 });
  check((await page.locator(".approval").count()) === 0, "Approval: approved with the input, the run went on and the next step saw it");
  await page.locator('button[data-act="reschedule"]').click();
  await page.waitForFunction(() => /^#\/runs\/gated\/(?!g1$)[^/?]+$/.test(location.hash), null, { timeout: 15000 });
  const g2 = decodeURIComponent(page.url().split("/").pop());
  check(true, "Reschedule: a new run of the same DAG opens (" + g2 + ")");
  await page.waitForSelector('.approval[data-approval="gate"]', { timeout: 30000 });
  await page.fill('.approval input[name="reject-reason"]', "not today");
  await page.locator('.approval button[data-act="reject"]').click();
  await pollUntil(async () => (await getJson(b.webPort, "/api/v2/dag-runs/gated/" + encodeURIComponent(g2))).dagRunDetails.statusLabel === "rejected",
    30000, "the rescheduled run to be rejected");
  await page.waitForFunction(() => document.querySelector(".page-head .badge") && document.querySelector(".page-head .badge").textContent === "rejected", null, { timeout: 15000 });
  check(true, "Approval: Reject ends the rescheduled run rejected");

  // ---- Search ----
  await page.goto(base + "#/search");
  await page.fill("#search-q", "hitl");
  await page.press("#search-q", "Enter");
  await page.waitForSelector("#search-results", { timeout: 10000 });
  const found = await page.locator("#search-results .search-result").evaluateAll((els) => els.map((e) => e.dataset.dag).join(","));
  check(found === "gated", "Search: 'hitl' finds only the gated DAG (" + found + ")");
  check((await page.locator("#search-results .snippet .hit").first().innerText()).includes("type: hitl"), "Search: the matching line is shown and marked");
  await pageShot(page, "search");

  // ---- Dashboard ----
  await page.goto(base + "#/dashboard");
  await page.waitForSelector('#dash-timeline .lane[data-dag="diamond"] .bar.succeeded', { timeout: 15000 });
  const dayRuns = (await getJson(b.webPort, "/api/v2/dag-runs?fromDate=" + Math.floor(new Date(new Date().setHours(0, 0, 0, 0)).getTime() / 1000))).dagRuns.length;
  const shownRuns = Number((await page.locator("#dash-counts .card .value").first().innerText()).trim());
  check(shownRuns === dayRuns, "Dashboard: counts today's runs (" + shownRuns + " of " + dayRuns + ")");
  check((await page.locator("#dash-timeline .lane").count()) >= 3, "Dashboard: a timeline lane per DAG that ran today");
  await pageShot(page, "dashboard");
  await page.locator('#dash-timeline .lane[data-dag="diamond"] .bar').first().click();
  await page.waitForSelector("#steps-table tr[data-step]", { timeout: 10000 });
  check(/#\/runs\/diamond\//.test(page.url()), "Dashboard: a bar opens its run");
  await page.goto(base + "#/dashboard");
  await page.waitForSelector("#dash-workers, #dash-workers-none", { timeout: 15000 });
  check(true, "Dashboard: the workers panel is shown (" + (await page.locator("#dash-workers, #dash-workers-none").first().innerText()).replace(/\s+/g, " ").slice(0, 80) + ")");
  await page.goto(base + "#/dashboard?date=2001-01-01");
  await page.waitForFunction(() => /No runs on this day/.test(document.body.textContent), null, { timeout: 10000 });
  check(true, "Dashboard: another day (2001-01-01) shows no runs");

  // ---- Queue ----
  await page.goto(base + "#/queues");
  await page.waitForSelector("h1", { timeout: 10000 });
  check((await page.locator("h1").innerText()) === "Queues", "Queue: the page renders");
  check((await page.locator(".cards .card").count()) === 4, "Queue: the summary cards are shown");
  // Clear: three runs of a one-at-a-time DAG enqueued; Clear dequeues the waiting ones.
  fs.writeFileSync(path.join(home, "dags", "slow.yaml"), "maxActiveRuns: 1\n" + fs.readFileSync(path.join(home, "dags", "slow.yaml"), "utf8"));
  for (const id of ["q-1", "q-2", "q-3"]) {
    check((await postJson("/api/v2/dags/slow/enqueue", { dagRunId: id })).ok, "Queue: enqueued " + id);
  }
  await page.waitForFunction(() => /1 \/ 1 running, 2 queued/.test((document.querySelector('.queue[data-queue="slow"] h2') || {}).textContent || ""),
    null, { timeout: 15000 });
  page.once("dialog", (d) => d.accept());
  await page.locator('.queue[data-queue="slow"] button[data-act="clear-queue"]').click();
  await page.waitForFunction(() => /Cleared slow/.test(document.getElementById("toast").textContent), null, { timeout: 10000 });
  // A dequeued run that never ran has its attempt hidden: 404 (as 1.30.2), or aborted.
  const qLabels = [];
  for (const id of ["q-1", "q-2", "q-3"]) {
    const res = await fetch("http://127.0.0.1:" + b.webPort + "/api/v2/dag-runs/slow/" + id);
    qLabels.push(res.status === 404 ? "dequeued" : (await res.json()).dagRunDetails.statusLabel);
  }
  check(qLabels.filter((l) => l === "dequeued" || l === "aborted").length === 2 && !qLabels.includes("queued"),
    "Queue: Clear dequeued the waiting runs (" + qLabels.join(", ") + ")");
  // A queued run of a DAG whose workerSelector no worker matches says why
  // (ours, issue 32: the scheduler publishes it, the API's waitingForWorker).
  fs.writeFileSync(path.join(home, "dags", "gpu-wait.yaml"),
    "workerSelector:\n  pool: e2e-nowhere\nsteps:\n  - name: s\n    command: echo never\n");
  check((await postJson("/api/v2/dags/gpu-wait/enqueue", { dagRunId: "w-1" })).ok, "Queue: enqueued w-1 (a selector no worker matches)");
  await page.goto(base + "#/queues");
  const waitNote = /waiting for a worker: no (worker matches pool=e2e-nowhere|coordinator is registered)/;
  await page.waitForFunction((re) => new RegExp(re).test((document.querySelector('.queue[data-queue="gpu-wait"]') || {}).textContent || ""),
    waitNote.source, { timeout: 30000 });
  check(true, "Queue: a run waiting for a worker says why (" + (await page.locator('.queue[data-queue="gpu-wait"] .wait-note').innerText()) + ")");
  check((await fetch("http://127.0.0.1:" + b.webPort + "/api/v2/dag-runs/gpu-wait/w-1/dequeue")).ok, "Queue: w-1 dequeued");
  await page.goto(base + "#/queues");
  await pageShot(page, "queues");

  // ---- a DAG's Log tab: the scheduler log of its runs ----
  await page.goto(base + "#/dags/hello?tab=log");
  await page.waitForSelector("#log-run", { timeout: 15000 });
  await page.waitForFunction(() => ((document.getElementById("log") || {}).textContent || "").length > 20, null, { timeout: 15000 });
  check((await page.locator("#log-run option").count()) >= 1, "DAG Log tab: the scheduler log of a run, a list to pick another (" +
    (await page.locator("#log").innerText()).split("\n")[0].slice(0, 60) + ")");
  await pageShot(page, "dag-log");

  // Dark mode follows the system setting.
  const rootBg = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const lightBg = await rootBg();
  await page.emulateMedia({ colorScheme: "dark" });
  const darkBg = await rootBg();
  await page.emulateMedia({ colorScheme: "light" });
  check(lightBg === "rgb(245, 247, 250)" && darkBg === "rgb(11, 16, 32)", "Dark mode: the page follows the system setting (" + lightBg + " / " + darkBg + ")");

  // The page refreshes itself: a third instance appears without a reload.
  await page.goto(base + "#/instances");
  await page.waitForSelector('#instances-table tr[data-role="standby"]', { timeout: 10000 });
  await startAll("d", home);
  await pollUntil(async () => (await page.locator('#instances-table tbody tr[data-role="standby"]').count()) === 2,
    20000, "the Instances page to show a second standby by itself");
  check(true, "Instances: refreshes itself (a new standby appears)");

  // ---- builtin auth under a base path: the login form, then the pages ----
  const authHome = path.join(tmp, "auth-home");
  fs.mkdirSync(path.join(authHome, "dags"), { recursive: true });
  fs.copyFileSync(path.join(home, "dags", "hello.yaml"), path.join(authHome, "dags", "hello.yaml"));
  const e = await startAll("e", authHome, {
    DAGU_AUTH_MODE: "builtin", DAGU_AUTH_TOKEN_SECRET: "e2e-secret-of-at-least-16-bytes",
    DAGU_AUTH_ADMIN_USERNAME: "admin", DAGU_AUTH_ADMIN_PASSWORD: "e2e-admin-pass", DAGU_BASE_PATH: "/dagu",
  }, "/dagu");
  const authPage = await browser.newPage({ viewport: VIEWPORT, timezoneId: "Asia/Tokyo" });
  authPage.on("pageerror", (err) => pageErrors.push("auth page: " + err.message));
  // The 401 answers before the login are expected; other console errors are not.
  authPage.on("console", (m) => { if (m.type() === "error" && !/401/.test(m.text())) pageErrors.push("auth page: " + m.text()); });
  await authPage.goto("http://127.0.0.1:" + e.webPort + "/dagu/#/dags");
  await authPage.waitForSelector("#login-form", { timeout: 15000 });
  check(true, "Auth: the API's 401 shows the login form");
  await pageShot(authPage, "login");
  await authPage.fill('#login-form input[name="username"]', "admin");
  await authPage.fill('#login-form input[name="password"]', "wrong");
  await authPage.locator('#login-form button[type="submit"]').click();
  await authPage.waitForSelector("#login-form .error-box", { timeout: 10000 });
  check(true, "Auth: a wrong password is refused in the form");
  await authPage.fill('#login-form input[name="password"]', "e2e-admin-pass");
  await authPage.locator('#login-form button[type="submit"]').click();
  await authPage.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 15000 });
  check(true, "Auth: signed in, the DAG list loads with the token, under the base path /dagu");
  await authPage.waitForFunction(() => document.documentElement.dataset.live === "on", null, { timeout: 20000 });
  check(true, "Live: the event stream opens with the token under the base path");
  check((await authPage.locator(".topbar .user").innerText()).includes("admin"), "Auth: the top bar names the signed-in user");
  // Times in the viewer's zone (this page: Asia/Tokyo, UTC+9) or in UTC.
  const nextRunText = async () => (await authPage.locator('#dags-table tr[data-dag="hello"] td').nth(2).innerText()).trim();
  const tokyo = await nextRunText();
  await authPage.selectOption("#time-zone", "UTC");
  await authPage.waitForFunction((t) => {
    const td = document.querySelectorAll('#dags-table tr[data-dag="hello"] td')[2];
    return td && td.textContent.trim() !== t;
  }, tokyo, { timeout: 10000 });
  const utc = await nextRunText();
  const hours = (Date.parse(tokyo.replace(" ", "T") + "Z") - Date.parse(utc.replace(" ", "T") + "Z")) / 3600000;
  check(hours === 9, "Time zone: the switch shows times in UTC instead of the viewer's zone (" + tokyo + " -> " + utc + ")");
  await authPage.selectOption("#time-zone", "");
  await authPage.goto("http://127.0.0.1:" + e.webPort + "/dagu/#/dags/hello?tab=spec");
  await authPage.waitForSelector('.spec-editor .cm-content', { timeout: 15000 });
  check((await authPage.locator('button[data-act="save"]').count()) === 1, "Auth: an admin may edit the spec");
  await authPage.close();

  check(pageErrors.length === 0, "no page errors" + (pageErrors.length ? ": " + pageErrors.join("; ") +
    " (answers >= 400: " + failedLoads.join(", ") + ")" : ""));
  await browser.close();
}

main().catch((e) => { failed++; console.log("FAIL " + (e && e.stack ? e.stack : e)); })
  .then(stopAll)
  .then(() => {
    console.log(passed + " passed, " + failed + " failed");
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  });
