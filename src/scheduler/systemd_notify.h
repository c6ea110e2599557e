// SystemdNotify: the sd_notify(3) datagram protocol, without libsystemd: when
// the process runs under systemd with Type=notify ($NOTIFY_SOCKET set), it
// tells systemd READY=1 once /health is serving and the first attempt at the
// lock has succeeded (either role), STATUS=<role and lock holder> on every
// role change, and STOPPING=1 when it stops. A no-op when $NOTIFY_SOCKET is
// unset. Errors are ignored (notification is best effort).
#pragma once

#include <string>

namespace dagu {

// Sends `state` ("READY=1\nSTATUS=...") to $NOTIFY_SOCKET. Returns false when
// there is no socket or the send failed.
bool NotifySystemd(const std::string& state);

}  // namespace dagu
