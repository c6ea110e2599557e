#include "distributed/coordinator_workers.h"

#include "distributed/coordinator_loader.h"

namespace dagu::distributed {
namespace {

constexpr int kGrpcUnavailable = 14;

int CallThroughModule(const std::string& target, const PeerTls& tls, std::chrono::milliseconds timeout,
                      std::vector<WorkerInfoData>* out, std::string* error) {
  StatusOr<void*> symbol = GrpcModuleSymbol(kGetWorkersSymbol);
  if (!symbol.ok()) {
    *error = symbol.status().ToString();
    return 2;  // UNKNOWN
  }
  auto fn = reinterpret_cast<GetWorkersFn>(*symbol);
  return fn(target.c_str(), &tls, static_cast<int>(timeout.count()), out, error);
}

}  // namespace

WorkersAnswer CollectWorkers(CoordinatorDiscovery* discovery, const GetWorkersCallFn& call,
                             std::chrono::milliseconds timeout, const PeerTls& tls) {
  WorkersAnswer answer;
  std::vector<CoordinatorEndpoint> coordinators;
  Status s = discovery->Find(&coordinators);
  if (!s.ok()) {
    answer.errors.push_back("failed to discover coordinators: " + s.ToString());
    return answer;
  }
  int last_code = 0;
  std::string last_error;
  for (const CoordinatorEndpoint& c : coordinators) {
    std::vector<WorkerInfoData> got;
    std::string error;
    int code = call ? call(c.Target(), timeout, &got, &error) : CallThroughModule(c.Target(), tls, timeout, &got, &error);
    if (code != 0) {
      last_code = code;
      last_error = error;
      continue;
    }
    for (WorkerInfoData& w : got) answer.workers.push_back(std::move(w));
  }
  if (!answer.workers.empty() || last_code == 0) return answer;
  if (last_code == kGrpcUnavailable) {
    answer.unavailable = true;
  } else {
    answer.errors.push_back("failed to get workers from any coordinator: " + last_error);
  }
  return answer;
}

}  // namespace dagu::distributed
