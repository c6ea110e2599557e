#include "distributed/coordinator_dispatcher.h"

#include "distributed/coordinator_loader.h"
#include "distributed/client_module.h"

namespace dagu::distributed {
namespace {

DispatchCallResult CallThroughModule(const std::string& target, const PeerTls& tls, const DispatchTask& task,
                                     std::chrono::milliseconds timeout, std::string* error) {
  StatusOr<void*> symbol = GrpcModuleSymbol(kDispatchTaskSymbol);
  if (!symbol.ok()) {
    *error = symbol.status().ToString();
    return DispatchCallResult::kFailed;
  }
  auto fn = reinterpret_cast<DispatchTaskFn>(*symbol);
  return fn(target.c_str(), &tls, &task, static_cast<int>(timeout.count()), error);
}

}  // namespace

CoordinatorDispatcher::CoordinatorDispatcher(CoordinatorDiscovery* discovery, DispatchCallFn call,
                                             std::chrono::milliseconds call_timeout, PeerTls tls)
    : discovery_(discovery), call_(std::move(call)), call_timeout_(call_timeout) {
  if (!call_) {
    call_ = [tls](const std::string& target, const DispatchTask& task, std::chrono::milliseconds timeout,
                  std::string* error) { return CallThroughModule(target, tls, task, timeout, error); };
  }
}

Status CoordinatorDispatcher::Dispatch(const DispatchTask& task) {
  std::vector<CoordinatorEndpoint> coordinators;
  DAGU_RETURN_IF_ERROR(discovery_->Find(&coordinators));
  if (coordinators.empty()) return Status::NotFound("no coordinator in the service registry");
  std::string no_worker;
  std::string failures;
  for (const CoordinatorEndpoint& c : coordinators) {
    std::string error;
    DispatchCallResult r = call_(c.Target(), task, call_timeout_, &error);
    if (r == DispatchCallResult::kAccepted) return Status::OK();
    if (r == DispatchCallResult::kNoWorker) {
      no_worker = "coordinator " + c.Target() + ": " + error;
      continue;
    }
    failures += (failures.empty() ? "" : "; ") + ("coordinator " + c.Target() + ": " + error);
    discovery_->Invalidate();  // it may be gone: read the registry again next time
  }
  if (!no_worker.empty()) return Status::Busy(no_worker);
  return Status::IOError(failures);
}

}  // namespace dagu::distributed
