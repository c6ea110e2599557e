#include "scheduler/active_parts.h"

#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>

#include <spdlog/spdlog.h>

#include "core/periodic_worker.h"
#include "cron/time_zone.h"
#include "dagwatch/dag_catalog.h"
#include "dagwatch/dag_file_loader.h"
#include "dagwatch/dag_watcher.h"
#include "dagwatch/suspend_flags.h"
#include "distributed/coordinator_dispatcher.h"
#include "distributed/peer_tls.h"
#include "launcher/launcher.h"
#include "queue/queue_consumer.h"
#include "reaper/reaper.h"
#include "replayer/replayer.h"
#include "replayer/store_catchup_enqueuer.h"
#include "retention/retention_sweeper.h"
#include "scheduler/scheduler_paths.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/run_operations.h"
#include "store/run_store.h"
#include "store/service_registry.h"
#include "store/tick_ledger.h"
#include "store/worker_wait.h"
#include "ticker/store_run_catalog.h"
#include "ticker/ticker.h"

namespace dagu {
namespace {

constexpr std::chrono::seconds kDagRescanInterval{30};
constexpr std::chrono::seconds kQueuePollInterval{1};

std::string SelfExecutable() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "dagu";
  return std::string(buf, static_cast<size_t>(n));
}

LoadDagOptions DagOptions(const Config& config, FileSystem* fs) {
  LoadDagOptions o;
  o.base_config = config.paths.base_config;
  o.fs = fs;
  if (!config.tz.empty()) {
    const date::time_zone* zone = nullptr;
    Status s = LocateZone(config.tz, &zone);
    if (s.ok()) {
      o.default_zone = zone;
    } else {
      spdlog::error("tz: {}; cron schedules use the local zone", s.ToString());
    }
  }
  // The local zone once (as Go fixes time.Local at start), not per cron
  // expression of every file: resolving it (/etc/localtime) was ~8 % of a
  // scan of 10,000 files.
  if (o.default_zone == nullptr) o.default_zone = LocalZone();
  return o;
}

LaunchContext Launching(const Config& config) {
  LaunchContext ctx;
  ctx.executable = config.paths.executable.empty() ? SelfExecutable() : config.paths.executable;
  ctx.config_file = config.paths.config_file;
  ctx.environment = ProcessEnvironment();
  return ctx;
}

// Everything the scheduling side runs while active, with the stores and
// the DAG catalog they share.
class SchedulingParts final : public ActiveComponent {
 public:
  SchedulingParts(const Config& config, const ActivePartsDeps& deps);
  ~SchedulingParts() override;

  void Start(const Activation& activation, const Lease* lease) override;
  void Stop() override;
  std::optional<MonoTime> LastProgress() const override;

  // Every loaded DAG with its histRetentionDays.
  std::vector<RetentionTarget> RetentionTargets() const {
    std::vector<RetentionTarget> targets;
    for (const DagPtr& d : dags_.Snapshot()) {
      if (d) targets.push_back({d->name, d->hist_retention_days});
    }
    return targets;
  }

  // Forwards `sig` now, and again when the parts stop, to reach a run
  // started in between.
  int PropagateSignal(int sig) {
    stop_signal_ = sig;
    return launcher_.PropagateSignal(sig);
  }

