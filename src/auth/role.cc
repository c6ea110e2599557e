#include "auth/role.h"

namespace dagu::auth {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kAdmin: return "admin";
    case Role::kManager: return "manager";
    case Role::kOperator: return "operator";
    case Role::kViewer: return "viewer";
  }
  return "viewer";
}

std::optional<Role> ParseRole(std::string_view name) {
  for (Role r : {Role::kAdmin, Role::kManager, Role::kOperator, Role::kViewer}) {
    if (RoleName(r) == name) return r;
  }
  return std::nullopt;
}

}  // namespace dagu::auth
