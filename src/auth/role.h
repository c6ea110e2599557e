// Role: Dagu 1.30.2's four roles (internal/auth/role.go), strongest first:
// admin > manager (may write DAGs) > operator (may run them) > viewer (reads).
#pragma once

#include <optional>
#include <string_view>

namespace dagu::auth {

enum class Role { kAdmin, kManager, kOperator, kViewer };

// "admin", "manager", "operator", "viewer".
std::string_view RoleName(Role role);
// The role named exactly `name` (case-sensitive, as 1.30.2); nullopt otherwise.
std::optional<Role> ParseRole(std::string_view name);

inline bool CanWrite(Role r) { return r == Role::kAdmin || r == Role::kManager; }
inline bool CanExecute(Role r) { return r != Role::kViewer; }
inline bool IsAdmin(Role r) { return r == Role::kAdmin; }

}  // namespace dagu::auth
