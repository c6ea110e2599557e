// Keeping the server's credentials (IsAuthSecretVariable: DAGU_AUTH*,
// DAGU_BASICAUTH*) out of the environment block of the processes that spawn
// runs: `dagu scheduler`, `dagu server` and `dagu start-all`.
//
// unsetenv() is not enough: /proc/<pid>/environ shows the block a process
// was exec'ed with, whatever it changes later, and a run's step can read it
// for the run agent (its parent) and for the scheduler or server that
// started that agent (its grand-parent), as the same user. So such a process
// moves the secrets out of its environment block by executing itself again:
//
//   std::map<std::string, std::string> secrets;
//   std::string warning;  // log it once logging is set up
//   if (Status s = HandOverAuthSecrets(&secrets, &warning); !s.ok()) ...  // exit 70
//   ... LoadConfig with ProcessEnvironment() + secrets ...
//
// HandOverAuthSecrets, first call in a process (before any thread starts):
//  - when DAGU_INTERNAL_SECRETS_FD is set (this process is the re-executed
//    one): reads the entries from that descriptor, closes it, unsets the
//    variable and returns them in *secrets. A descriptor that cannot be read
//    is an error (a server must not start without the credentials it was
//    given: it would serve an open API).
//  - otherwise, when the environment holds secret variables: writes them
//    ("KEY=VALUE\0" entries) into an anonymous memory file (memfd_create, not
//    close-on-exec), and execve()s /proc/self/exe with the same arguments
//    (/proc/self/cmdline) and the environment without them, plus
//    DAGU_INTERNAL_SECRETS_FD=<fd>. Same pid, so systemd's MAINPID and
//    NOTIFY_SOCKET still hold. Does not return when the exec succeeds.
//    When it cannot (no /proc, no memfd), unsets them as before, returns
//    them in *secrets and sets *warning: the block still holds them.
//  - otherwise: nothing (*secrets left empty).
//
// The values then live only in this process's memory (Config), never in an
// environment a child can see. docs/web.md, "Credentials and runs".
#pragma once

#include <map>
#include <string>

#include "core/status.h"

namespace dagu {

inline constexpr const char* kSecretsFdEnv = "DAGU_INTERNAL_SECRETS_FD";

Status HandOverAuthSecrets(std::map<std::string, std::string>* secrets, std::string* warning);

}  // namespace dagu
