// OIDC single sign-on in real headless Chromium (Debian's /usr/bin/chromium
// driven by playwright-core), against `dagu start-all` with auth.oidc and a
// small OpenID provider this script serves itself: a real RSA key (node's
// crypto), the discovery document, JWKS, an authorization endpoint that
// signs a chosen user in at once and redirects back with a code, the token
// endpoint (client id and secret in HTTP basic auth; RS256 ID tokens with
// the nonce) and userinfo.
//  - the page opens the UI, is redirected to the provider and back, and is
//    signed in: the DAG list shows, and the page's own fetch of the API
//    (with the HttpOnly oidcToken cookie) answers 200 and /auth/me names the
//    user;
//  - signing out (the cookie deleted; Dagu 1.30.2 has no OIDC logout, nor
//    has this binary) ends the session: the API answers 401 and the next
//    page load goes to the provider again;
//  - a user whose e-mail is off the whitelist ends on the "No permissions"
//    page (403) with no session cookie.
//
// usage: node oidc_login_e2e.js <dagu binary> <node_modules dir> <output dir>
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const http = require("http");
const os = require("os");
const path = require("path");
const { spawn } = require("child_process");

if (process.argv.length < 5) {
  console.error("usage: node oidc_login_e2e.js <dagu binary> <node_modules dir> <output dir>");
  process.exit(2);
}
const [daguBinary, nodeModules, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
const { chromium } = require(path.join(nodeModules, "playwright-core"));
const { sleep, pollUntil, freePort } = require("./e2e_support");

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];
const CLIENT_ID = "dagu-e2e", CLIENT_SECRET = "dagu-e2e-secret";
const USERS = {
  alice: { sub: "u-alice", email: "alice@example.com", preferred_username: "alice" },
  mallory: { sub: "u-mallory", email: "mallory@example.com", preferred_username: "mallory" },
};

let passed = 0, failed = 0;
const procs = [];
function check(ok, what) {
  if (ok) { passed++; console.log("ok   " + what); } else { failed++; console.log("FAIL " + what); }
  return ok;
}

const b64url = (buf) => Buffer.from(buf).toString("base64").replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

// The provider: signs in `provider.user` at /authorize.
async function startProvider() {
  const port = await freePort();
  const issuer = "http://127.0.0.1:" + port;
  const { publicKey, privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = Object.assign(publicKey.export({ format: "jwk" }), { kid: "e2e-key", alg: "RS256", use: "sig" });
  const codes = new Map(), tokens = new Map();
  const provider = { issuer, user: "alice", authorizations: 0, server: null };
  const sign = (claims) => {
    const head = b64url(JSON.stringify({ alg: "RS256", kid: "e2e-key", typ: "JWT" }));
    const body = b64url(JSON.stringify(claims));
    return head + "." + body + "." + b64url(crypto.sign("sha256", Buffer.from(head + "." + body), privateKey));
  };
  const json = (res, status, doc) => { res.writeHead(status, { "Content-Type": "application/json" }); res.end(JSON.stringify(doc)); };
  provider.server = http.createServer((req, res) => {
    const url = new URL(req.url, issuer);
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      if (url.pathname === "/.well-known/openid-configuration") {
        return json(res, 200, {
          issuer, authorization_endpoint: issuer + "/authorize", token_endpoint: issuer + "/token",
          userinfo_endpoint: issuer + "/userinfo", jwks_uri: issuer + "/jwks",
          response_types_supported: ["code"], subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
        });
      }
      if (url.pathname === "/jwks") return json(res, 200, { keys: [jwk] });
      if (url.pathname === "/authorize") {
        provider.authorizations++;
        const q = url.searchParams;
        if (q.get("client_id") !== CLIENT_ID || q.get("response_type") !== "code") return json(res, 400, { error: "invalid_request" });
        const code = crypto.randomBytes(16).toString("hex");
        codes.set(code, { user: USERS[provider.user], nonce: q.get("nonce") });
        const back = new URL(q.get("redirect_uri"));
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state"));
        res.writeHead(302, { Location: back.toString() });
        return res.end();
      }
      if (url.pathname === "/token" && req.method === "POST") {
        const basic = Buffer.from((req.headers.authorization || "").replace(/^Basic /, ""), "base64").toString();
        const form = new URLSearchParams(body);
        const grant = codes.get(form.get("code"));
        const [id, secret] = basic.split(":").map(decodeURIComponent);
        if (id !== CLIENT_ID || secret !== CLIENT_SECRET) return json(res, 401, { error: "invalid_client" });
        if (!grant) return json(res, 400, { error: "invalid_grant" });
        codes.delete(form.get("code"));
        const access = crypto.randomBytes(16).toString("hex");
        tokens.set(access, grant.user);
        const now = Math.floor(Date.now() / 1000);
        const idToken = sign(Object.assign({ iss: issuer, aud: CLIENT_ID, iat: now, exp: now + 3600, nonce: grant.nonce }, grant.user));
        return json(res, 200, { access_token: access, token_type: "Bearer", expires_in: 3600, id_token: idToken });
      }
      if (url.pathname === "/userinfo") {
        const user = tokens.get((req.headers.authorization || "").replace(/^Bearer /, ""));
        return user ? json(res, 200, user) : json(res, 401, { error: "invalid_token" });
      }
      json(res, 404, { error: "not_found" });
    });
  });
  await new Promise((r) => provider.server.listen(port, "127.0.0.1", r));
  return provider;
}

