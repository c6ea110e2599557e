// libdagu-grpc.so: the dispatching side of the coordinator client (distributed/client_module.h):
// coordinator.v1.CoordinatorService/Dispatch of one task and GetWorkers,
// over HTTP/2 (plaintext or TLS, peer_channel.h), on a channel kept per
// target and TLS settings.
//
// Our headers come first (see coordinator_service.cc).
#include "distributed/client_module.h"
#include "distributed/grpc/peer_channel.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "coordinator/v1/coordinator.grpc.pb.h"

namespace dagu::distributed {
namespace {

namespace v1 = ::coordinator::v1;

// Null (and *error) when the TLS files cannot be read.
std::shared_ptr<grpc::Channel> ChannelFor(const std::string& target, const PeerTls& tls, std::string* error) {
  static std::mutex mu;
  struct Entry {
    std::string target;
    PeerTls tls;
    std::shared_ptr<grpc::Channel> channel;
  };
  static auto* channels = new std::vector<Entry>();  // never destroyed; a handful of entries
  {
    std::lock_guard<std::mutex> l(mu);
    for (const Entry& e : *channels) {
      if (e.target == target && e.tls == tls) return e.channel;
    }
  }
  auto channel = NewPeerChannel(target, tls, error);  // reads the TLS files: not under the lock
  if (channel == nullptr) return nullptr;
  std::lock_guard<std::mutex> l(mu);
  channels->push_back({target, tls, channel});
  return channel;
}

void FillTask(const DispatchTask& in, v1::Task* out) {
  out->set_root_dag_run_name(in.root_name);
  out->set_root_dag_run_id(in.root_id);
  out->set_parent_dag_run_name(in.parent_name);
  out->set_parent_dag_run_id(in.parent_id);
  out->set_dag_run_id(in.run_id);
  out->set_operation(static_cast<v1::Operation>(static_cast<int>(in.operation)));
  out->set_target(in.target);
  out->set_params(in.params);
  out->set_step(in.step);
  for (const auto& [key, value] : in.worker_selector) (*out->mutable_worker_selector())[key] = value;
  out->set_definition(in.definition);
}

// Go's name of a gRPC code (codes.Code.String()), for 1.30.2's messages.
const char* GoCodeName(grpc::StatusCode code) {
  static const char* const kNames[] = {"OK",           "Canceled",          "Unknown",         "InvalidArgument",
                                       "DeadlineExceeded", "NotFound",       "AlreadyExists",   "PermissionDenied",
                                       "ResourceExhausted", "FailedPrecondition", "Aborted",     "OutOfRange",
                                       "Unimplemented", "Internal",          "Unavailable",     "DataLoss",
                                       "Unauthenticated"};
  int i = static_cast<int>(code);
  return i >= 0 && i < 17 ? kNames[i] : "Unknown";
}

}  // namespace
}  // namespace dagu::distributed

extern "C" __attribute__((visibility("default"))) int dagu_grpc_get_workers(
    const char* target, const dagu::distributed::PeerTls* tls, int timeout_ms,
    std::vector<dagu::distributed::WorkerInfoData>* out, std::string* error) {
  namespace v1 = ::coordinator::v1;
  auto channel = dagu::distributed::ChannelFor(target, *tls, error);
  if (channel == nullptr) return static_cast<int>(grpc::StatusCode::UNAVAILABLE);
  auto stub = v1::CoordinatorService::NewStub(channel);
  v1::GetWorkersRequest request;
  v1::GetWorkersResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  grpc::Status s = stub->GetWorkers(&context, request, &response);
  if (!s.ok()) {
    *error = std::string("rpc error: code = ") + dagu::distributed::GoCodeName(s.error_code()) +
             " desc = " + s.error_message();
    return static_cast<int>(s.error_code());
  }
  for (const v1::WorkerInfo& w : response.workers()) {
    dagu::distributed::WorkerInfoData d;
    d.worker_id = w.worker_id();
    d.labels.insert(w.labels().begin(), w.labels().end());
    d.total_pollers = w.total_pollers();
    d.busy_pollers = w.busy_pollers();
    for (const v1::RunningTask& t : w.running_tasks()) {
      d.running_tasks.push_back({t.dag_run_id(), t.dag_name(), t.started_at(), t.root_dag_run_name(),
                                 t.root_dag_run_id(), t.parent_dag_run_name(), t.parent_dag_run_id()});
    }
    d.last_heartbeat_at = w.last_heartbeat_at();
    d.health_status = static_cast<int>(w.health_status());
    out->push_back(std::move(d));
  }
  return 0;
}

extern "C" __attribute__((visibility("default"))) dagu::distributed::DispatchCallResult dagu_grpc_dispatch_task(
    const char* target, const dagu::distributed::PeerTls* tls, const dagu::DispatchTask* task, int timeout_ms,
    std::string* error) {
  using dagu::distributed::DispatchCallResult;
  namespace v1 = ::coordinator::v1;
  auto channel = dagu::distributed::ChannelFor(target, *tls, error);
  if (channel == nullptr) return DispatchCallResult::kFailed;
  auto stub = v1::CoordinatorService::NewStub(channel);
  v1::DispatchRequest request;
  dagu::distributed::FillTask(*task, request.mutable_task());
  v1::DispatchResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  grpc::Status s = stub->Dispatch(&context, request, &response);
  if (s.ok()) return DispatchCallResult::kAccepted;
  *error = s.error_message().empty() ? "gRPC status " + std::to_string(static_cast<int>(s.error_code()))
                                     : s.error_message();
  return s.error_code() == grpc::StatusCode::FAILED_PRECONDITION ? DispatchCallResult::kNoWorker
                                                                  : DispatchCallResult::kFailed;
}
