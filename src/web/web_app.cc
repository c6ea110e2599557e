#include "web/web_app.h"

#include <cstdio>

#include <spdlog/spdlog.h>

#include "core/dir_tracker.h"
#include "core/listing_cache_fs.h"
#include "core/watched_stat_fs.h"
#include "cron/time_zone.h"
#include "dagu/version.h"
#include "distributed/peer_tls.h"
#include "metrics/exposition.h"
#include "metrics/registry.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/role_journal.h"
#include "store/run_store.h"
#include "store/service_registry.h"
#include "web/resource_history.h"
#include "web/api_auth.h"
#include "web/api_events.h"
#include "web/api_context.h"
#include "web/builtin_auth.h"
#include "web/oidc_auth.h"
#include "web/api_routes.h"
#include "web/cli_runner.h"
#include "web/dag_files.h"
#include "web/system_routes.h"
#include "web/ui_routes.h"
#include "web/warm_up.h"
#include "web/web_server.h"
#include "store/data_layout.h"

namespace dagu::web {
namespace {

LoadDagOptions DagOptions(const Config& config) {
  LoadDagOptions o;
  o.base_config = config.paths.base_config;
  if (!config.tz.empty()) {
    const date::time_zone* zone = nullptr;
    if (LocateZone(config.tz, &zone).ok()) o.default_zone = zone;
  }
  return o;
}

WebServerOptions ServerOptions(const Config& config) {
  WebServerOptions o;
  o.host = config.host;
  o.port = config.port;
  o.base_path = config.base_path;
  o.cert_file = config.tls.cert_file;
  o.key_file = config.tls.key_file;
  o.auth = config.auth;
  o.metrics_public = config.metrics == "public";
  o.allowed_hosts = config.allowed_hosts;
  const Paths& p = config.paths;
  o.redacted_paths = {{p.home, "<home>"},           {p.dags_dir, "<dags>"},         {p.data_dir, "<data>"},
                      {p.log_dir, "<logs>"},        {p.admin_logs_dir, "<admin-logs>"}, {p.suspend_flags_dir, "<suspend>"},
                      {p.dag_runs_dir, "<dag-runs>"}, {p.proc_dir, "<proc>"},         {p.queue_dir, "<queue>"},
                      {p.config_dir, "<config>"},   {p.executable, "dagu"}};
  return o;
}

LaunchContext Launch(const Config& config) {
  LaunchContext c;
  c.executable = config.paths.executable;
  c.config_file = config.paths.config_file;
  c.environment = WithoutAuthSecrets(ProcessEnvironment());  // runs never see the server's credentials
  return c;
}

std::map<std::string, int> GlobalQueues(const Config& config) {
  std::map<std::string, int> out;
  for (const QueueConfig& q : config.queues.config) out[q.name] = std::max(1, q.max_active_runs);
  return out;
}

// Creates the builtin mode's directories and, on a first start, its admin
// user, announcing a generated password on stdout in 1.30.2's words (never in
// the structured log, which may be shipped elsewhere).
Status InitBuiltinAuth(BuiltinAuth* auth, const std::string& username) {
  bool created = false;
  std::string password;
  Status s = auth->Init(&created, &password);
  if (!s.ok()) return s.WithContext("failed to initialize builtin auth service");
  if (created && !password.empty()) {
    std::printf(
        "\n"
        "================================================================================\n"
        "  ADMIN USER CREATED\n"
        "  Username: %s\n"
        "  Password: %s\n"
        "  NOTE: Please change this password immediately!\n"
        "================================================================================\n\n",
        username.c_str(), password.c_str());
    std::fflush(stdout);
  } else if (created) {
    spdlog::info("auth: created admin user {}", username);
  }
  return Status::OK();
}

// How many directory listings the API keeps (about 40 MB at most with the
// run layout's small folders).
constexpr size_t kKeptListings = 65536;
// Stats of the run history kept (~350 bytes each).
constexpr size_t kKeptStats = 50000;
// Paths stat'ed or listed once, remembered so that the caches above keep a
// path from its second sight on (core/sighting_filter.h; ~40 bytes each).
constexpr size_t kSightings = 2 * kKeptStats;
// Days of runs over all DAGs kept by the run list index (at 10,000 DAGs
// ~3.5 MB per day, plus ~600 bytes per run a listing looked at).
constexpr size_t kKeptRunDays = 4;

}  // namespace

struct WebApp::Impl {
  Impl(const Config& config, WebAppDeps d)
      : auth_error(config.auth.error),
        admin_username(config.auth.admin_username),
        deps(std::move(d)),
        clock(deps.clock ? deps.clock : Clock::Real()),
        fs(deps.fs ? deps.fs : PosixFileSystem()),
        started(clock->Now()),
        watched_fs(fs == PosixFileSystem() ? std::make_unique<WatchedStatFileSystem>(
                                                 fs, config.paths.dag_runs_dir, kKeptStats,
                                                 DirTracker::DefaultMaxWatches(), kSightings)
                                           : nullptr),
        listing_fs(watched_fs ? static_cast<FileSystem*>(watched_fs.get()) : fs, kKeptListings, kSightings),
        dags(&listing_fs, config.paths.dags_dir, config.paths.suspend_flags_dir, DagOptions(config)),
        runs(&listing_fs, clock, config.paths.dag_runs_dir),
        queues(fs, clock, config.paths.queue_dir),
        procs(fs, clock, config.paths.proc_dir),
        registry(fs, config.paths.service_registry_dir),
        journal(fs, RoleJournalPath(config.paths.scheduler_dir)),
        resources(clock, config.paths.data_dir),
        cli(deps.spawner ? deps.spawner : PosixProcessSpawner(), Launch(config)),
        live_runs(fs, clock, config.paths.dag_runs_dir),
        live(LivePaths{config.paths.dags_dir, config.paths.proc_dir, config.paths.queue_dir}, &hub, &live_runs),
        server(ServerOptions(config)) {
    std::string version = deps.version.empty() ? kVersion : deps.version;
    // Day folders' runs and run summaries, kept while unchanged
    // (store/run_store.h, "THE INDEX"; docs/web.md, "At scale").
    // The lists over all DAGs of a few days from days kept in memory,
    // proved current by inotify (store/run_day_index.h): the real file
    // system only.
    RunIndexLimits limits;
    if (fs == PosixFileSystem()) {
      limits.max_watched_days = kKeptRunDays;
      limits.max_watches = DirTracker::DefaultMaxWatches();
      limits.day_listing_fs = fs;
    }
    runs.EnableIndex(limits);
    // The DAG list without a stat per file while the DAG and suspend
    // directories saw no change (web/dag_files.h, "LISTING CACHE"); inotify
    // sees only the real file system.
    if (fs == PosixFileSystem()) dags.WatchForChanges();
    // The first pages' reads, done in the background at start (web/warm_up.h):
    // only where the caches they fill are proved current by inotify.
    if (fs == PosixFileSystem()) warm_up = std::make_unique<WarmUp>(&dags, &runs, clock);
    ctx.clock = clock;
    ctx.fs = fs;
    ctx.dags = &dags;
    ctx.dag_orders = &dag_orders;
    ctx.runs = &runs;
    ctx.queues = &queues;
    ctx.procs = &procs;
    ctx.registry = &registry;
    ctx.peer_tls = distributed::PeerTlsOf(config.peer);
    ctx.journal = &journal;
    ctx.resources = &resources;
    ctx.cli = &cli;
    ctx.queues_enabled = config.queues.enabled;
    ctx.global_queues = GlobalQueues(config);
    if (config.auth.mode == "builtin" && config.auth.error.empty()) {
      builtin = std::make_unique<BuiltinAuth>(config, fs, clock);
      server.UseBuiltinAuth(builtin.get());
      AddBuiltinAuthRoutes(&server, builtin.get());
      AddWebhookRoutes(&server, builtin.get(), &ctx);
      ctx.serve_api_v1 = false;
    } else {
      AddAuthDisabledRoutes(&server);
    }
    if (config.auth.oidc_enabled && config.auth.error.empty()) {
      oidc = std::make_unique<OidcAuth>(config.auth, clock, !config.tls.cert_file.empty());
      server.UseOidc(oidc.get());
      AddOidcCallbackRoute(&server, oidc.get());
      ctx.serve_api_v1 = false;  // 1.30.2 turns /api/v1 off under an auth mode
    }
    AddServerMetrics(&metrics, &ctx, deps.scheduler, version, started);
    AddHttpMetrics(&metrics, [this] { return server.counters(); });
    metrics.AddCollector([this](std::vector<metrics::MetricFamily>* out) {
      const bool done = warm_up == nullptr || warm_up->done();
      out->push_back(metrics::MetricFamily{"dagu_web_warm_up_done",
                                           "1 once the reads of the first pages, done in the background at start, "
                                           "have ended (or there were none).",
                                           metrics::MetricType::kGauge, {}}
                         .Add(done ? 1 : 0));
    });
    AddSystemRoutes(&server, &metrics, clock, started, version);
    AddApiRoutes(&server, &ctx);
    // Live updates from inotify, which sees only the real file system.
    live_enabled = fs == PosixFileSystem();
    AddEventRoutes(&server, &hub, live_enabled ? &live : nullptr);
    UiSettings ui;
    ui.title = config.navbar_title;
    ui.navbar_color = config.navbar_color;
    ui.version = version;
    ui.tz = config.tz;
    // 1.30.2: an auth.mode left unset is "oidc" when the OIDC client is configured.
    ui.auth_mode = builtin                     ? "builtin"
                   : !config.auth.mode.empty() ? config.auth.mode
                   : config.auth.oidc_enabled  ? "oidc"
                                               : "none";
    AddUiRoutes(&server, ui);  // last: its catch-all must not shadow the API
  }

