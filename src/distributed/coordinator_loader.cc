#include "distributed/coordinator_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

namespace dagu::distributed {
namespace {

struct Loaded {
  void* handle = nullptr;
  std::string error;
};

// dlopen once; the handle is never closed (the module's threads may outlive
// any owner that would close it).
const Loaded& LoadModule() {
  static const Loaded loaded = [] {
    Loaded l;
    std::error_code ec;
    std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    std::string tried;
    for (const std::string& path : GrpcModuleCandidates(exe)) {
      if (!std::filesystem::exists(path, ec)) {
        tried += (tried.empty() ? "" : ", ") + path;
        continue;
      }
      l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (l.handle == nullptr) {
        const char* why = dlerror();
        l.error = "cannot load " + path + ": " + (why ? why : "unknown error");
      }
      return l;
    }
    l.error = std::string("cannot find ") + kGrpcModuleFile + " (looked at " + tried + ")";
    return l;
  }();
  return loaded;
}

// The module's symbol `name` once the ABI is checked.
StatusOr<void*> ModuleSymbol(const char* name) {
  const Loaded& module = LoadModule();
  if (module.handle == nullptr) return Status::NotFound(module.error);
  auto abi = reinterpret_cast<ModuleAbiFn>(dlsym(module.handle, kModuleAbiSymbol));
  void* symbol = dlsym(module.handle, name);
  if (abi == nullptr || symbol == nullptr) {
    return Status::NotSupported(std::string(kGrpcModuleFile) + " lacks its entry points");
  }
  if (abi() != kGrpcModuleAbi) {
    return Status::NotSupported(std::string(kGrpcModuleFile) + " is from another build of dagu (ABI " +
                                std::to_string(abi()) + ", want " + std::to_string(kGrpcModuleAbi) + ")");
  }
  return symbol;
}

}  // namespace

std::vector<std::string> GrpcModuleCandidates(const std::string& exe_path) {
  std::filesystem::path dir = std::filesystem::path(exe_path).parent_path();
  return {(dir / kGrpcModuleFile).string(), (dir.parent_path() / "lib" / "dagu" / kGrpcModuleFile).string()};
}

StatusOr<void*> GrpcModuleSymbol(const char* name) {
  const Loaded& module = LoadModule();
  if (module.handle == nullptr) return Status::NotFound(module.error);
  auto abi = reinterpret_cast<ModuleAbiFn>(dlsym(module.handle, kModuleAbiSymbol));
  if (abi == nullptr || abi() != kGrpcModuleAbi) {
    return Status::NotSupported(std::string(kGrpcModuleFile) + " is from another build of dagu");
  }
  void* symbol = dlsym(module.handle, name);
  if (symbol == nullptr) return Status::NotSupported(std::string(kGrpcModuleFile) + " lacks " + name);
  return symbol;
}

StatusOr<std::unique_ptr<CoordinatorServer>> StartCoordinator(const CoordinatorOptions& options) {
  StatusOr<void*> symbol = ModuleSymbol(kStartCoordinatorSymbol);
  if (!symbol.ok()) return symbol.status();
  auto start = reinterpret_cast<StartCoordinatorFn>(symbol.value());
  std::string error;
  CoordinatorServer* server = start(&options, &error);
  if (server == nullptr) return Status::IOError(error);
  return std::unique_ptr<CoordinatorServer>(server);
}

StatusOr<std::unique_ptr<CoordinatorChannel>> ConnectCoordinator(const std::string& target, const PeerTls& tls) {
  StatusOr<void*> symbol = ModuleSymbol(kConnectCoordinatorSymbol);
  if (!symbol.ok()) return symbol.status();
  auto connect = reinterpret_cast<ConnectCoordinatorFn>(symbol.value());
  std::string error;
  CoordinatorChannel* channel = connect(&target, &tls, &error);
  if (channel == nullptr) return Status::InvalidArgument(error);
  return std::unique_ptr<CoordinatorChannel>(channel);
}

}  // namespace dagu::distributed
