// End-to-end test of the web UI's auth pages in real headless Chromium
// (Debian's /usr/bin/chromium driven by playwright-core), against
// `dagu start-all` with builtin auth, then with auth off:
//  - the login form, the user menu (name, role, change password, sign out);
//  - Users (admin): add a user with a role, edit its role, reset its
//    password, delete it (not yourself);
//  - API keys (admin): create (the key shown once), the key works with
//    fetch as a bearer token and its last use shows, revoke (refused after);
//  - a DAG's Webhook tab: create (token shown once, curl example), a POST
//    with the token starts a run that sees the payload, disable (403),
//    enable, regenerate (the old token refused), and the Webhooks list;
//  - roles: a viewer sees no start/stop/edit and no admin pages, an
//    operator may start but not edit; a 403 from the API is shown;
//  - auth off: the auth pages say "not enabled", every action is offered.
// Any uncaught page error or unexpected console error fails the test.
//
// usage: node web_ui_auth_e2e.js <dagu binary> <node_modules dir> <output dir>
// env:   DAGU_E2E_SHOTS  a folder for screenshots (ui-*.png; docs/images when
//                        updating docs/web.md's pictures)
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawn } = require("child_process");

const [daguBinary, nodeModules, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
if (process.argv.length < 5) {
  console.error("usage: node web_ui_auth_e2e.js <dagu binary> <node_modules dir> <output dir>");
  process.exit(2);
}
const { chromium } = require(path.join(nodeModules, "playwright-core"));

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];
const VIEWPORT = { width: 1366, height: 768 };
const ADMIN_PASS = "e2e-admin-pass";

let passed = 0, failed = 0;
const procs = [];

function check(ok, what) {
  if (ok) { passed++; console.log("ok   " + what); }
  else { failed++; console.log("FAIL " + what); }
  return ok;
}
const { sleep, pollUntil, freePort } = require("./e2e_support");
async function pageShot(page, name) {
  if (!process.env.DAGU_E2E_SHOTS) return;
  fs.mkdirSync(process.env.DAGU_E2E_SHOTS, { recursive: true });
  await sleep(300);
  await page.screenshot({ path: path.join(process.env.DAGU_E2E_SHOTS, "ui-" + name + ".png") });
}

async function startAll(name, home, extraEnv = {}) {
  const webPort = await freePort(), healthPort = await freePort();
  const env = Object.assign({}, process.env, {
    DAGU_HOME: home, HOME: path.join(home, "..", "user"),
    DAGU_SCHEDULER_PORT: String(healthPort),
    DAGU_PORT: "", DAGU_HOST: "", DAGU_BASICAUTH_USERNAME: "", DAGU_BASICAUTH_PASSWORD: "", DAGU_AUTHTOKEN: "",
    DAGU_AUTH_MODE: "", DAGU_BASE_PATH: "",
  }, extraEnv);
  const log = fs.openSync(path.join(outDir, "e2e-auth-" + name + ".log"), "w");
  const child = spawn(daguBinary, ["start-all", "--host", "127.0.0.1", "--port", String(webPort)],
    { env, stdio: ["ignore", log, log] });
  const p = { name, child, webPort, exited: null };
  child.on("exit", (code, sig) => { p.exited = code !== null ? code : 128 + (os.constants.signals[sig] || 0); });
  procs.push(p);
  await pollUntil(async () => (await fetch("http://127.0.0.1:" + webPort + "/api/v2/health")).ok, 30000, name + " web server");
  return p;
}

async function stopAll() {
  for (const p of procs) if (p.exited === null) p.child.kill("SIGTERM");
  const deadline = Date.now() + 15000;
  while (procs.some((p) => p.exited === null) && Date.now() < deadline) await sleep(100);
  for (const p of procs) if (p.exited === null) p.child.kill("SIGKILL");
}

