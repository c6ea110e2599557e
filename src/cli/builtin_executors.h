// BuiltinExecutors: every step runner this binary has, registered under its
// Dagu 1.30.2 executor type (src/executors/executor_registry.h), built once
// per `dagu start`/`retry` process and handed to the agent. The types are
// exactly those the DAG loader accepts (BuiltinExecutorTypes() in
// dag/dag_executor.h); a test checks the two agree. Call steps whose child
// has a workerSelector dispatch through the coordinators of the service
// registry (libdagu-grpc.so is loaded at the first such dispatch only).
#pragma once

#include "config/config.h"
#include "distributed/coordinator_discovery.h"
#include "distributed/coordinator_dispatcher.h"
#include "executors/chat_executor.h"
#include "executors/archive_executor.h"
#include "executors/docker_executor.h"
#include "executors/executor_registry.h"
#include "executors/hitl_executor.h"
#include "executors/http_executor.h"
#include "executors/jq_executor.h"
#include "executors/mail_executor.h"
#include "executors/shell_runner.h"
#include "executors/ssh_executor.h"
#include "executors/subdag_runner.h"

namespace dagu {

class BuiltinExecutors {
 public:
  explicit BuiltinExecutors(const Config& config);
  BuiltinExecutors(const BuiltinExecutors&) = delete;
  BuiltinExecutors& operator=(const BuiltinExecutors&) = delete;

  // The shell: steps without a type, preconditions and backticks.
  StepRunner* shell() { return &shell_; }
  const ExecutorRegistry* registry() const { return &registry_; }

 private:
  // Declared before subdag_, which uses them.
  ServiceRegistry service_registry_;
  distributed::CoordinatorDiscovery discovery_;
  distributed::CoordinatorDispatcher dispatcher_;
  ShellRunner shell_;
  ChatRunner chat_;
  ArchiveRunner archive_;
  DockerRunner docker_;  // "docker" and "container"
  HttpRunner http_;
  JqRunner jq_;
  MailRunner mail_;
  HitlRunner hitl_;
  SshRunner ssh_;
  SubDagRunner subdag_;  // "dag" and "parallel": call steps
  ExecutorRegistry registry_{&shell_};
};

}  // namespace dagu
