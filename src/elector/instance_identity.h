// InstanceIdentity: who this scheduler process is, in Dagu's form. The
// instance ID is "<hostname>-<pid>-<unix seconds at start>" (as Dagu's
// scheduler makes it); it names the registry entry and the lock's owner.
#pragma once

#include <cstdint>
#include <string>

#include "core/clock.h"

namespace dagu {

struct InstanceIdentity {
  std::string instance_id;
  std::string host;
  int64_t pid = 0;
  WallTime started_at;
};

// The host name ("unknown-host" when it cannot be read, as Dagu does).
std::string LocalHostName();

// <host>-<pid>-<unix seconds of `started_at`>.
std::string MakeInstanceId(const std::string& host, int64_t pid, WallTime started_at);

// The identity of this process, started now.
InstanceIdentity CurrentInstance(const Clock& clock);

}  // namespace dagu