 private:
  RunStore runs_;
  ProcStore procs_;
  QueueStore queues_;
  RunOperations ops_;
  TickLedger ledger_;
  SuspendFlags suspend_;
  DagCatalog dags_;
  DagWatcher watcher_;
  Launcher launcher_;
  StoreRunCatalog catalog_;
  StoreCatchupEnqueuer enqueuer_;
  // Queued runs of DAGs with a workerSelector go to workers through the
  // coordinators of the registry (docs/distributed.md); nothing is read or
  // loaded for them until such a run is queued.
  ServiceRegistry registry_;
  distributed::CoordinatorDiscovery discovery_;
  distributed::CoordinatorDispatcher dispatcher_;
  WorkerWaitStore waits_;  // why such a run waits, for the web server (store/worker_wait.h)
  Replayer replayer_;
  Ticker ticker_;
  QueueConsumer consumer_;
  Reaper reaper_;
  HistoryRetention retention_;
  RetentionSweeper sweeper_;
  std::atomic<int> stop_signal_{0};
  const Clock* clock_;
  // Activation runs here, off the role machine's thread: the first rescan,
  // the ledger read and replay planning all touch storage.
  StoppableThread activator_;
  std::atomic<bool> activating_{false};
  std::atomic<bool> waiting_for_catalog_{false};  // the activation waits for the first scan
  std::atomic<int64_t> activation_started_ns_{0};
};

std::mutex g_parts_mu;
std::set<SchedulingParts*> g_parts;

ReplayerOptions ReplayOptions(const Config& config, const ActivePartsDeps& deps) {
  ReplayerOptions o;
  o.counters = deps.counters;
  o.data_dir = config.paths.data_dir;
  o.queues_enabled = config.queues.enabled;
  o.failover_recovery_window = config.scheduler.failover_recovery_window;
  return o;
}

TickerOptions TickOptions(const Config& config, const ActivePartsDeps& deps) {
  TickerOptions o;
  o.counters = deps.counters;
  o.data_dir = config.paths.data_dir;
  o.instance_id = deps.instance_id;
  o.queues_enabled = config.queues.enabled;
  o.arm_lead = config.scheduler.arm_lead;
  return o;
}

QueueConsumerOptions ConsumerOptions(const Config& config, const ActivePartsDeps& deps, TaskDispatcher* dispatcher,
                                     WorkerWaitStore* waits) {
  QueueConsumerOptions o;
  o.dispatcher = dispatcher;
  o.waits = waits;
  o.counters = deps.counters;
  o.enabled = config.queues.enabled;
  o.global_queues = config.queues.config;
  o.owner = deps.instance_id;
  o.poll_interval = kQueuePollInterval;
  return o;
}

ReaperOptions ReapOptions(const Config& config, const DagCatalog* dags) {
  ReaperOptions o;
  o.interval = config.scheduler.zombie_detection_interval;
  o.data_dir = config.paths.data_dir;
  // Only for a repair (rare): the whole definition, read from the file.
  o.find_dag = [dags](const std::string& name) -> std::shared_ptr<const Dag> {
    auto dag = std::make_shared<Dag>();
    Status s = dags->LoadFull(name, dag.get());
    if (s.IsNotFound()) return nullptr;
    if (!s.ok()) {
      spdlog::error("DAG {}: {}", name, s.ToString());
      return nullptr;
    }
    return dag;
  };
  o.log_root = config.paths.log_dir;
  o.replay_window = config.scheduler.failover_recovery_window;
  return o;
}

SchedulingParts::SchedulingParts(const Config& config, const ActivePartsDeps& deps)
    : runs_(deps.fs, deps.clock, config.paths.dag_runs_dir),
      procs_(deps.fs, deps.clock, config.paths.proc_dir),
      queues_(deps.fs, deps.clock, config.paths.queue_dir),
      ops_(deps.fs, deps.clock, &runs_, &queues_),
      ledger_(deps.fs, SchedulerDirOf(config.paths)),
      suspend_(deps.fs, config.paths.suspend_flags_dir),
      dags_(deps.fs, config.paths.dags_dir, MakeDagFileLoader(DagOptions(config, deps.fs), config.paths.dags_dir)),
      watcher_(&dags_, kDagRescanInterval),
      launcher_(PosixProcessSpawner(), deps.clock, Launching(config)),
      catalog_(&runs_, &procs_, &queues_),
      enqueuer_(&ops_, &dags_, config.paths.log_dir),
      registry_(deps.fs, RegistryDirOf(config.paths)),
      discovery_(&registry_, deps.clock),
      dispatcher_(&discovery_, nullptr, std::chrono::seconds(5), distributed::PeerTlsOf(config.peer)),
      waits_(deps.fs),
      replayer_(deps.clock, &dags_, &suspend_, &catalog_, &enqueuer_, &ledger_, ReplayOptions(config, deps)),
      ticker_(deps.clock, &dags_, &suspend_, &catalog_, &launcher_, &ledger_, &replayer_, TickOptions(config, deps)),
      consumer_(deps.clock, &queues_, &runs_, &procs_, &dags_, &suspend_, &launcher_,
                ConsumerOptions(config, deps, &dispatcher_, &waits_)),
      reaper_(deps.clock, &runs_, &procs_, &ops_, ReapOptions(config, &dags_)),
      retention_(deps.fs, deps.clock, &runs_),
      sweeper_(&retention_, [this] { return RetentionTargets(); }),
      clock_(deps.clock) {
  launcher_.SetLeaseBeacon(deps.beacon);
  // The catalog is loaded from the start, while standby too, and kept
  // current by the watcher, so that an activation (a takeover above all)
  // does not wait for a scan of the whole folder (docs/scheduling.md §8).
  dags_.SetClock(deps.clock);
  watcher_.Start();
  std::lock_guard<std::mutex> l(g_parts_mu);
  g_parts.insert(this);
}

SchedulingParts::~SchedulingParts() {
  {
    std::lock_guard<std::mutex> l(g_parts_mu);
    g_parts.erase(this);
  }
  Stop();
  watcher_.Stop();
  launcher_.StopReaping();
}

void SchedulingParts::Start(const Activation& activation, const Lease* lease) {
  activation_started_ns_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_->Monotonic().time_since_epoch()).count();
  activating_ = true;
  launcher_.StartReaping();
  activator_.Start([this, activation, lease](StoppableThread& self) {
    // The ticks need the whole catalog (a tick over part of it would record
    // the minute as handled without the DAGs not read yet). Loaded since
    // start-up, it is normally there; at a cold start with a big folder the
    // wait counts as progress while files keep loading.
    waiting_for_catalog_ = true;
    while (!watcher_.scanned()) {
      if (!self.WaitFor(std::chrono::milliseconds(20))) return;
    }
    waiting_for_catalog_ = false;
    replayer_.Start(activation, lease);  // reads the ledger before the ticker's first tick rewrites it
    if (!self.WaitFor(Duration::zero())) return;
    ticker_.Start(activation, lease);  // first tick: the minute of activation.at
    consumer_.Start(activation, lease);
    reaper_.Start(activation, lease);
    sweeper_.Start(activation, lease);
    activating_ = false;
  });
}

