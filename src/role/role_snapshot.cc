#include "role/role_snapshot.h"

namespace dagu {

const char* RoleStateName(RoleState state) {
  switch (state) {
    case RoleState::kStarting: return "starting";
    case RoleState::kStandby: return "standby";
    case RoleState::kActive: return "active";
    case RoleState::kStopping: return "stopping";
    case RoleState::kStopped: return "stopped";
    case RoleState::kLost: return "lost";
    case RoleState::kFailed: return "failed";
  }
  return "starting";
}

}  // namespace dagu
