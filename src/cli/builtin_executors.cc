#include "cli/builtin_executors.h"

#include "distributed/peer_tls.h"
#include "scheduler/scheduler_paths.h"

namespace dagu {
namespace {

SubDagRunnerOptions SubDagOptions(const Config& config, TaskDispatcher* dispatcher) {
  SubDagRunnerOptions o;
  o.base_config = config.paths.base_config;
  o.dispatcher = dispatcher;
  o.executable = config.paths.executable;
  o.config_file = config.paths.config_file;
  o.dags_dir = config.paths.dags_dir;
  o.dag_runs_dir = config.paths.dag_runs_dir;
  return o;
}

}  // namespace

BuiltinExecutors::BuiltinExecutors(const Config& config)
    : service_registry_(PosixFileSystem(), RegistryDirOf(config.paths)),
      discovery_(&service_registry_, Clock::Real()),
      dispatcher_(&discovery_, nullptr, std::chrono::seconds(5), distributed::PeerTlsOf(config.peer)),
      subdag_(SubDagOptions(config, &dispatcher_)) {
  registry_.Register("chat", &chat_);
  registry_.Register("archive", &archive_);
  registry_.Register("dag", &subdag_);
  registry_.Register("parallel", &subdag_);
  registry_.Register("hitl", &hitl_);
  registry_.Register("container", &docker_);
  registry_.Register("docker", &docker_);
  registry_.Register("http", &http_);
  registry_.Register("jq", &jq_);
  registry_.Register("mail", &mail_);
  registry_.Register("ssh", &ssh_);
}

}  // namespace dagu