std::optional<MonoTime> SchedulingParts::LastProgress() const {
  // While activating, no progress since activation began; then the ticker's.
  std::optional<MonoTime> last = activating_.load()
                                     ? std::optional<MonoTime>(MonoTime(std::chrono::nanoseconds(activation_started_ns_.load())))
                                     : ticker_.LastProgress();
  // Loading the DAG folder is progress, not a stall, for whoever waits for
  // it: the activation waiting for the first scan, a tick (or the replayer)
  // inside the catalog's Refresh(). A scan that handles no file for the
  // stall limit (a call that hangs) is still a stall.
  if (waiting_for_catalog_.load() || dags_.refreshing()) {
    if (std::optional<MonoTime> loading = dags_.LastLoadProgress(); loading && (!last || *loading > *last)) {
      last = loading;
    }
  }
  return last;
}

void SchedulingParts::Stop() {
  activator_.Stop();  // waits for the activation step in progress, if any
  activating_ = false;
  waiting_for_catalog_ = false;
  sweeper_.Stop();
  reaper_.Stop();
  consumer_.Stop();
  ticker_.Stop();
  replayer_.Stop();
  // The watcher keeps the catalog current until the parts are destroyed.
  if (int sig = stop_signal_.load(); sig != 0) launcher_.PropagateSignal(sig);
}

}  // namespace

std::vector<std::unique_ptr<ActiveComponent>> MakeActiveParts(const Config& config, const ActivePartsDeps& deps) {
  std::vector<std::unique_ptr<ActiveComponent>> parts;
  parts.push_back(std::make_unique<SchedulingParts>(config, deps));
  return parts;
}

int PropagateStopSignal(int sig) {
  std::lock_guard<std::mutex> l(g_parts_mu);
  int n = 0;
  for (SchedulingParts* p : g_parts) n += p->PropagateSignal(sig);
  return n;
}

}  // namespace dagu
