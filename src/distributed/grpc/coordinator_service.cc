// libdagu-grpc.so: Dagu 1.30.2's coordinator.v1.CoordinatorService and
// grpc.health.v1 over gRPC's callback API, on a TaskBoard
// (distributed/task_board.h). A waiting Poll holds no thread: its reactor
// sits in the board until a Dispatch delivers a task or the call is
// cancelled. The entry points are declared in distributed/coordinator_module.h.
//
// Our headers come first: core/mutex.h and abseil (under gRPC) both define
// GUARDED_BY and friends; abseil's later definitions, in a system header,
// replace ours silently.
#include "distributed/coordinator_module.h"
#include "distributed/grpc/peer_channel.h"
#include "distributed/task_board.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/v1/coordinator.grpc.pb.h"

namespace dagu::distributed {
namespace {

namespace v1 = ::coordinator::v1;

Labels ToLabels(const google::protobuf::Map<std::string, std::string>& m) { return Labels(m.begin(), m.end()); }

const char kServiceName[] = "coordinator.v1.CoordinatorService";

// One waiting Poll. The board's Deliver and OnCancel race to finish it; the
// shared Slot decides (under its mutex) which one does, exactly once.
class PollReactor final : public grpc::ServerUnaryReactor {
 public:
  struct Slot {
    std::mutex mu;
    PollReactor* reactor = nullptr;  // null once finished
  };

  PollReactor(TaskBoard* board, const v1::PollRequest& request, v1::PollResponse* response)
      : board_(board), poller_id_(request.poller_id()), response_(response), slot_(std::make_shared<Slot>()) {
    slot_->reactor = this;
    std::string worker_id = request.worker_id();
    std::shared_ptr<Slot> slot = slot_;
    token_ = board_->AddPoller(worker_id, poller_id_, ToLabels(request.labels()),
                               [slot, worker_id](const std::string& task) {
                                 std::lock_guard<std::mutex> l(slot->mu);
                                 PollReactor* r = slot->reactor;
                                 if (r == nullptr) return false;
                                 slot->reactor = nullptr;
                                 if (!r->response_->mutable_task()->ParseFromString(task)) {
                                   r->Finish(grpc::Status(grpc::StatusCode::INTERNAL, "task does not parse"));
                                   return false;
                                 }
                                 // As 1.30.2: the task names the worker that takes it.
                                 r->response_->mutable_task()->set_worker_id(worker_id);
                                 r->Finish(grpc::Status::OK);
                                 return true;
                               });
  }

  void OnCancel() override {
    board_->RemovePoller(poller_id_, token_);
    std::lock_guard<std::mutex> l(slot_->mu);
    if (slot_->reactor == nullptr) return;
    slot_->reactor = nullptr;
    Finish(grpc::Status::CANCELLED);
  }

  void OnDone() override { delete this; }

 private:
  TaskBoard* board_;
  std::string poller_id_;
  v1::PollResponse* response_;
  std::shared_ptr<Slot> slot_;
  uint64_t token_ = 0;
};

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context, const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

class Service final : public v1::CoordinatorService::CallbackService {
 public:
  explicit Service(TaskStore* tasks) : board_(tasks) {}
  bool Load(std::string* error) { return board_.Load(error); }
  grpc::ServerUnaryReactor* Poll(grpc::CallbackServerContext* context, const v1::PollRequest* request,
                                 v1::PollResponse* response) override {
    if (request->poller_id().empty()) {
      return Done(context, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "poller_id is required"));
    }
    return new PollReactor(&board_, *request, response);
  }

