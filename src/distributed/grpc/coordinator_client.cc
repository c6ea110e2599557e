// libdagu-grpc.so: the client side of Dagu 1.30.2's coordinator.v1 protocol
// (CoordinatorChannel in distributed/coordinator_module.h), for `dagu
// worker`. The health check is grpc.health.v1.Health/Check sent as raw
// bytes: its request for "" is empty and its answer is one varint field
// (status = 1), so no generated health stubs (whose descriptors gRPC's own
// libraries may already register) are needed.
//
// Our headers come first (see coordinator_service.cc).
#include "distributed/coordinator_module.h"
#include "distributed/grpc/peer_channel.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/client_unary_call.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "coordinator/v1/coordinator.grpc.pb.h"

namespace dagu::distributed {
namespace {

namespace v1 = ::coordinator::v1;

CallResult FromStatus(const grpc::Status& s) { return CallResult{static_cast<int>(s.error_code()), s.error_message()}; }

void ToWire(const v1::Task& t, WireTask* out) {
  out->root_dag_run_name = t.root_dag_run_name();
  out->root_dag_run_id = t.root_dag_run_id();
  out->parent_dag_run_name = t.parent_dag_run_name();
  out->parent_dag_run_id = t.parent_dag_run_id();
  out->dag_run_id = t.dag_run_id();
  out->operation = static_cast<TaskOperation>(t.operation());
  out->target = t.target();
  out->params = t.params();
  out->step = t.step();
  out->worker_selector = std::map<std::string, std::string>(t.worker_selector().begin(), t.worker_selector().end());
  out->definition = t.definition();
  out->worker_id = t.worker_id();
}

class Channel final : public CoordinatorChannel {
 public:
  explicit Channel(std::shared_ptr<grpc::Channel> channel)
      : channel_(std::move(channel)), stub_(v1::CoordinatorService::NewStub(channel_)) {}

  ~Channel() override { CancelPolls(); }

  CallResult CheckHealth(std::chrono::milliseconds timeout) override {
    Call call(this);
    if (call.context == nullptr) return Cancelled();
    call.context->set_deadline(std::chrono::system_clock::now() + timeout);
    static const grpc::internal::RpcMethod method("/grpc.health.v1.Health/Check",
                                                  grpc::internal::RpcMethod::NORMAL_RPC);
    grpc::Slice empty("", 0);
    grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    grpc::Status s = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
        channel_.get(), method, call.context.get(), request, &response);
    if (!s.ok()) return FromStatus(s);
    std::vector<grpc::Slice> slices;
    std::string bytes;
    if (response.Dump(&slices).ok()) {
      for (const grpc::Slice& slice : slices) bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    // HealthCheckResponse{status = 1 (field 1, varint)}: 0x08 <status>.
    int status = 0;
    if (bytes.size() >= 2 && bytes[0] == 0x08) status = static_cast<unsigned char>(bytes[1]);
    if (status != 1) return CallResult{14, "coordinator not healthy: status " + std::to_string(status)};
    return CallResult{};
  }

  CallResult Poll(const std::string& worker_id, const std::string& poller_id,
                  const std::map<std::string, std::string>& labels, WireTask* task, bool* got_task) override {
    *got_task = false;
    Call call(this, /*poll=*/true);
    if (call.context == nullptr) return Cancelled();
    v1::PollRequest request;
    request.set_worker_id(worker_id);
    request.set_poller_id(poller_id);
    request.mutable_labels()->insert(labels.begin(), labels.end());
    v1::PollResponse response;
    grpc::Status s = stub_->Poll(call.context.get(), request, &response);
    if (!s.ok()) return FromStatus(s);
    if (response.has_task()) {
      ToWire(response.task(), task);
      *got_task = true;
    }
    return CallResult{};
  }

  CallResult Heartbeat(const WireHeartbeat& hb, std::chrono::milliseconds timeout) override {
    Call call(this);
    if (call.context == nullptr) return Cancelled();
    call.context->set_deadline(std::chrono::system_clock::now() + timeout);
    v1::HeartbeatRequest request;
    request.set_worker_id(hb.worker_id);
    request.mutable_labels()->insert(hb.labels.begin(), hb.labels.end());
    v1::WorkerStats* stats = request.mutable_stats();
    stats->set_total_pollers(hb.total_pollers);
    stats->set_busy_pollers(hb.busy_pollers);
    for (const WireRunningTask& r : hb.running_tasks) {
      v1::RunningTask* t = stats->add_running_tasks();
      t->set_dag_run_id(r.dag_run_id);
      t->set_dag_name(r.dag_name);
      t->set_started_at(r.started_at);
      t->set_root_dag_run_name(r.root_dag_run_name);
      t->set_root_dag_run_id(r.root_dag_run_id);
      t->set_parent_dag_run_name(r.parent_dag_run_name);
      t->set_parent_dag_run_id(r.parent_dag_run_id);
    }
    v1::HeartbeatResponse response;
    return FromStatus(stub_->Heartbeat(call.context.get(), request, &response));
  }

  void CancelPolls() override {
    std::lock_guard<std::mutex> l(mu_);
    cancelled_ = true;
    for (grpc::ClientContext* c : in_flight_) c->TryCancel();
  }

 private:
  // A call's context. A poll's is listed while it is in flight so
  // CancelPolls can reach it, and is null once polls are cancelled.
  struct Call {
    explicit Call(Channel* ch, bool poll = false) : channel(ch), tracked(poll) {
      if (!tracked) {
        context = std::make_unique<grpc::ClientContext>();
        return;
      }
      std::lock_guard<std::mutex> l(channel->mu_);
      if (channel->cancelled_) return;
      context = std::make_unique<grpc::ClientContext>();
      channel->in_flight_.insert(context.get());
    }
    ~Call() {
      if (context == nullptr || !tracked) return;
      std::lock_guard<std::mutex> l(channel->mu_);
      channel->in_flight_.erase(context.get());
    }
    Channel* channel;
    bool tracked;
    std::unique_ptr<grpc::ClientContext> context;
  };

  static CallResult Cancelled() { return CallResult{kCallCancelled, "cancelled"}; }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  std::mutex mu_;
  bool cancelled_ = false;                    // guarded by mu_; polls only
  std::set<grpc::ClientContext*> in_flight_;  // polls; guarded by mu_
};

}  // namespace
}  // namespace dagu::distributed

extern "C" __attribute__((visibility("default"))) dagu::distributed::CoordinatorChannel* dagu_grpc_connect_coordinator(
    const std::string* target, const dagu::distributed::PeerTls* tls, std::string* error) {
  auto channel = dagu::distributed::NewPeerChannel(*target, *tls, error);
  if (channel == nullptr) return nullptr;
  return new dagu::distributed::Channel(std::move(channel));
}
