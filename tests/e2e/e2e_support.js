// Helpers shared by the end-to-end scripts (web_ui_e2e.js, web_ui_auth_e2e.js,
// dagu_ui_proxy_e2e.js): waiting and finding a free port.
"use strict";
const net = require("net");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Calls fn every 200 ms until it returns something truthy (returned), or
// throws after timeoutMs naming `what` and the last answer or error.
async function pollUntil(fn, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try { last = await fn(); if (last) return last; } catch (e) { last = e.message; }
    await sleep(200);
  }
  throw new Error("timed out waiting for " + what + " (last: " + JSON.stringify(last) + ")");
}

// A TCP port free on 127.0.0.1 now.
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
    s.on("error", reject);
  });
}

module.exports = { sleep, pollUntil, freePort };
