// Loads libdagu-grpc.so (coordinator_module.h) and starts a coordinator in it,
// or opens client channels to one.
// The module is looked for beside the running executable (the build tree's
// bin/) and in ../lib/dagu/ from it (the installed layout, /usr/lib/dagu).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status_or.h"
#include "distributed/coordinator_module.h"

namespace dagu::distributed {

// Where the module is looked for, in order, for an executable at `exe_path`.
std::vector<std::string> GrpcModuleCandidates(const std::string& exe_path);

// Loads the module (once per process; it stays loaded) and starts a
// coordinator. Errors: NotFound naming every place tried, or the
// module's own error (e.g. the port is taken).
StatusOr<std::unique_ptr<CoordinatorServer>> StartCoordinator(const CoordinatorOptions& options);

// Loads the module (as above) and opens a channel to a coordinator at
// "host:port", plaintext or TLS as `tls` says (it connects lazily: a
// coordinator that is down shows in the channel's calls). InvalidArgument
// when a TLS file cannot be read.
StatusOr<std::unique_ptr<CoordinatorChannel>> ConnectCoordinator(const std::string& target, const PeerTls& tls = {});

// Loads the module (once per process) and looks up the entry point `name`,
// after checking the module's ABI. Errors as StartCoordinator's, or
// NotSupported when the module lacks `name`.
StatusOr<void*> GrpcModuleSymbol(const char* name);

}  // namespace dagu::distributed