  grpc::ServerUnaryReactor* Dispatch(grpc::CallbackServerContext* context, const v1::DispatchRequest* request,
                                     v1::DispatchResponse*) override {
    if (!request->has_task()) {
      return Done(context, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "task is required"));
    }
    DispatchError e = board_.Dispatch(ToLabels(request->task().worker_selector()), request->task().SerializeAsString(),
                                      request->task().dag_run_id());
    if (e == DispatchError::kDuplicate) {
      return Done(context, grpc::Status(grpc::StatusCode::ALREADY_EXISTS, DispatchErrorMessage(e)));
    }
    if (e == DispatchError::kNotRecorded) {
      return Done(context, grpc::Status(grpc::StatusCode::UNAVAILABLE, DispatchErrorMessage(e)));
    }
    if (e != DispatchError::kNone) {
      return Done(context, grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, DispatchErrorMessage(e)));
    }
    return Done(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* GetWorkers(grpc::CallbackServerContext* context, const v1::GetWorkersRequest*,
                                       v1::GetWorkersResponse* response) override {
    for (const WorkerRecord& w : board_.Workers(std::chrono::system_clock::now())) {
      v1::WorkerInfo* info = response->add_workers();
      info->set_worker_id(w.worker_id);
      info->mutable_labels()->insert(w.labels.begin(), w.labels.end());
      info->set_last_heartbeat_at(
          std::chrono::duration_cast<std::chrono::seconds>(w.last_heartbeat_at.time_since_epoch()).count());
      info->set_health_status(static_cast<v1::WorkerHealthStatus>(w.health));
      v1::WorkerStats stats;
      if (!w.stats.empty() && stats.ParseFromString(w.stats)) {
        info->set_total_pollers(stats.total_pollers());
        info->set_busy_pollers(stats.busy_pollers());
        *info->mutable_running_tasks() = stats.running_tasks();
      }
    }
    return Done(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* context, const v1::HeartbeatRequest* request,
                                      v1::HeartbeatResponse*) override {
    if (request->worker_id().empty()) {
      return Done(context, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "worker_id is required"));
    }
    std::vector<std::string> running;
    for (const v1::RunningTask& t : request->stats().running_tasks()) running.push_back(t.dag_run_id());
    board_.Heartbeat(request->worker_id(), ToLabels(request->labels()),
                     request->has_stats() ? request->stats().SerializeAsString() : std::string(),
                     std::chrono::system_clock::now(), running);
    return Done(context, grpc::Status::OK);
  }

  size_t waiting_pollers() const { return board_.WaitingPollers(); }
  TaskCounts task_counts() const { return board_.Counts(); }
  std::vector<std::pair<std::string, int>> running_per_worker() const {
    std::vector<std::pair<std::string, int>> out;
    for (const WorkerRecord& w : board_.Workers(std::chrono::system_clock::now())) {
      v1::WorkerStats stats;
      int running = !w.stats.empty() && stats.ParseFromString(w.stats) ? stats.running_tasks_size() : 0;
      out.emplace_back(w.worker_id, running);
    }
    return out;
  }

 private:
  TaskBoard board_;
};

class Server final : public CoordinatorServer {
 public:
  explicit Server(TaskStore* tasks) : service_(tasks) {}
  ~Server() override { Shutdown(); }

  bool Start(const CoordinatorOptions& options, std::string* error) {
    // The tasks a predecessor accepted, before anyone can call.
    if (std::string load_error; !service_.Load(&load_error)) {
      *error = "cannot load the recorded tasks: " + load_error;
      return false;
    }
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    // gRPC sets SO_REUSEPORT by default: a second coordinator on a taken port
    // would then "listen" too, and the two would share the connections.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    std::string address = options.bind_host + ":" + std::to_string(options.port);
    std::shared_ptr<grpc::ServerCredentials> credentials = PeerServerCredentials(options.tls, error);
    if (credentials == nullptr) return false;
    builder.AddListeningPort(address, credentials, &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port_ == 0) {
      *error = "cannot listen on " + address;
      server_.reset();
      return false;
    }
    grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
    if (health != nullptr) {
      health->SetServingStatus(true);
      health->SetServingStatus(kServiceName, true);
    }
    return true;
  }

  int port() const override { return port_; }
  size_t waiting_pollers() const override { return service_.waiting_pollers(); }
  size_t waiting_tasks() const override { return service_.task_counts().waiting; }
  size_t dispatched_tasks() const override { return service_.task_counts().dispatched; }
  std::vector<std::pair<std::string, int>> running_per_worker() const override {
    return service_.running_per_worker();
  }

  void Shutdown() override {
    std::lock_guard<std::mutex> l(shutdown_mu_);
    if (server_ == nullptr) return;
    if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) health->SetServingStatus(false);
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
    server_.reset();
  }

 private:
  Service service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::mutex shutdown_mu_;
};

}  // namespace
}  // namespace dagu::distributed

extern "C" __attribute__((visibility("default"))) int dagu_grpc_module_abi() {
  return dagu::distributed::kGrpcModuleAbi;
}

extern "C" __attribute__((visibility("default"))) dagu::distributed::CoordinatorServer* dagu_grpc_start_coordinator(
    const dagu::distributed::CoordinatorOptions* options, std::string* error) {
  auto server = std::make_unique<dagu::distributed::Server>(options->tasks);
  if (!server->Start(*options, error)) return nullptr;
  return server.release();
}