async function startAll(home, provider) {
  const webPort = await freePort(), healthPort = await freePort();
  const env = Object.assign({}, process.env, {
    DAGU_HOME: home, HOME: path.join(home, "..", "user"), DAGU_SCHEDULER_PORT: String(healthPort),
    DAGU_PORT: "", DAGU_HOST: "", DAGU_BASICAUTH_USERNAME: "", DAGU_BASICAUTH_PASSWORD: "", DAGU_AUTHTOKEN: "",
    DAGU_AUTH_MODE: "", DAGU_BASE_PATH: "", DAGU_SKIP_EXAMPLES: "true",
    DAGU_AUTH_OIDC_CLIENT_ID: CLIENT_ID, DAGU_AUTH_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    DAGU_AUTH_OIDC_CLIENT_URL: "http://127.0.0.1:" + webPort, DAGU_AUTH_OIDC_ISSUER: provider.issuer,
    DAGU_AUTH_OIDC_SCOPES: "openid,profile,email", DAGU_AUTH_OIDC_WHITELIST: "alice@example.com",
  });
  const log = fs.openSync(path.join(outDir, "e2e-oidc.log"), "w");
  const child = spawn(daguBinary, ["start-all", "--host", "127.0.0.1", "--port", String(webPort)],
    { env, stdio: ["ignore", log, log] });
  const p = { child, webPort, exited: null };
  child.on("exit", (code, sig) => { p.exited = code !== null ? code : 128 + (os.constants.signals[sig] || 0); });
  procs.push(p);
  await pollUntil(async () => (await fetch("http://127.0.0.1:" + webPort + "/api/v2/health")).ok, 30000, "the web server");
  return p;
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dagu-e2e-oidc-"));
  const home = path.join(tmp, "home");
  fs.mkdirSync(path.join(home, "dags"), { recursive: true });
  fs.mkdirSync(path.join(tmp, "user"), { recursive: true });
  fs.writeFileSync(path.join(home, "dags", "hello.yaml"), "steps:\n  - name: greet\n    command: echo hello\n");
  const provider = await startProvider();
  const srv = await startAll(home, provider);
  const base = "http://127.0.0.1:" + srv.webPort;

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  const pageErrors = [];

  // ---- a whitelisted user signs in through the provider ----
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  // 401: the API after signing out, asked for below.
  page.on("console", (m) => { if (m.type() === "error" && !/401/.test(m.text())) pageErrors.push(m.text()); });
  const visited = [];
  page.on("request", (r) => { if (r.isNavigationRequest()) visited.push(r.url()); });
  await page.goto(base + "/dags#/dags");
  try {
    await page.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 20000 });
  } catch (e) {
    console.log("at " + page.url() + " after " + JSON.stringify(visited) + ":\n" + (await page.content()).slice(0, 2000));
    throw e;
  }
  check(visited.some((u) => u.startsWith(provider.issuer + "/authorize?")), "the UI redirected the browser to the provider's authorize endpoint");
  check(visited.some((u) => u.startsWith(base + "/oidc-callback?code=")), "the provider redirected back to /oidc-callback with a code");
  check(new URL(page.url()).pathname === "/dags", "after the callback the browser is back on /dags (" + page.url() + ")");
  const cookies = await ctx.cookies(base);
  const token = cookies.find((c) => c.name === "oidcToken");
  check(token && token.httpOnly && token.sameSite === "Lax", "the oidcToken cookie is set, HttpOnly and SameSite=Lax");
  check(!cookies.some((c) => ["state", "nonce", "originalURL"].includes(c.name)), "the login's transient cookies are cleared");
  const fromPage = (p) => page.evaluate(async (u) => {
    const r = await fetch(u);
    return { status: r.status, body: await r.text() };
  }, p);
  const dags = await fromPage("/api/v2/dags");
  check(dags.status === 200 && dags.body.includes("hello"), "the page's own fetch of /api/v2/dags answers 200 with the cookie");
  const me = await fromPage("/api/v2/auth/me");
  let user = {};
  try { user = JSON.parse(me.body).user || {}; } catch { /* checked below */ }
  check(me.status === 200 && user.username === "alice" && user.role === "admin" && user.id === "u-alice",
    "/api/v2/auth/me names the signed-in user (" + me.body.trim() + ")");
  const bare = await fetch(base + "/api/v2/dags");
  check(bare.status === 401, "the API without the cookie answers 401");

  // ---- sign out: the cookie is deleted ----
  await ctx.clearCookies();
  const after = await fromPage("/api/v2/dags");
  check(after.status === 401 && /OIDC token cookie not found/.test(after.body), "after signing out the API answers 401 (" + after.body.trim() + ")");
  const before = provider.authorizations;
  await page.goto(base + "/#/dags");  // another path: a full page load
  await page.waitForSelector('#dags-table tr[data-dag="hello"]', { timeout: 20000 });
  check(provider.authorizations === before + 1, "the next page load went through the provider again");
  await ctx.close();

  // ---- a user off the whitelist ----
  provider.user = "mallory";
  const ctx2 = await browser.newContext();
  const page2 = await ctx2.newPage();
  let callbackStatus = 0;
  page2.on("response", (r) => { if (r.url().startsWith(base + "/oidc-callback")) callbackStatus = r.status(); });
  await page2.goto(base + "/dags#/dags");
  await page2.waitForLoadState("load");
  const text = await page2.locator("body").innerText();
  check(callbackStatus === 403 && /No permissions/.test(text), "an e-mail off the whitelist ends on the 403 page (" + text.trim() + ")");
  check(!(await ctx2.cookies(base)).some((c) => c.name === "oidcToken"), "and gets no oidcToken cookie");
  const denied = await page2.evaluate(async () => (await fetch("/api/v2/dags")).status);
  check(denied === 401, "its API calls answer 401");
  await ctx2.close();

  check(pageErrors.length === 0, "no page errors" + (pageErrors.length ? ": " + pageErrors.join("; ") : ""));
  await browser.close();
  provider.server.close();
}

async function stopAll() {
  for (const p of procs) if (p.exited === null) p.child.kill("SIGTERM");
  const deadline = Date.now() + 15000;
  while (procs.some((p) => p.exited === null) && Date.now() < deadline) await sleep(100);
  for (const p of procs) if (p.exited === null) p.child.kill("SIGKILL");
}

main().catch((e) => { failed++; console.log("FAIL " + (e && e.stack ? e.stack : e)); })
  .then(stopAll)
  .then(() => {
    console.log(passed + " passed, " + failed + " failed");
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  });