  std::string auth_error;
  std::string admin_username;
  WebAppDeps deps;
  const Clock* clock;
  FileSystem* fs;
  WallTime started;
  // Stats of the run history kept while inotify saw no change
  // (core/watched_stat_fs.h); null unless `fs` is the real file system.
  std::unique_ptr<WatchedStatFileSystem> watched_fs;
  // Listings of the DAG folder and of the run folders, kept while unchanged
  // (core/listing_cache_fs.h; docs/web.md, "At scale").
  ListingCacheFileSystem listing_fs;
  DagFiles dags;
  DagListOrders dag_orders;
  RunStore runs;
  QueueStore queues;
  ProcStore procs;
  ServiceRegistry registry;
  RoleJournal journal;
  ResourceHistory resources;
  CliRunner cli;
  EventHub hub;
  // The live source's own view of the runs: straight from the file system
  // (a run folder it looks up has just been made; no listing cache).
  RunStore live_runs;
  LiveEventSource live;
  std::unique_ptr<WarmUp> warm_up;  // null unless fs is the real file system
  bool live_enabled = false;
  std::unique_ptr<BuiltinAuth> builtin;  // auth.mode: builtin
  std::unique_ptr<OidcAuth> oidc;        // auth.oidc's client and issuer set
  ApiContext ctx;
  metrics::Registry metrics;
  WebServer server;
};

WebApp::WebApp(const Config& config, WebAppDeps deps) : impl_(std::make_unique<Impl>(config, std::move(deps))) {}

WebApp::~WebApp() { Stop(); }

Status WebApp::Start() {
  // Never serve an open API for settings that ask for authentication.
  if (!impl_->auth_error.empty()) return Status::InvalidArgument("configuration error: " + impl_->auth_error);
  if (impl_->builtin) DAGU_RETURN_IF_ERROR(InitBuiltinAuth(impl_->builtin.get(), impl_->admin_username));
  if (impl_->oidc) DAGU_RETURN_IF_ERROR(impl_->oidc->Init().WithContext("failed to initialize OIDC"));
  DAGU_RETURN_IF_ERROR(impl_->server.Start());
  if (impl_->live_enabled) impl_->live.Start();
  if (impl_->warm_up) impl_->warm_up->Start();
  spdlog::info("web: serving on {}", impl_->server.Url());
  return Status::OK();
}

void WebApp::Stop() {
  if (impl_->warm_up) impl_->warm_up->Stop();  // at once (a cancelled read)
  impl_->cli.CancelWaits();  // requests waiting for a command answer at once
  impl_->hub.Close();        // live update streams end; new ones get 503
  impl_->live.Stop();
  impl_->server.Stop();
}

int WebApp::port() const { return impl_->server.port(); }

std::string WebApp::Url() const { return impl_->server.Url(); }

}  // namespace dagu::web
