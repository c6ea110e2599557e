// The boundary between the dagu binary and libdagu-grpc.so, the shared
// object that holds everything that links gRPC and protobuf (built from
// src/distributed/grpc/). Linking gRPC into dagu would map ~45 more
// libraries at every exec (measured +30 ms per `dagu version`,
// docs/decisions.md), so only `dagu coordinator` loads it, with dlopen
// (coordinator_loader.h). Both sides are built together by the same
// compiler; kGrpcModuleAbi changes whenever this header does.
#pragma once

#include <cstddef>
#include <string>

namespace dagu::distributed {

inline constexpr int kGrpcModuleAbi = 1;
inline constexpr char kGrpcModuleFile[] = "libdagu-grpc.so";
inline constexpr char kStartCoordinatorSymbol[] = "dagu_grpc_start_coordinator";
inline constexpr char kModuleAbiSymbol[] = "dagu_grpc_module_abi";

struct CoordinatorOptions {
  std::string bind_host = "127.0.0.1";
  int port = 50055;  // 0: any free port (tests)
};

// A running coordinator: coordinator.v1.CoordinatorService and
// grpc.health.v1.Health ("" and "coordinator.v1.CoordinatorService" SERVING)
// on plaintext HTTP/2.
class CoordinatorServer {
 public:
  virtual ~CoordinatorServer() = default;
  // The port it listens on (the bound one when the options asked for 0).
  virtual int port() const = 0;
  virtual size_t waiting_pollers() const = 0;
  // Health NOT_SERVING, then stops: waiting polls end (CANCELLED), calls in
  // flight get up to 2 s. Idempotent; the destructor calls it.
  virtual void Shutdown() = 0;
};

// The module's entry points (extern "C"):
//   int dagu_grpc_module_abi();  -> kGrpcModuleAbi
//   CoordinatorServer* dagu_grpc_start_coordinator(const CoordinatorOptions*, std::string* error);
//     nullptr (and *error says why) when it cannot listen.
using ModuleAbiFn = int (*)();
using StartCoordinatorFn = CoordinatorServer* (*)(const CoordinatorOptions*, std::string*);

}  // namespace dagu::distributed
