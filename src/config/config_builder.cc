#include "config/config_builder.h"

#include <date/tz.h>

#include <set>

#include "config/config_keys.h"
#include "config/value_parse.h"
#include "core/duration.h"

namespace dagu::config_internal {
namespace {

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// Reads typed values out of Settings; an unset key leaves *out unchanged.
class Reader {
 public:
  Reader(const Settings& settings, const BuildContext& context) : settings_(settings), context_(context) {}

  const Setting* Find(const std::string& key) const {
    auto it = settings_.find(key);
    return it == settings_.end() ? nullptr : &it->second;
  }

  // "<value> (<origin>)" for cross-key messages; "default" when unset.
  std::string Describe(const std::string& key, const std::string& formatted) const {
    const Setting* s = Find(key);
    return key + " " + Quote(formatted) + " (" + (s ? s->origin : std::string("default")) + ")";
  }

  static Status Bad(const Setting& s, const std::string& problem) {
    return Status::InvalidArgument(s.origin + ": " + problem);
  }

  Status String(const std::string& key, std::string* out) const {
    if (const Setting* s = Find(key)) *out = s->value;
    return Status::OK();
  }

  Status OneOf(const std::string& key, const std::set<std::string>& allowed, std::string* out) const {
    const Setting* s = Find(key);
    if (s == nullptr) return Status::OK();
    if (allowed.count(s->value) == 0) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + (a.empty() ? "\"\"" : a);
      return Bad(*s, Quote(s->value) + " is not one of: " + list);
    }
    *out = s->value;
    return Status::OK();
  }

  Status Bool(const std::string& key, bool* out) const {
    const Setting* s = Find(key);
    if (s != nullptr && !ParseBool(s->value, out)) return Bad(*s, Quote(s->value) + " is not true or false");
    return Status::OK();
  }

  Status Int(const std::string& key, int min, int max, int* out) const {
    const Setting* s = Find(key);
    if (s == nullptr) return Status::OK();
    int value = 0;
    if (!ParseInt(s->value, &value)) return Bad(*s, Quote(s->value) + " is not a whole number");
    if (value < min || value > max) {
      return Bad(*s, Quote(s->value) + " is out of range (" + std::to_string(min) + " to " +
                         std::to_string(max) + ")");
    }
    *out = value;
    return Status::OK();
  }

  // `zero_ok`: 0 is allowed (it disables the feature); negatives never are.
  Status Duration(const std::string& key, bool zero_ok, std::chrono::nanoseconds* out) const {
    const Setting* s = Find(key);
    if (s == nullptr) return Status::OK();
    std::chrono::nanoseconds value{};
    Status parsed = ParseDuration(s->value, &value);
    if (!parsed.ok()) return Bad(*s, parsed.message());
    if (value.count() < 0 || (value.count() == 0 && !zero_ok)) {
      return Bad(*s, Quote(s->value) + (zero_ok ? " must not be negative" : " must be greater than zero"));
    }
    *out = value;
    return Status::OK();
  }

