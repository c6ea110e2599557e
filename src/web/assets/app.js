// Dagu web UI: a small single-page app without a build step. Routes live in
// the URL fragment (#/instances, #/dags, #/dags/<file>, #/runs,
// #/runs/<dag>/<run id>, #/queues); every page polls the REST API under
// DAGU_CONFIG.apiURL and re-renders.
(function () {
  "use strict";

  var cfg = window.DAGU_CONFIG || { apiURL: "/api/v2", basePath: "", title: "Dagu", refreshMs: 3000 };
  var refreshMs = cfg.refreshMs > 0 ? cfg.refreshMs : 3000;
  var view = document.getElementById("view");
  var timer = null;
  var generation = 0; // bumps on navigation so late responses of an old page are dropped
  var pageState = {}; // per-page UI state that survives refreshes (selected step, filters)

  // ---------- helpers ----------
  function esc(v) {
    return String(v === undefined || v === null ? "" : v)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function enc(v) { return encodeURIComponent(v); }
  function parseTime(s) {
    if (!s || s === "-") return null;
    var t = Date.parse(s);
    return isNaN(t) ? null : new Date(t);
  }
  function pad(n) { return n < 10 ? "0" + n : "" + n; }
  function fmtTime(s) {
    var d = s instanceof Date ? s : parseTime(s);
    if (!d) return "–";
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }
  function fmtDuration(sec) {
    if (sec === null || sec === undefined || isNaN(sec)) return "–";
    if (sec < 0) sec = 0;
    if (sec < 10) return (Math.round(sec * 10) / 10) + "s";
    if (sec < 60) return Math.round(sec) + "s";
    var m = Math.floor(sec / 60), s = Math.round(sec % 60);
    if (m < 60) return m + "m " + s + "s";
    var h = Math.floor(m / 60);
    if (h < 48) return h + "h " + (m % 60) + "m";
    return Math.floor(h / 24) + "d " + (h % 24) + "h";
  }
  function ago(s) {
    var d = s instanceof Date ? s : parseTime(s);
    if (!d) return "–";
    return fmtDuration((Date.now() - d.getTime()) / 1000) + " ago";
  }
  function runDuration(r) {
    var a = parseTime(r.startedAt), b = parseTime(r.finishedAt);
    if (!a) return null;
    return ((b ? b.getTime() : Date.now()) - a.getTime()) / 1000;
  }
  function badge(label, cls) { return '<span class="badge ' + esc(cls || label) + '">' + esc(String(label).replace(/_/g, " ")) + "</span>"; }
  function statusBadge(r) { return r ? badge(r.statusLabel || "not_started") : '<span class="muted">never run</span>'; }
  function triggerLabel(t) {
    return ({ scheduler: "scheduled", catchup: "catch-up", manual: "manual", retry: "retry", webhook: "webhook", subdag: "sub-DAG" })[t] || (t || "–");
  }
  function toast(msg, isError) {
    var el = document.getElementById("toast");
    el.textContent = msg;
    el.className = "toast" + (isError ? " error" : "");
    el.hidden = false;
    clearTimeout(toast.t);
    toast.t = setTimeout(function () { el.hidden = true; }, isError ? 6000 : 3000);
  }

  function api(method, path, body) {
    var opts = { method: method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    return fetch(cfg.apiURL + path, opts).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : {}; } catch (e) { data = { message: text }; }
        if (!res.ok) {
          var err = new Error((data && data.message) || ("HTTP " + res.status));
          err.status = res.status;
          throw err;
        }
        return data;
      });
    });
  }
  function act(method, path, body, okMsg) {
    return api(method, path, body).then(function (data) {
      toast(okMsg + (data && data.dagRunId ? " (" + data.dagRunId + ")" : ""));
      refresh();
      return data;
    }, function (e) { toast(e.message, true); });
  }
  function setStale(stale) {
    var el = document.getElementById("refresh-state");
    el.className = stale ? "stale" : "";
    el.textContent = stale ? "reconnecting" : "live";
  }

  // ---------- routing ----------
  function route() {
    var h = location.hash.replace(/^#\/?/, "");
    var parts = h.split("/").filter(function (p) { return p !== ""; }).map(decodeURIComponent);
    if (parts.length === 0) return { page: "instances", args: [] };
    return { page: parts[0], args: parts.slice(1) };
  }
  var pages = {};
  function navigate() {
    generation++;
    pageState = {};
    var r = route();
    document.querySelectorAll(".tabs a").forEach(function (a) {
      a.classList.toggle("active", a.getAttribute("data-tab") === r.page);
    });
    view.innerHTML = '<div class="empty">Loading…</div>';
    refresh();
  }
  function refresh() {
    clearTimeout(timer);
    var r = route();
    var page = pages[r.page] || pages.instances;
    var gen = generation;
    page(r.args).then(function (html) {
      if (gen !== generation) return;
      setStale(false);
      if (html !== null) view.innerHTML = html;
    }, function (e) {
      if (gen !== generation) return;
      setStale(true);
      if (e && e.status === 401) {
        view.innerHTML = '<div class="error-box">Not authorized: the server needs credentials.</div>';
      } else if (!view.querySelector("table, .panel")) {
        view.innerHTML = '<div class="error-box">' + esc(e && e.message ? e.message : e) + "</div>";
      }
    }).then(function () {
      if (gen === generation) timer = setTimeout(refresh, refreshMs);
    });
  }

  // ---------- Instances ----------
  pages.instances = function () {
    return Promise.all([api("GET", "/services/scheduler"), api("GET", "/services/scheduler/history?limit=200")])
      .then(function (res) { return renderInstances(res[0].schedulers || [], res[1].changes || []); });
  };
  function renderInstances(list, changes) {
    var active = list.filter(function (s) { return s.role === "active"; });
    var standby = list.filter(function (s) { return s.role !== "active"; });
    var lastTakeover = null;
    for (var i = changes.length - 1; i >= 0; i--) {
      if (changes[i].to === "active" && typeof changes[i].takeoverSeconds === "number") { lastTakeover = changes[i]; break; }
    }
    var a = active[0];
    var html = '<div class="page-head"><h1>Scheduler instances</h1></div>';
    html += '<div class="cards">' +
      card("Active", active.length, a ? a.instanceId : "no active scheduler") +
      card("Standby", standby.length, standby.length ? standby.map(function (s) { return s.host; }).join(", ") : "none") +
      card("Active since", a ? fmtDuration((Date.now() - (parseTime(a.roleSince) || parseTime(a.startedAt) || new Date()).getTime()) / 1000) : "–",
        a ? fmtTime(a.roleSince || a.startedAt) : "") +
      card("Last takeover", lastTakeover ? fmtDuration(lastTakeover.takeoverSeconds) : "–",
        lastTakeover ? fmtTime(lastTakeover.time) + " by " + lastTakeover.host : "no takeover recorded") +
      "</div>";
    html += '<div class="panel flush"><table id="instances-table"><thead><tr>' +
      "<th>Instance</th><th>Role</th><th>Host</th><th>PID</th><th>Role since</th><th>Last renewal</th><th>Lock holder</th><th>Started</th>" +
      "</tr></thead><tbody>";
    if (!list.length) html += '<tr><td colspan="8" class="empty">No scheduler is registered (entries older than 30 s are ignored).</td></tr>';
    list.forEach(function (s) {
      html += '<tr data-instance="' + esc(s.instanceId) + '" data-role="' + esc(s.role) + '">' +
        '<td class="mono">' + esc(s.instanceId) + "</td>" +
        "<td>" + badge(s.role || s.status) + "</td>" +
        "<td>" + esc(s.host) + "</td>" +
        '<td class="num">' + esc(s.pid || "–") + "</td>" +
        "<td>" + (s.roleSince ? esc(fmtTime(s.roleSince)) + ' <span class="muted">(' + esc(ago(s.roleSince)) + ")</span>" : "–") + "</td>" +
        "<td" + (typeof s.reportAgeSeconds === "number" ? ' title="as reported by the instance ' + esc(fmtDuration(s.reportAgeSeconds)) + ' ago"' : "") + ">" +
        (typeof s.lastRenewalAgeSeconds === "number" ? esc(fmtDuration(s.lastRenewalAgeSeconds)) + " ago" : "–") + "</td>" +
        '<td class="mono">' + esc(s.lockHolder || "–") + "</td>" +
        "<td>" + esc(fmtTime(s.startedAt)) + "</td></tr>";
    });
    html += "</tbody></table></div>";
    html += '<div class="panel"><h2>Role history</h2>' + renderTimeline(changes) + "</div>";
    return html;
  }
  function card(label, value, sub) {
    return '<div class="card"><div class="label">' + esc(label) + '</div><div class="value">' + esc(value) +
      '</div><div class="sub" title="' + esc(sub) + '">' + esc(sub) + "</div></div>";
  }
  // One lane per instance with its active periods, then the list of changes.
  function renderTimeline(changes) {
    if (!changes.length) return '<div class="empty">No role changes recorded yet.</div>';
    var now = Date.now();
    var start = parseTime(changes[0].time).getTime();
    var span = Math.max(now - start, 1000);
    var lanes = {}, order = [];
    changes.forEach(function (c) {
      var t = parseTime(c.time);
      if (!t) return;
      if (!lanes[c.instance]) { lanes[c.instance] = { host: c.host, segs: [], open: null }; order.push(c.instance); }
      var lane = lanes[c.instance];
      if (c.to === "active") lane.open = t.getTime();
      else if (lane.open !== null) { lane.segs.push([lane.open, t.getTime(), false]); lane.open = null; }
    });
    var html = '<div class="timeline">';
    order.forEach(function (id) {
      var lane = lanes[id];
      if (lane.open !== null) lane.segs.push([lane.open, now, true]);
      html += '<div class="lane"><div class="lane-name mono" title="' + esc(id) + '">' + esc(id) + '</div><div class="lane-track">';
      lane.segs.forEach(function (s) {
        var left = (s[0] - start) / span * 100, width = (s[1] - s[0]) / span * 100;
        html += '<div class="seg' + (s[2] ? " open" : "") + '" style="left:' + left.toFixed(3) + "%;width:" + width.toFixed(3) +
          '%" title="active ' + esc(fmtTime(new Date(s[0]))) + " – " + (s[2] ? "now" : esc(fmtTime(new Date(s[1])))) + '"></div>';
      });
      html += "</div></div>";
    });
    html += '<div class="axis"><div></div><div class="axis-track"><span>' + esc(fmtTime(new Date(start))) + "</span><span>now</span></div></div></div>";
    html += '<ul class="events">';
    changes.slice().reverse().forEach(function (c) {
      var took = typeof c.takeoverSeconds === "number"
        ? '<span class="takeover" title="from the last renewal of the previous holder that this instance saw to becoming active">takeover ' + esc(fmtDuration(c.takeoverSeconds)) + "</span>"
        : "<span></span>";
      html += "<li><span>" + esc(fmtTime(c.time)) + '</span><span class="what"><span class="mono">' + esc(c.instance) + "</span> " +
        badge(c.from || "starting") + " → " + badge(c.to) + ' <span class="muted">' + esc(c.reason || "") +
        (c.previousHolder ? " (previous holder " + esc(c.previousHolder) + ")" : "") + "</span></span>" + took + "</li>";
    });
    return html + "</ul>";
  }

  // ---------- DAGs ----------
  pages.dags = function (args) {
    if (args.length) return dagDetail(args[0]);
    return api("GET", "/dags?perPage=1000").then(function (data) {
      var dags = data.dags || [];
      var html = '<div class="page-head"><h1>DAGs</h1><span class="muted">' + dags.length + " definitions</span></div>";
      if (data.errors && data.errors.length) {
        html += '<div class="error-box">' + data.errors.map(esc).join("<br>") + "</div>";
      }
      html += '<div class="panel flush"><table id="dags-table"><thead><tr><th>Name</th><th>Schedule</th><th>Next run</th>' +
        "<th>Last run</th><th>Status</th><th></th></tr></thead><tbody>";
      if (!dags.length) html += '<tr><td colspan="6" class="empty">No DAG files in the DAGs directory.</td></tr>';
      dags.forEach(function (d) {
        var dag = d.dag || {};
        var sched = dag.schedule || [];
        var next = nextRunOf(sched);
        var last = d.latestDAGRun;
        html += '<tr data-dag="' + esc(d.fileName) + '"><td><a href="#/dags/' + esc(enc(d.fileName)) + '">' + esc(dag.name || d.fileName) + "</a>" +
          (dag.description ? '<div class="muted">' + esc(dag.description) + "</div>" : "") +
          (d.errors && d.errors.length ? '<div class="badge failed">' + esc(d.errors[0]) + "</div>" : "") + "</td>" +
          "<td>" + (sched.length ? sched.map(function (s) { return "<code>" + esc(s.expression) + "</code>"; }).join("<br>") : '<span class="muted">–</span>') + "</td>" +
          "<td>" + (d.suspended ? '<span class="muted">suspended</span>' : next ? esc(fmtTime(next)) : "–") + "</td>" +
          "<td>" + statusBadge(last) + (last && last.startedAt ? '<div class="muted">' + esc(ago(last.startedAt)) + "</div>" : "") + "</td>" +
          "<td>" + (d.suspended ? badge("suspended") : badge("enabled", "inactive")) + "</td>" +
          '<td class="actions">' + dagButtons(d.fileName, d.suspended) + "</td></tr>";
      });
      return html + "</tbody></table></div>";
    });
  };
  function nextRunOf(sched) {
    var best = null;
    sched.forEach(function (s) {
      var t = parseTime(s.nextRun);
      if (t && (!best || t < best)) best = t;
    });
    return best;
  }
  function dagButtons(file, suspended) {
    return '<button class="primary" data-act="start" data-dag="' + esc(file) + '">Start</button>' +
      '<button data-act="enqueue" data-dag="' + esc(file) + '">Enqueue</button>' +
      '<button data-act="' + (suspended ? "resume" : "suspend") + '" data-dag="' + esc(file) + '">' + (suspended ? "Resume" : "Suspend") + "</button>";
  }
  function dagDetail(file) {
    return Promise.all([api("GET", "/dags/" + enc(file)), api("GET", "/dags/" + enc(file) + "/dag-runs")]).then(function (res) {
      var d = res[0], runs = res[1].dagRuns || [];
      var dag = d.dag || {};
      var html = '<div class="crumbs"><a href="#/dags">DAGs</a> / ' + esc(file) + "</div>";
      html += '<div class="page-head"><h1>' + esc(dag.name || file) + "</h1>" + (d.suspended ? badge("suspended") : "") +
        '<span class="spacer"></span>' + dagButtons(file, d.suspended) + "</div>";
      html += '<div class="panel"><dl class="kv">' +
        "<dt>Description</dt><dd>" + esc(dag.description || "–") + "</dd>" +
        "<dt>Schedule</dt><dd>" + ((dag.schedule || []).map(function (s) {
          return "<code>" + esc(s.expression) + "</code>" + (s.nextRun ? ' <span class="muted">next ' + esc(fmtTime(s.nextRun)) + "</span>" : "");
        }).join("<br>") || "–") + "</dd>" +
        "<dt>Queue</dt><dd>" + esc(dag.queue || dag.name || file) + ' <span class="muted">(max active runs ' + esc(dag.maxActiveRuns || 1) + ")</span></dd>" +
        "<dt>Tags</dt><dd>" + ((dag.tags || []).map(function (t) { return '<span class="tag">' + esc(t) + "</span>"; }).join("") || "–") + "</dd>" +
        "<dt>Steps</dt><dd>" + ((dag.steps || []).map(function (s) { return esc(s.name); }).join(" → ") || "–") + "</dd>" +
        "<dt>File</dt><dd class=\"mono\">" + esc(dag.location || "") + "</dd>" +
        "</dl>" + (d.errors && d.errors.length ? '<div class="error-box">' + d.errors.map(esc).join("<br>") + "</div>" : "") + "</div>";
      html += '<div class="panel flush"><h2>Runs</h2>' + runsTable(runs, false) + "</div>";
      return html;
    });
  }

  // ---------- Runs ----------
  pages.runs = function (args) {
    if (args.length >= 4 && args[2] === "sub") return runDetail(args[0], args[1], args[3]);
    if (args.length >= 2) return runDetail(args[0], args[1], null);
    var f = pageState.filters || (pageState.filters = { name: "", status: "", days: "7" });
    var q = "?fromDate=" + Math.floor(Date.now() / 1000 - Number(f.days) * 86400);
    if (f.name) q += "&name=" + enc(f.name);
    if (f.status !== "") q += "&status=" + enc(f.status);
    return api("GET", "/dag-runs" + q).then(function (data) {
      var runs = data.dagRuns || [];
      var focused = document.activeElement && document.activeElement.id === "filter-name";
      if (focused) return null; // keep the filter box stable while typing
      var html = '<div class="page-head"><h1>Runs</h1><span class="muted">' + runs.length + " runs</span></div>";
      html += '<div class="filters"><input id="filter-name" placeholder="DAG name" value="' + esc(f.name) + '">' +
        '<select id="filter-status">' + [["", "any status"], ["1", "running"], ["5", "queued"], ["4", "succeeded"], ["2", "failed"],
          ["3", "aborted"], ["6", "partially succeeded"]].map(function (o) {
          return '<option value="' + o[0] + '"' + (f.status === o[0] ? " selected" : "") + ">" + o[1] + "</option>";
        }).join("") + "</select>" +
        '<select id="filter-days">' + [["1", "today"], ["7", "last 7 days"], ["30", "last 30 days"]].map(function (o) {
          return '<option value="' + o[0] + '"' + (f.days === o[0] ? " selected" : "") + ">" + o[1] + "</option>";
        }).join("") + "</select></div>";
      html += '<div class="panel flush">' + runsTable(runs, true) + "</div>";
      return html;
    });
  };
  function runsTable(runs, withDag) {
    var html = '<table class="runs-table"><thead><tr>' + (withDag ? "<th>DAG</th>" : "") +
      "<th>Run ID</th><th>Status</th><th>Trigger</th><th>Schedule time</th><th>Started</th><th>Duration</th><th></th></tr></thead><tbody>";
    if (!runs.length) html += '<tr><td colspan="' + (withDag ? 8 : 7) + '" class="empty">No runs.</td></tr>';
    runs.forEach(function (r) {
      html += '<tr data-run="' + esc(r.dagRunId) + '">' + (withDag ? '<td><a href="#/runs" data-filter-dag="' + esc(r.name) + '">' + esc(r.name) + "</a></td>" : "") +
        '<td class="mono"><a href="#/runs/' + esc(enc(r.name)) + "/" + esc(enc(r.dagRunId)) + '">' + esc(r.dagRunId) + "</a></td>" +
        "<td>" + statusBadge(r) + "</td>" +
        "<td>" + esc(triggerLabel(r.triggerType)) + "</td>" +
        "<td>" + esc(fmtTime(r.scheduleTime)) + "</td>" +
        "<td>" + esc(fmtTime(r.startedAt || r.queuedAt)) + "</td>" +
        '<td class="num">' + esc(fmtDuration(runDuration(r))) + "</td>" +
        '<td class="actions">' + runButtons(r) + "</td></tr>";
    });
    return html + "</tbody></table>";
  }
  function runButtons(r) {
    var key = ' data-name="' + esc(r.name) + '" data-id="' + esc(r.dagRunId) + '"';
    if (r.statusLabel === "running") return '<button class="danger" data-act="stop"' + key + ">Stop</button>";
    if (r.statusLabel === "queued") return '<button class="danger" data-act="dequeue"' + key + ">Dequeue</button>";
    return '<button data-act="retry"' + key + ">Retry</button>";
  }
  // A run's page; with `sub`, the page of sub-DAG run `sub` of root run name/id
  // (every descendant of a root run is reached through the root).
  function runDetail(name, id, sub) {
    var base = "/dag-runs/" + enc(name) + "/" + enc(id) + (sub ? "/sub-dag-runs/" + enc(sub) : "");
    var children = "/dag-runs/" + enc(name) + "/" + enc(id) + "/sub-dag-runs" + (sub ? "?parentSubDAGRunId=" + enc(sub) : "");
    return Promise.all([api("GET", base), api("GET", children).then(function (d) { return d.subRuns || []; }, function () { return []; })]).then(function (res) {
      var r = res[0].dagRunDetails || {}, subRuns = res[1];
      var html = '<div class="crumbs"><a href="#/runs">Runs</a> / <a href="#/dags/' + esc(enc(name)) + '">' + esc(name) + "</a> / " +
        (sub ? '<a href="#/runs/' + esc(enc(name)) + "/" + esc(enc(id)) + '">' + esc(id) + "</a> / " + esc(r.name || "") + " " + esc(sub) : esc(id)) + "</div>";
      html += '<div class="page-head"><h1 class="mono">' + esc(sub || id) + "</h1>" + statusBadge(r) + '<span class="spacer"></span>' + (sub ? "" : runButtons(r)) + "</div>";
      html += '<div class="panel"><dl class="kv">' +
        "<dt>DAG</dt><dd>" + esc(r.name) + "</dd>" +
        (r.parentDAGRunId ? "<dt>Parent</dt><dd class=\"mono\">" + esc(r.parentDAGRunName + " " + r.parentDAGRunId) + "</dd>" : "") +
        "<dt>Trigger</dt><dd>" + esc(triggerLabel(r.triggerType)) + "</dd>" +
        "<dt>Schedule time</dt><dd>" + esc(fmtTime(r.scheduleTime)) + "</dd>" +
        "<dt>Started</dt><dd>" + esc(fmtTime(r.startedAt)) + "</dd>" +
        "<dt>Finished</dt><dd>" + esc(fmtTime(r.finishedAt)) + "</dd>" +
        "<dt>Duration</dt><dd>" + esc(fmtDuration(runDuration(r))) + "</dd>" +
        "<dt>Params</dt><dd class=\"mono\">" + esc(r.params || "–") + "</dd>" +
        "</dl></div>";
      var nodes = r.nodes || [];
      html += '<div class="panel flush"><h2>Steps</h2><table id="steps-table"><thead><tr><th>Step</th><th>Status</th><th>Started</th><th>Finished</th><th>Duration</th><th>Error</th></tr></thead><tbody>';
      if (!nodes.length) html += '<tr><td colspan="6" class="empty">No steps.</td></tr>';
      nodes.forEach(function (n) {
        var stepName = (n.step && n.step.name) || "";
        html += '<tr class="clickable' + (pageState.step === stepName ? " row-selected" : "") + '" data-step="' + esc(stepName) + '">' +
          "<td>" + esc(stepName) + "</td><td>" + badge(n.statusLabel || "not_started") + "</td>" +
          "<td>" + esc(fmtTime(n.startedAt)) + "</td><td>" + esc(fmtTime(n.finishedAt)) + "</td>" +
          '<td class="num">' + esc(fmtDuration(runDuration(n))) + "</td><td>" + esc(n.error || "") + "</td></tr>";
      });
      html += "</tbody></table></div>";
      // Which DAG each sub-run is: the `call` of the step that started it.
      var dagOf = {};
      nodes.forEach(function (n) {
        ((n.subRuns || []).concat(n.subRunsRepeated || [])).forEach(function (c) { dagOf[c.dagRunId] = (n.step && n.step.call) || ""; });
      });
      if (subRuns.length) html += '<div class="panel flush"><h2>Sub-DAG runs</h2>' + subRunsTable(name, id, subRuns, dagOf) + "</div>";
      var stream = pageState.stream || "stdout";
      var logPath = pageState.step
        ? base + "/steps/" + enc(pageState.step) + "/log?stream=" + stream + "&tail=500"
        : base + "/log?tail=500";
      return api("GET", logPath).then(function (log) { return log; }, function (e) { return { content: "(" + e.message + ")" }; })
        .then(function (log) {
          html += '<div class="panel"><div class="page-head"><h2>' + (pageState.step ? "Log of step " + esc(pageState.step) : "Run log") + "</h2>" +
            '<span class="spacer"></span>' + (pageState.step
              ? '<span class="seg-tabs"><button data-stream="stdout" class="' + (stream === "stdout" ? "on" : "") + '">stdout</button>' +
                '<button data-stream="stderr" class="' + (stream === "stderr" ? "on" : "") + '">stderr</button></span> <button data-step-clear="1">Run log</button>'
              : '<span class="muted">click a step for its log</span>') + "</div>" +
            '<pre class="log" id="log">' + esc(log.content || "(empty)") + "</pre></div>";
          return html;
        });
    });
  }

  function subRunsTable(name, id, subRuns, dagOf) {
    var html = '<table id="subruns-table"><thead><tr><th>Sub-run ID</th><th>DAG</th><th>Params</th><th>Status</th><th>Started</th><th>Duration</th></tr></thead><tbody>';
    subRuns.forEach(function (c) {
      html += '<tr data-subrun="' + esc(c.dagRunId) + '"><td class="mono"><a href="#/runs/' + esc(enc(name)) + "/" + esc(enc(id)) + "/sub/" + esc(enc(c.dagRunId)) + '">' +
        esc(c.dagRunId) + "</a></td><td>" + esc(dagOf[c.dagRunId] || "") + '</td><td class="mono">' + esc(c.params || "") + "</td><td>" + statusBadge(c) + "</td>" +
        "<td>" + esc(fmtTime(c.startedAt)) + '</td><td class="num">' + esc(fmtDuration(runDuration(c))) + "</td></tr>";
    });
    return html + "</tbody></table>";
  }

  // ---------- Queue ----------
  pages.queues = function () {
    return api("GET", "/queues").then(function (data) {
      var qs = data.queues || [], sum = data.summary || {};
      var html = '<div class="page-head"><h1>Queues</h1></div>';
      html += '<div class="cards">' + card("Queues", sum.totalQueues || 0, "") + card("Running", sum.totalRunning || 0, "") +
        card("Queued", sum.totalQueued || 0, "") + card("Capacity", sum.totalCapacity || 0, (sum.utilizationPercentage || 0) + "% used") + "</div>";
      if (!qs.length) html += '<div class="panel empty">No queue has running or waiting items.</div>';
      qs.forEach(function (q) {
        var running = q.running || [], queued = q.queued || [];
        html += '<div class="panel flush queue" data-queue="' + esc(q.name) + '"><h2>' + esc(q.name) + ' <span class="tag">' + esc(q.type) + "</span> " +
          '<span class="muted">' + running.length + " / " + esc(q.maxConcurrency) + " running, " + queued.length + " queued</span></h2>" +
          runsTable(running.concat(queued), true) + "</div>";
      });
      return html;
    });
  };

  // ---------- events ----------
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest("button, [data-step], [data-filter-dag]");
    if (!t) return;
    var a = t.getAttribute("data-act");
    var dag = t.getAttribute("data-dag");
    var name = t.getAttribute("data-name"), id = t.getAttribute("data-id");
    if (t.hasAttribute("data-filter-dag")) {
      ev.preventDefault();
      pageState.filters = pageState.filters || { name: "", status: "", days: "7" };
      pageState.filters.name = t.getAttribute("data-filter-dag");
      refresh();
      return;
    }
    if (a === "start") act("POST", "/dags/" + enc(dag) + "/start", {}, "Started " + dag);
    else if (a === "enqueue") act("POST", "/dags/" + enc(dag) + "/enqueue", {}, "Enqueued " + dag);
    else if (a === "suspend" || a === "resume") act("POST", "/dags/" + enc(dag) + "/suspend", { suspend: a === "suspend" }, (a === "suspend" ? "Suspended " : "Resumed ") + dag);
    else if (a === "stop") act("POST", "/dag-runs/" + enc(name) + "/" + enc(id) + "/stop", {}, "Stop requested for " + id);
    else if (a === "retry") act("POST", "/dag-runs/" + enc(name) + "/" + enc(id) + "/retry", { dagRunId: id }, "Retrying " + id);
    else if (a === "dequeue") act("GET", "/dag-runs/" + enc(name) + "/" + enc(id) + "/dequeue", undefined, "Dequeued " + id);
    else if (t.hasAttribute("data-stream")) { pageState.stream = t.getAttribute("data-stream"); refresh(); }
    else if (t.hasAttribute("data-step-clear")) { pageState.step = null; refresh(); }
    else if (t.hasAttribute("data-step")) { pageState.step = t.getAttribute("data-step"); pageState.stream = "stdout"; refresh(); }
  });
  document.addEventListener("change", function (ev) {
    var f = pageState.filters;
    if (!f) return;
    if (ev.target.id === "filter-status") f.status = ev.target.value;
    else if (ev.target.id === "filter-days") f.days = ev.target.value;
    else if (ev.target.id === "filter-name") f.name = ev.target.value.trim();
    else return;
    ev.target.blur();
    refresh();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.target.id === "filter-name" && ev.key === "Enter") ev.target.blur();
  });

  document.getElementById("version").textContent = cfg.version || "";
  if (cfg.navbarColor) document.getElementById("topbar").style.background = cfg.navbarColor;
  window.addEventListener("hashchange", navigate);
  navigate();
})();
