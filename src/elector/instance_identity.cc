#include "elector/instance_identity.h"

#include <unistd.h>

#include <climits>

#include "core/time_format.h"

namespace dagu {

std::string LocalHostName() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown-host";
  return buf;
}

std::string MakeInstanceId(const std::string& host, int64_t pid, WallTime started_at) {
  return host + "-" + std::to_string(pid) + "-" + std::to_string(UnixSeconds(started_at));
}

InstanceIdentity CurrentInstance(const Clock& clock) {
  InstanceIdentity id;
  id.host = LocalHostName();
  id.pid = ::getpid();
  id.started_at = clock.Now();
  id.instance_id = MakeInstanceId(id.host, id.pid, id.started_at);
  return id;
}

}  // namespace dagu
