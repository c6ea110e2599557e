#include "auth/auth_layout.h"

#include "core/file_system.h"

namespace dagu::auth {

std::string RecordPath(const std::string& dir, std::string_view id) {
  std::string name(id);
  name += kRecordExtension;
  return JoinPath(dir, name);
}

bool IsSafeRecordId(std::string_view id) {
  if (id.empty() || id == "." || id == "..") return false;
  return id.find('/') == std::string_view::npos && id.find('\0') == std::string_view::npos;
}

}  // namespace dagu::auth