  // A list written as a YAML list or as one comma-separated value (an
  // environment variable); items trimmed, empty ones dropped.
  Status StringList(const std::string& key, std::vector<std::string>* out) const {
    const Setting* s = Find(key);
    if (s == nullptr) return Status::OK();
    std::vector<std::string> raw;
    if (s->node.IsDefined() && s->node.IsSequence()) {
      for (const YAML::Node& item : s->node) raw.push_back(item.Scalar());
    } else {
      size_t start = 0;
      for (;;) {
        size_t comma = s->value.find(',', start);
        raw.push_back(s->value.substr(start, comma == std::string::npos ? comma : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
    out->clear();
    for (std::string& item : raw) {
      size_t b = item.find_first_not_of(" \t");
      size_t e = item.find_last_not_of(" \t");
      if (b != std::string::npos) out->push_back(item.substr(b, e - b + 1));
    }
    return Status::OK();
  }

  // Dagu 1.30.2's worker labels: a YAML mapping (a null or structured
  // value is skipped; unlike 1.30.2, an unquoted `true` or `64` counts as
  // the text "true"/"64" instead of being dropped), or one value
  // "k1=v1,k2=v2" (an environment variable, a flag): items trimmed, an item
  // without '=' or with an empty key skipped (its parseWorkerLabels).
  Status Labels(const std::string& key, std::map<std::string, std::string>* out) const {
    const Setting* s = Find(key);
    if (s == nullptr) return Status::OK();
    out->clear();
    if (s->node.IsDefined() && s->node.IsMap()) {
      for (auto it = s->node.begin(); it != s->node.end(); ++it) {
        if (it->second.IsScalar()) (*out)[it->first.Scalar()] = it->second.Scalar();
      }
      return Status::OK();
    }
    size_t start = 0;
    const std::string& text = s->value;
    for (;;) {
      size_t comma = text.find(',', start);
      std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
      size_t eq = item.find('=');
      if (eq != std::string::npos) {
        std::string k = Trimmed(item.substr(0, eq));
        if (!k.empty()) (*out)[k] = Trimmed(item.substr(eq + 1));
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return Status::OK();
  }

  static std::string Trimmed(const std::string& item) {
    size_t b = item.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    size_t e = item.find_last_not_of(" \t");
    return item.substr(b, e - b + 1);
  }

  // Sets *out to the resolved path, or to `fallback` when unset or empty.
  Status Path(const std::string& key, const std::string& fallback, std::string* out) const {
    *out = fallback;
    const Setting* s = Find(key);
    if (s == nullptr) return Status::OK();
    std::string resolved;
    Status r = ResolvePath(s->value, *context_.env, context_.cwd, &resolved);
    if (!r.ok()) return Bad(*s, r.message());
    if (!resolved.empty()) *out = resolved;
    return Status::OK();
  }

 private:
  const Settings& settings_;
  const BuildContext& context_;
};

Status BuildPaths(const Reader& r, const HomeLayout& layout, const BuildContext& context, Paths* p) {
  p->home = layout.home;
  p->config_dir = layout.config_dir;
  DAGU_RETURN_IF_ERROR(r.Path("paths.dags_dir", layout.dags_dir, &p->dags_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.data_dir", layout.data_dir, &p->data_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.log_dir", layout.log_dir, &p->log_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.admin_logs_dir", layout.admin_logs_dir, &p->admin_logs_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.suspend_flags_dir", layout.suspend_flags_dir, &p->suspend_flags_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.base_config", layout.base_config, &p->base_config));
  // Derived after every override, as Dagu's finalizePaths does.
  DAGU_RETURN_IF_ERROR(r.Path("paths.dag_runs_dir", JoinPath(p->data_dir, "dag-runs"), &p->dag_runs_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.proc_dir", JoinPath(p->data_dir, "proc"), &p->proc_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.queue_dir", JoinPath(p->data_dir, "queue"), &p->queue_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.service_registry_dir", JoinPath(p->data_dir, "service-registry"),
                              &p->service_registry_dir));
  p->scheduler_dir = JoinPath(p->data_dir, "scheduler");
  DAGU_RETURN_IF_ERROR(r.Path("paths.users_dir", JoinPath(p->data_dir, "users"), &p->users_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.api_keys_dir", JoinPath(p->data_dir, "apikeys"), &p->api_keys_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.webhooks_dir", JoinPath(p->data_dir, "webhooks"), &p->webhooks_dir));
  DAGU_RETURN_IF_ERROR(r.Path("paths.executable", context.default_executable, &p->executable));
  return Status::OK();
}

Status BuildCoordinator(const Reader& r, CoordinatorConfig* c) {
  DAGU_RETURN_IF_ERROR(r.String("coordinator.host", &c->host));
  DAGU_RETURN_IF_ERROR(r.Int("coordinator.port", 0, 65535, &c->port));
  DAGU_RETURN_IF_ERROR(r.String("coordinator.advertise", &c->advertise));
  DAGU_RETURN_IF_ERROR(r.Bool("coordinator.ha", &c->ha));
  DAGU_RETURN_IF_ERROR(r.String("coordinator.metrics_host", &c->metrics_host));
  DAGU_RETURN_IF_ERROR(r.Int("coordinator.metrics_port", 0, 65535, &c->metrics_port));
  return Status::OK();
}

Status BuildWorker(const Reader& r, WorkerConfig* w) {
  DAGU_RETURN_IF_ERROR(r.String("worker.id", &w->id));
  DAGU_RETURN_IF_ERROR(r.Int("worker.max_active_runs", 1, 100000, &w->max_active_runs));
  DAGU_RETURN_IF_ERROR(r.Labels("worker.labels", &w->labels));
  DAGU_RETURN_IF_ERROR(r.String("worker.metrics_host", &w->metrics_host));
  DAGU_RETURN_IF_ERROR(r.Int("worker.metrics_port", 0, 65535, &w->metrics_port));
  return Status::OK();
}

Status BuildPeer(const Reader& r, PeerConfig* p) {
  DAGU_RETURN_IF_ERROR(r.String("peer.cert_file", &p->cert_file));
  DAGU_RETURN_IF_ERROR(r.String("peer.key_file", &p->key_file));
  DAGU_RETURN_IF_ERROR(r.String("peer.client_ca_file", &p->client_ca_file));
  DAGU_RETURN_IF_ERROR(r.Bool("peer.skip_tls_verify", &p->skip_tls_verify));
  DAGU_RETURN_IF_ERROR(r.Bool("peer.insecure", &p->insecure));
  return Status::OK();
}

Status BuildScheduler(const Reader& r, SchedulerConfig* s) {
  DAGU_RETURN_IF_ERROR(r.Int("scheduler.port", 0, 65535, &s->port));
  DAGU_RETURN_IF_ERROR(r.String("scheduler.health_host", &s->health_host));
  DAGU_RETURN_IF_ERROR(r.Duration("scheduler.lock_stale_threshold", false, &s->lock_stale_threshold));
  DAGU_RETURN_IF_ERROR(r.Duration("scheduler.lock_retry_interval", false, &s->lock_retry_interval));
  DAGU_RETURN_IF_ERROR(r.Duration("scheduler.failover_recovery_window", true, &s->failover_recovery_window));
  DAGU_RETURN_IF_ERROR(r.Duration("scheduler.zombie_detection_interval", true, &s->zombie_detection_interval));
  DAGU_RETURN_IF_ERROR(r.Duration("scheduler.arm_lead", true, &s->arm_lead));
  DAGU_RETURN_IF_ERROR(r.Bool("scheduler.fast_takeover", &s->fast_takeover));
  if (s->arm_lead > std::chrono::seconds(30)) {
    return Status::InvalidArgument(r.Describe("scheduler.arm_lead", FormatDuration(s->arm_lead)) +
                                   " must be at most 30s");
  }
  if (s->lock_retry_interval >= s->lock_stale_threshold) {
    return Status::InvalidArgument(
        r.Describe("scheduler.lock_retry_interval", FormatDuration(s->lock_retry_interval)) +
        " must be shorter than " +
        r.Describe("scheduler.lock_stale_threshold", FormatDuration(s->lock_stale_threshold)));
  }
  return Status::OK();
}

Status QueueItemError(const Setting& list, const YAML::Node& item, const std::string& problem) {
  return Status::InvalidArgument(list.file + " line " + std::to_string(item.Mark().line + 1) +
                                 ": queues.config: " + problem);
}

// One {name, max_active_runs | maxActiveRuns | max_concurrency | maxConcurrency}.
Status ParseQueueItem(const Setting& list, const YAML::Node& item, QueueConfig* queue,
                      std::vector<std::string>* warnings) {
  if (!item.IsMap()) return QueueItemError(list, item, "each queue must be a mapping with a name");
  std::optional<int> max_active_runs;
  std::optional<int> max_concurrency;
  for (auto it = item.begin(); it != item.end(); ++it) {
    std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    std::string normalized = NormalizeSegment(key);
    const YAML::Node value = it->second;  // a copy: it-> yields a temporary
    if (normalized != "name" && normalized != "maxactiveruns" && normalized != "maxconcurrency") {
      warnings->push_back(list.file + " line " + std::to_string(it->first.Mark().line + 1) +
                          ": unknown key \"queues.config." + key +
                          "\" is ignored; a queue has name and max_active_runs (1.30.2: maxActiveRuns) "
                          "or max_concurrency (1.30.2: maxConcurrency)");
      continue;
    }
    if (!value.IsScalar()) return QueueItemError(list, value, key + " must be a single value");
    if (normalized == "name") {
      queue->name = value.Scalar();
      continue;
    }
    int n = 0;
    if (!ParseInt(value.Scalar(), &n) || n < 1) {
      return QueueItemError(list, value, key + ": " + Quote(value.Scalar()) + " is not a whole number of at least 1");
    }
    (normalized == "maxactiveruns" ? max_active_runs : max_concurrency) = n;
  }
  if (queue->name.empty()) return QueueItemError(list, item, "a queue has no name");
  // As in Dagu, the older max_active_runs wins over max_concurrency.
  queue->max_active_runs = max_active_runs.value_or(max_concurrency.value_or(1));
  return Status::OK();
}

Status BuildQueues(const Reader& r, QueuesConfig* q, std::vector<std::string>* warnings) {
  DAGU_RETURN_IF_ERROR(r.Bool("queues.enabled", &q->enabled));
  const Setting* list = r.Find("queues.config");
  if (list == nullptr) return Status::OK();
  std::set<std::string> names;
  for (const YAML::Node& item : list->node) {
    QueueConfig queue;
    DAGU_RETURN_IF_ERROR(ParseQueueItem(*list, item, &queue, warnings));
    if (!names.insert(queue.name).second) {
      return QueueItemError(*list, item, "queue " + Quote(queue.name) + " is configured twice");
    }
    q->config.push_back(queue);
  }
  return Status::OK();
}

Status CheckTimeZone(const Reader& r, std::string* tz) {
  DAGU_RETURN_IF_ERROR(r.String("tz", tz));
  if (*tz == "Local") tz->clear();  // Go's name for the local zone
  if (tz->empty()) return Status::OK();
  try {
    date::locate_zone(*tz);
  } catch (const std::exception&) {
    return Reader::Bad(*r.Find("tz"), Quote(*tz) + " is not a time zone of the IANA database (e.g. \"Europe/Berlin\")");
  }
  return Status::OK();
}

// Go's path.Clean, made absolute; "/" becomes "" (Dagu's cleanServerBasePath).
std::string CleanBasePath(const std::string& base) {
  if (base.empty()) return "";
  std::string cleaned = CleanPath(base.front() == '/' ? base : "/" + base);
  return cleaned == "/" ? "" : cleaned;
}

// Where a key was set, for auth messages (values are secrets: never shown).
std::string Origin(const Reader& r, const std::string& key) {
  const Setting* s = r.Find(key);
  return s ? s->origin : key;
}

// The shortest auth.builtin.token.secret `auth.mode: builtin` accepts
// (1.30.2 accepts any non-empty one; a shorter secret is refused, exit 78).
constexpr size_t kMinTokenSecretBytes = 16;

// Why the web server must refuse these auth settings, or "" (AuthConfig::error).
// Any request for authentication that cannot be honoured is refused, never
// ignored: an ignored one would leave the API open.
std::string AuthError(const Reader& r, const AuthConfig& a, bool legacy_basic, bool legacy_token) {
  // 1.30.2 turns OIDC on when client id, secret and issuer are set; with
  // auth.mode: oidc and one of them missing it serves an API nobody can
  // sign in to. Refused here, naming what is missing.
  if (a.mode == "oidc" && !a.oidc_enabled) {
    const char* missing = a.oidc_client_id.empty() ? "auth.oidc.client_id" :
                          a.oidc_client_secret.empty() ? "auth.oidc.client_secret" : "auth.oidc.issuer";
    return Origin(r, "auth.mode") + ": auth mode \"oidc\" needs auth.oidc.client_id, auth.oidc.client_secret "
           "and auth.oidc.issuer, and " + missing + " is not set";
  }
  if (a.oidc_enabled && a.oidc_client_url.empty()) {
    // 1.30.2: "failed to init OIDC provider: client url is empty" (exit 1).
    return Origin(r, "auth.oidc.issuer") + ": OIDC needs auth.oidc.client_url (the URL users reach this "
           "server at; the provider redirects to <client_url>/oidc-callback), and it is not set";
  }
  if (a.mode == "builtin") {
    // 1.30.2 refuses a missing secret too (at config load, exit 1); a weak
    // one it accepts, this binary refuses (docs/web.md, "Builtin users").
    if (a.token_secret.empty()) {
      return Origin(r, "auth.mode") + ": auth mode \"builtin\" needs auth.builtin.token.secret "
             "(DAGU_AUTH_TOKEN_SECRET) to sign its tokens, and it is not set";
    }
    if (a.token_secret.size() < kMinTokenSecretBytes) {
      return Origin(r, "auth.builtin.token.secret") + " is too weak: a token secret needs at least " +
             std::to_string(kMinTokenSecretBytes) + " bytes (use e.g. `openssl rand -hex 32`)";
    }
  }
  bool has_user = !a.basic_username.empty(), has_password = !a.basic_password.empty();
  if (has_user != has_password) {
    const char* missing = has_user ? "auth.basic.password" : "auth.basic.username";
    return Origin(r, has_user ? "auth.basic.username" : "auth.basic.password") + " is set but " + missing +
           " is not: basic auth needs both";
  }
  if (a.mode == "basic" && !a.basic_enabled) {
    return Origin(r, "auth.mode") + ": auth mode \"basic\" needs auth.basic.username and auth.basic.password, "
           "which are not set";
  }
  if (legacy_basic && !a.basic_enabled) {
    return Origin(r, "is_basic_auth") + " is true but auth.basic.username and auth.basic.password are not set";
  }
  if (legacy_token && !a.token_enabled) {
    return Origin(r, "is_auth_token") + " is true but auth.token.value (1.30.2: authToken) is not set";
  }
  return "";
}

Status BuildAuth(const Reader& r, Config* c) {
  AuthConfig& a = c->auth;
  DAGU_RETURN_IF_ERROR(r.OneOf("auth.mode", {"", "none", "basic", "builtin", "oidc"}, &a.mode));
  DAGU_RETURN_IF_ERROR(r.String("auth.basic.username", &a.basic_username));
  DAGU_RETURN_IF_ERROR(r.String("auth.basic.password", &a.basic_password));
  DAGU_RETURN_IF_ERROR(r.String("auth.token.value", &a.token));
  DAGU_RETURN_IF_ERROR(r.String("auth.builtin.admin.username", &a.admin_username));
  if (a.admin_username.empty()) a.admin_username = "admin";  // 1.30.2's default
  DAGU_RETURN_IF_ERROR(r.String("auth.builtin.admin.password", &a.admin_password));
  DAGU_RETURN_IF_ERROR(r.String("auth.builtin.token.secret", &a.token_secret));
  // 1.30.2 warns about a ttl that does not parse and keeps 24h (also for
  // zero or negative), so a config it loads loads here too.
  std::string ttl;
  DAGU_RETURN_IF_ERROR(r.String("auth.builtin.token.ttl", &ttl));
  if (!ttl.empty()) {
    std::chrono::nanoseconds parsed{};
    if (!ParseDuration(ttl, &parsed).ok()) {
      c->warnings.push_back(Origin(r, "auth.builtin.token.ttl") + ": invalid duration \"" + ttl +
                            "\", using 24h (as Dagu 1.30.2)");
    } else if (parsed.count() > 0) {
      a.token_ttl = parsed;
    }
  }
  DAGU_RETURN_IF_ERROR(r.String("auth.oidc.client_id", &a.oidc_client_id));
  DAGU_RETURN_IF_ERROR(r.String("auth.oidc.client_secret", &a.oidc_client_secret));
  DAGU_RETURN_IF_ERROR(r.String("auth.oidc.client_url", &a.oidc_client_url));
  DAGU_RETURN_IF_ERROR(r.String("auth.oidc.issuer", &a.oidc_issuer));
  DAGU_RETURN_IF_ERROR(r.StringList("auth.oidc.scopes", &a.oidc_scopes));
  DAGU_RETURN_IF_ERROR(r.StringList("auth.oidc.whitelist", &a.oidc_whitelist));
  a.oidc_enabled = !a.oidc_client_id.empty() && !a.oidc_client_secret.empty() && !a.oidc_issuer.empty();
  bool legacy_basic = false, legacy_token = false;
  DAGU_RETURN_IF_ERROR(r.Bool("is_basic_auth", &legacy_basic));
  DAGU_RETURN_IF_ERROR(r.Bool("is_auth_token", &legacy_token));
  a.basic_enabled = !a.basic_username.empty() && !a.basic_password.empty();
  a.token_enabled = !a.token.empty();
  a.error = AuthError(r, a, legacy_basic, legacy_token);
  TlsConfig& t = c->tls;
  DAGU_RETURN_IF_ERROR(r.Path("tls.cert_file", "", &t.cert_file));
  DAGU_RETURN_IF_ERROR(r.Path("tls.key_file", "", &t.key_file));
  DAGU_RETURN_IF_ERROR(r.Path("tls.ca_file", "", &t.ca_file));
  if (t.cert_file.empty() != t.key_file.empty()) {
    return Status::InvalidArgument(r.Describe("tls.cert_file", t.cert_file) + " and " +
                                   r.Describe("tls.key_file", t.key_file) + " must be set together");
  }
  return Status::OK();
}

Status BuildServer(const Reader& r, Config* c) {
  DAGU_RETURN_IF_ERROR(r.String("host", &c->host));
  DAGU_RETURN_IF_ERROR(r.Int("port", 0, 65535, &c->port));
  DAGU_RETURN_IF_ERROR(r.String("base_path", &c->base_path));
  c->base_path = CleanBasePath(c->base_path);
  DAGU_RETURN_IF_ERROR(r.String("api_base_path", &c->api_base_path));
  DAGU_RETURN_IF_ERROR(CheckTimeZone(r, &c->tz));
  DAGU_RETURN_IF_ERROR(r.Bool("debug", &c->debug));
  DAGU_RETURN_IF_ERROR(r.OneOf("log_format", {"text", "json"}, &c->log_format));
  DAGU_RETURN_IF_ERROR(r.Bool("headless", &c->headless));
  DAGU_RETURN_IF_ERROR(r.String("default_shell", &c->default_shell));
  DAGU_RETURN_IF_ERROR(r.Bool("latest_status_today", &c->latest_status_today));
  DAGU_RETURN_IF_ERROR(r.Bool("skip_examples", &c->skip_examples));
  DAGU_RETURN_IF_ERROR(r.OneOf("metrics", {"private", "public"}, &c->metrics));
  DAGU_RETURN_IF_ERROR(r.StringList("server.allowed_hosts", &c->allowed_hosts));
  DAGU_RETURN_IF_ERROR(r.Bool("health.details", &c->health.details));
  DAGU_RETURN_IF_ERROR(r.Bool("permissions.write_dags", &c->permission_write_dags));
  DAGU_RETURN_IF_ERROR(r.Bool("permissions.run_dags", &c->permission_run_dags));
  DAGU_RETURN_IF_ERROR(r.String("ui.navbar_title", &c->navbar_title));
  DAGU_RETURN_IF_ERROR(r.String("ui.navbar_color", &c->navbar_color));
  DAGU_RETURN_IF_ERROR(r.Int("ui.max_dashboard_page_limit", 1, 1000000, &c->max_dashboard_page_limit));
  return Status::OK();
}

}  // namespace

Status BuildConfig(const Settings& settings, const HomeLayout& layout, const BuildContext& context,
                   Config* out) {
  Reader r(settings, context);
  DAGU_RETURN_IF_ERROR(BuildPaths(r, layout, context, &out->paths));
  DAGU_RETURN_IF_ERROR(BuildServer(r, out));
  DAGU_RETURN_IF_ERROR(BuildAuth(r, out));
  DAGU_RETURN_IF_ERROR(BuildScheduler(r, &out->scheduler));
  DAGU_RETURN_IF_ERROR(BuildCoordinator(r, &out->coordinator));
  DAGU_RETURN_IF_ERROR(BuildWorker(r, &out->worker));
  DAGU_RETURN_IF_ERROR(BuildPeer(r, &out->peer));
  DAGU_RETURN_IF_ERROR(BuildQueues(r, &out->queues, &out->warnings));
  return Status::OK();
}

}  // namespace dagu::config_internal