function writeDags(home) {
  fs.mkdirSync(path.join(home, "dags"), { recursive: true });
  fs.writeFileSync(path.join(home, "dags", "hello.yaml"), "steps:\n  - name: greet\n    command: echo hello\n");
  fs.writeFileSync(path.join(home, "dags", "hook.yaml"),
    "steps:\n  - name: show\n    command: echo \"payload=$WEBHOOK_PAYLOAD\"\n");
  fs.writeFileSync(path.join(home, "dags", "gated.yaml"),
    "steps:\n  - name: gate\n    type: hitl\n    config:\n      prompt: ship it?\n  - name: after\n    command: echo after\n");
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dagu-e2e-auth-"));
  const home = path.join(tmp, "home");
  writeDags(home);
  const home2 = path.join(tmp, "home2");
  writeDags(home2);
  // Both servers start at once: the one without auth is used at the end.
  const [srv, open] = await Promise.all([startAll("builtin", home, {
    DAGU_AUTH_MODE: "builtin", DAGU_AUTH_TOKEN_SECRET: "e2e-secret-of-at-least-16-bytes",
    DAGU_AUTH_ADMIN_USERNAME: "admin", DAGU_AUTH_ADMIN_PASSWORD: ADMIN_PASS,
  }), startAll("none", home2)]);
  const api = "http://127.0.0.1:" + srv.webPort + "/api/v2";
  const call = async (method, p, token, body) => {
    const headers = {};
    if (token) headers.Authorization = "Bearer " + token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(api + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, json };
  };
  let adminToken = (await call("POST", "/auth/login", null, { username: "admin", password: ADMIN_PASS })).json.token;

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  const pageErrors = [];
  const newPage = async (label) => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    page.on("pageerror", (e) => pageErrors.push(label + ": " + e.message));
    // 401 (before a login), 403 (the refused start below) and 404 (a DAG
    // without a webhook) are answers the test asks for; others are not.
    page.on("console", (m) => { if (m.type() === "error" && !/40[134]/.test(m.text())) pageErrors.push(label + ": " + m.text()); });
    page.on("dialog", (d) => d.accept());  // the confirmations of delete, revoke, regenerate
    return page;
  };
  const base = "http://127.0.0.1:" + srv.webPort + "/";
  const login = async (page, user, pass, hash = "#/dags") => {
    await page.goto(base + hash);
    await page.waitForSelector("#login-form", { timeout: 15000 });
    await page.fill('#login-form input[name="username"]', user);
    await page.fill('#login-form input[name="password"]', pass);
    await page.locator('#login-form button[type="submit"]').click();
    await page.waitForSelector("#user-menu", { timeout: 15000 });
  };
  const toastText = (page) => page.locator("#toast").innerText();

  // ---- admin: the user menu and the admin tabs ----
  const page = await newPage("admin");
  await login(page, "admin", ADMIN_PASS);
  await page.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 15000 });
  await page.click("#user-menu");
  check((await page.locator("#user-role").innerText()).trim() === "admin", "User menu: shows the signed-in user's role (admin)");
  check((await page.locator('.menu button[data-act="change-password"]').count()) === 1 &&
        (await page.locator('.menu button[data-act="sign-out"]').count()) === 1, "User menu: Change password and Sign out");
  await pageShot(page, "user-menu");
  await page.click("#user-menu");
  for (const t of ["users", "api-keys", "webhooks"]) {
    check((await page.locator('.tabs a[data-tab="' + t + '"]').count()) === 1, "Admin: the " + t + " tab is in the top bar");
  }

  // ---- Users: add, edit role, reset password, delete ----
  await page.click('.tabs a[data-tab="users"]');
  await page.waitForSelector('#users-table tr[data-user="admin"]', { timeout: 10000 });
  check(await page.locator('#users-table tr[data-user="admin"] button[data-act="delete"]').isDisabled(),
    "Users: an admin cannot delete its own account (the button is disabled)");
  const addUser = async (name, pass, role) => {
    await page.click('button[data-act="new-user"]');
    await page.fill('#user-form input[name="username"]', name);
    await page.fill('#user-form input[name="password"]', pass);
    await page.selectOption('#user-form select[name="role"]', role);
    await page.locator('#user-form button[type="submit"]').click();
    await page.waitForSelector('#users-table tr[data-user="' + name + '"]', { timeout: 10000 });
  };
  await addUser("vic", "vic-pass-123", "viewer");
  await addUser("olga", "olga-pass-123", "viewer");
  check((await page.locator('#users-table tr[data-user="vic"] .badge.role').innerText()).trim() === "viewer", "Users: a viewer created with its role");
  const users = (await call("GET", "/users", adminToken)).json.users.map((u) => u.username + ":" + u.role).sort().join(",");
  check(users === "admin:admin,olga:viewer,vic:viewer", "Users: the server holds the created users (" + users + ")");
  await page.click('#users-table tr[data-user="olga"] button[data-act="edit"]');
  await page.selectOption('#user-form select[name="role"]', "operator");
  await page.locator('#user-form button[type="submit"]').click();
  await pollUntil(async () => (await page.locator('#users-table tr[data-user="olga"] .badge.role').innerText()).trim() === "operator", 10000, "olga's role to show operator");
  check(true, "Users: Edit changes the role (viewer -> operator)");
  await pageShot(page, "users");
  await page.click('#users-table tr[data-user="olga"] button[data-act="reset-password"]');
  await page.fill('#reset-password-form input[name="password"]', "olga-new-pass-1");
  await page.locator('#reset-password-form button[type="submit"]').click();
  await pollUntil(async () => (await toastText(page)).includes("reset"), 10000, "the reset toast");
  const olgaLogin = await call("POST", "/auth/login", null, { username: "olga", password: "olga-new-pass-1" });
  check(olgaLogin.status === 200, "Users: Reset password: the user signs in with the new password (" + olgaLogin.status + ")");
  // Disable (ours): the user's session ends and its login is refused; Enable lets it in again.
  const olgaToken = olgaLogin.json.token;
  check((await call("GET", "/auth/me", olgaToken)).status === 200, "Users: olga's session works before Disable");
  await page.click('#users-table tr[data-user="olga"] button[data-act="disable"]');
  await page.waitForSelector('#users-table tr[data-user="olga"] .badge.disabled', { timeout: 10000 });
  check((await call("GET", "/auth/me", olgaToken)).status === 401, "Users: Disable ends the user's session (401)");
  check((await call("POST", "/auth/login", null, { username: "olga", password: "olga-new-pass-1" })).status === 401,
    "Users: a disabled user's login is refused");
  const adminId = (await call("GET", "/auth/me", adminToken)).json.user.id;
  const selfDisable = await call("PATCH", "/users/" + adminId, adminToken, { username: "admin", isDisabled: true });
  check(selfDisable.status === 403, "Users: an admin cannot disable its own account (" + selfDisable.status + ")");
  await page.click('#users-table tr[data-user="olga"] button[data-act="enable"]');
  await pollUntil(async () => (await page.locator('#users-table tr[data-user="olga"] .badge.disabled').count()) === 0, 10000, "olga enabled");
  check((await call("POST", "/auth/login", null, { username: "olga", password: "olga-new-pass-1" })).status === 200,
    "Users: Enable lets the user sign in again");
  await addUser("tmp", "tmp-pass-123", "manager");
  await page.click('#users-table tr[data-user="tmp"] button[data-act="delete"]');
  await pollUntil(async () => (await page.locator('#users-table tr[data-user="tmp"]').count()) === 0, 10000, "tmp's row to go");
  check((await call("POST", "/auth/login", null, { username: "tmp", password: "tmp-pass-123" })).status === 401, "Users: Delete removes the user (its login is refused)");

  // ---- API keys: create (shown once), use, last used, revoke ----
  await page.click('.tabs a[data-tab="api-keys"]');
  await page.waitForSelector("#api-keys-table", { timeout: 10000 });
  const createKey = async (name, role) => {
    await page.click('button[data-act="new-key"]');
    await page.fill('#api-key-form input[name="name"]', name);
    await page.fill('#api-key-form input[name="description"]', "made by the e2e test");
    await page.selectOption('#api-key-form select[name="role"]', role);
    await page.locator('#api-key-form button[type="submit"]').click();
    await page.waitForSelector("#secret-once .secret-value", { timeout: 10000 });
    const key = await page.locator("#secret-once .secret-value").inputValue();
    return key;
  };
  const ciKey = await createKey("ci", "operator");
  check(/^dagu_/.test(ciKey), "API keys: the new key is shown once (" + ciKey.slice(0, 9) + "…)");
  check((await page.locator('#secret-once button[data-act="copy"]').count()) === 1, "API keys: the shown key has a Copy button");
  await pageShot(page, "api-key-created");
  await page.click('#secret-once button[data-act="done"]');
  await page.waitForSelector('#api-keys-table tr[data-key="ci"]', { timeout: 10000 });
  const row = await page.locator('#api-keys-table tr[data-key="ci"]').innerText();
  check(row.includes("operator") && row.includes(ciKey.slice(0, 8)) && /never/.test(row),
    "API keys: the row shows role, prefix and 'never' used (" + row.replace(/\s+/g, " ") + ")");
  check((await page.locator("#secret-once").count()) === 0 && !(await page.content()).includes(ciKey), "API keys: the full key is not shown again");
  const byKey = await call("GET", "/dags", ciKey);
  check(byKey.status === 200, "API keys: the key works as a bearer token with fetch (GET /dags " + byKey.status + ")");
  const startByKey = await call("POST", "/dags/hello/start", ciKey, {});
  check(startByKey.status === 200, "API keys: an operator key may start a DAG (" + startByKey.status + ")");
  await page.reload();
  await page.waitForSelector('#api-keys-table tr[data-key="ci"]', { timeout: 10000 });
  check(!/never/.test(await page.locator('#api-keys-table tr[data-key="ci"] td.last-used').innerText()), "API keys: the last use is shown after the key was used");
  await pageShot(page, "api-keys");
  const oldKey = await createKey("old", "viewer");
  await page.click('#secret-once button[data-act="done"]');
  await page.waitForSelector('#api-keys-table tr[data-key="old"]', { timeout: 10000 });
  await page.click('#api-keys-table tr[data-key="old"] button[data-act="revoke"]');
  await pollUntil(async () => (await page.locator('#api-keys-table tr[data-key="old"]').count()) === 0, 10000, "the revoked key's row to go");
  check((await call("GET", "/dags", oldKey)).status === 401, "API keys: a revoked key is refused (401)");

  // ---- a DAG's Webhook tab ----
  await page.goto(base + "#/dags/hook?tab=webhook");
  await page.waitForSelector('button[data-act="create-webhook"]', { timeout: 10000 });
  check(true, "Webhook tab: a DAG without a webhook offers Create webhook");
  await page.click('button[data-act="create-webhook"]');
  await page.waitForSelector("#secret-once .secret-value", { timeout: 10000 });
  const hookToken = await page.locator("#secret-once .secret-value").inputValue();
  check(/^dagu_wh_/.test(hookToken), "Webhook tab: the token is shown once (" + hookToken.slice(0, 10) + "…)");
  await page.click('#secret-once button[data-act="done"]');
  await page.waitForSelector("#webhook-curl", { timeout: 10000 });
  const curl = await page.locator("#webhook-curl").innerText();
  check(curl.includes("/api/v2/webhooks/hook") && curl.includes("Authorization: Bearer"), "Webhook tab: an example curl with the URL");
  check((await page.locator("#webhook-state").innerText()).trim() === "enabled", "Webhook tab: the new webhook is enabled");
  const trigger = (token, body) => fetch(api + "/webhooks/hook", { method: "POST",
    headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const fired = await trigger(hookToken, { payload: { ref: "main" } });
  const firedJson = await fired.json();
  check(fired.status === 200 && firedJson.dagRunId, "Webhook: a POST with the token starts a run (" + fired.status + ")");
  const run = await pollUntil(async () => {
    const r = await call("GET", "/dag-runs/hook/" + firedJson.dagRunId, adminToken);
    const d = r.json && r.json.dagRunDetails;
    return d && (d.statusLabel === "succeeded" || d.statusLabel === "failed") ? d : null;
  }, 30000, "the webhook's run to finish");
  check(run.statusLabel === "succeeded", "Webhook: the triggered run succeeded");
  const log = await call("GET", "/dag-runs/hook/" + firedJson.dagRunId + "/steps/show/log", adminToken);
  check(JSON.stringify(log.json || {}).includes('ref') && JSON.stringify(log.json || {}).includes("main"), "Webhook: the run's step saw the payload");
  await page.reload();
  await pollUntil(async () => !/never/.test(await page.locator("#webhook-last-used").innerText()), 10000, "the webhook's last use");
  check(true, "Webhook tab: the last use is shown");
  await pageShot(page, "webhook");
  await page.locator('input[data-act="toggle-webhook"]').dispatchEvent("click");
  await pollUntil(async () => (await page.locator("#webhook-state").innerText()).trim() === "disabled", 10000, "disabled");
  check((await trigger(hookToken, {})).status === 403, "Webhook tab: disabled, a POST is refused (403)");
  await page.locator('input[data-act="toggle-webhook"]').dispatchEvent("click");
  await pollUntil(async () => (await page.locator("#webhook-state").innerText()).trim() === "enabled", 10000, "enabled");
  await page.click('button[data-act="regenerate-webhook"]');
  await page.waitForSelector("#secret-once .secret-value", { timeout: 10000 });
  const newHookToken = await page.locator("#secret-once .secret-value").inputValue();
  await page.click('#secret-once button[data-act="done"]');
  check(newHookToken !== hookToken && (await trigger(hookToken, {})).status === 401, "Webhook tab: Regenerate gives a new token; the old one is refused (401)");
  check((await trigger(newHookToken, {})).status === 200, "Webhook tab: enabled again, the new token starts a run");
  // The list page.
  await page.click('.tabs a[data-tab="webhooks"]');
  await page.waitForSelector('#webhooks-table tr[data-dag="hook"]', { timeout: 10000 });
  const hookRow = await page.locator('#webhooks-table tr[data-dag="hook"]').innerText();
  check(hookRow.includes(newHookToken.slice(0, 12)) && hookRow.includes("enabled"), "Webhooks page: the row shows the token prefix and state");
  await pageShot(page, "webhooks");
  await page.click('#webhooks-table tr[data-dag="hook"] button[data-act="delete-webhook"]');
  await pollUntil(async () => (await page.locator('#webhooks-table tr[data-dag="hook"]').count()) === 0, 10000, "the webhook row to go");
  check((await trigger(newHookToken, {})).status === 401, "Webhooks page: Delete removes the webhook (its token is refused)");

  // ---- change the password through the user menu, sign out ----
  await page.click("#user-menu");
  await page.click('.menu button[data-act="change-password"]');
  await page.fill('#change-password-form input[name="current"]', ADMIN_PASS);
  await page.fill('#change-password-form input[name="new"]', "e2e-admin-pass-2");
  await page.fill('#change-password-form input[name="again"]', "e2e-admin-pass-2");
  await page.locator('#change-password-form button[type="submit"]').click();
  await pollUntil(async () => (await toastText(page)).includes("Password changed"), 10000, "the password change");
  const relogin = await call("POST", "/auth/login", null, { username: "admin", password: "e2e-admin-pass-2" });
  check(relogin.status === 200, "User menu: Change password: the new password signs in");
  // The change ended the admin's earlier sessions (beyond 1.30.2, docs/web.md).
  check((await call("GET", "/auth/me", adminToken)).status === 401, "User menu: Change password ends the earlier sessions");
  adminToken = relogin.json.token;
  await page.click("#user-menu");
  await page.click('.menu button[data-act="sign-out"]');
  await page.waitForSelector("#login-form", { timeout: 10000 });
  check(true, "User menu: Sign out shows the login form");
  await page.close();

  // ---- a viewer: no write actions, no admin pages ----
  const vp = await newPage("viewer");
  await login(vp, "vic", "vic-pass-123");
  await vp.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 15000 });
  check((await vp.locator('#dags-table button[data-act="start"]').count()) === 0, "Viewer: no Start in the DAG list");
  check(await vp.locator('#dags-table tr[data-dag="hello"] input[data-act="toggle"]').isDisabled(), "Viewer: the suspend switch is disabled");
  check((await vp.locator('button[data-act="new-dag"]').count()) === 0, "Viewer: no New DAG");
  check((await vp.locator('.tabs a[data-tab="users"]').count()) === 0, "Viewer: no admin tabs");
  await vp.goto(base + "#/dags/hello");
  await vp.waitForSelector(".page-tabs", { timeout: 10000 });
  await sleep(300);
  check((await vp.locator('.page-head button[data-act="start"], .page-head button[data-act="retry"], .page-head button[data-act="suspend"]').count()) === 0,
    "Viewer: no Start/Retry/Suspend on the DAG page");
  await pageShot(vp, "viewer-dag");
  await vp.goto(base + "#/dags/hello?tab=spec");
  await vp.waitForSelector(".spec-editor .cm-content", { timeout: 10000 });
  check((await vp.locator('button[data-act="save"]').count()) === 0, "Viewer: the spec is read only (no Save)");
  const runs = (await call("GET", "/dags/hello/dag-runs", adminToken)).json.dagRuns;
  await vp.goto(base + "#/runs/hello/" + runs[0].dagRunId);
  await vp.waitForSelector("h1.mono", { timeout: 10000 });
  await sleep(300);
  check((await vp.locator('button[data-act="retry"], button[data-act="reschedule"], button[data-act="retry-step"]').count()) === 0,
    "Viewer: no Retry/Reschedule on a run");
  // A step waiting for approval: the viewer sees it, without Approve/Reject.
  const gatedStart = await call("POST", "/dags/gated/start", adminToken, {});
  const gatedRun = "#/runs/gated/" + gatedStart.json.dagRunId;
  await vp.goto(base + gatedRun);
  await vp.waitForSelector('.approval[data-approval="gate"]', { timeout: 20000 });
  check((await vp.locator('button[data-act="approve"], button[data-act="reject"]').count()) === 0, "Viewer: a waiting step shows no Approve/Reject");
  await vp.goto(base + "#/users");
  await vp.waitForSelector("#not-allowed", { timeout: 10000 });
  check(true, "Viewer: #/users says it is for admins");
  await vp.close();

  // ---- an operator: may run, may not edit ----
  const op = await newPage("operator");
  await login(op, "olga", "olga-new-pass-1", "#/dags/hello?tab=spec");
  await op.waitForSelector(".spec-editor .cm-content", { timeout: 10000 });
  check((await op.locator('.page-head button[data-act="start"]').count()) === 1, "Operator: Start on the DAG page");
  check((await op.locator('button[data-act="save"]').count()) === 0, "Operator: the spec is read only (no Save)");
  await op.goto(base + gatedRun);
  await op.waitForSelector('.approval[data-approval="gate"] button[data-act="approve"]', { timeout: 20000 });
  check((await op.locator('button[data-act="reject"]').count()) === 1, "Operator: a waiting step shows Approve and Reject");
  await op.close();

  // ---- a 403 from the API is shown: the key's role drops while the page is open ----
  const kp = await newPage("key");
  await kp.goto(base + "#/dags/hello");
  await kp.evaluate((k) => localStorage.setItem("dagu.token", k), ciKey);
  await kp.reload();
  await kp.waitForSelector('.page-head button[data-act="start"]', { timeout: 15000 });
  const ciId = (await call("GET", "/api-keys", adminToken)).json.apiKeys.find((k) => k.name === "ci").id;
  check((await call("PATCH", "/api-keys/" + ciId, adminToken, { role: "viewer" })).status === 200, "the ci key's role is lowered to viewer");
  await kp.click('.page-head button[data-act="start"]');
  await kp.click('button[data-act="confirm-start"]');
  await kp.waitForSelector(".modal .error-box", { timeout: 10000 });
  const err = await kp.locator(".modal .error-box").innerText();
  check(/403/.test(err) && /Insufficient permissions/.test(err), "a 403 from the API is shown in the form (" + err + ")");
  await kp.close();
  await stopAllOf(srv);

  // ---- auth off: the pages say "not enabled" ----
  const np = await newPage("no-auth");
  const base2 = "http://127.0.0.1:" + open.webPort + "/";
  await np.goto(base2 + "#/dags");
  await np.waitForSelector('#dags-table tr[data-dag="hello"] button[data-act="start"]', { timeout: 15000 });
  check(true, "Auth off: Start is offered");
  check((await np.locator("#user-menu").count()) === 0 && (await np.locator('.tabs a[data-tab="users"]').count()) === 0,
    "Auth off: no user menu, no admin tabs");
  for (const [hash, what] of [["#/users", "User management"], ["#/api-keys", "API key management"], ["#/webhooks", "Webhook management"], ["#/dags/hook?tab=webhook", "Webhook management"]]) {
    await np.goto(base2 + hash);
    await np.waitForSelector("#not-enabled", { timeout: 10000 });
    check((await np.locator("#not-enabled h2").innerText()).includes(what + " is not enabled"), "Auth off: " + hash + " says " + what + " is not enabled");
  }
  await pageShot(np, "auth-off");
  await np.close();

  check(pageErrors.length === 0, "no page errors" + (pageErrors.length ? ": " + pageErrors.join("; ") : ""));
  await browser.close();
}

async function stopAllOf(p) {
  if (p.exited === null) p.child.kill("SIGTERM");
  await pollUntil(async () => p.exited !== null, 15000, p.name + " to stop");
}

main().catch((e) => { failed++; console.log("FAIL " + (e && e.stack ? e.stack : e)); })
  .then(stopAll)
  .then(() => {
    console.log(passed + " passed, " + failed + " failed");
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  });
