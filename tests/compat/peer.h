// The real Dagu 1.30.2 binary that compatibility tests run beside ours. It
// comes from bench/fetch_peer.sh (DAGU_PEER_BINARY, or fetched once from npm
// into build/.cache/dagu-1.30.2). Tests skip with `why_not` when it cannot be
// had.
#pragma once

#include <string>

namespace dagu::testing {

struct Peer {
  std::string binary;   // "" when not available
  std::string why_not;  // the reason, when not available
};

// Looks the peer up once per process (thread-safe).
const Peer& GetPeer();

// DAGs both kinds of compatibility tests put in a home: two steps passing
// a param, and a failing step with a dependant that never runs.
inline constexpr const char* kHelloDag =
    "params: NAME=world\n"
    "steps:\n"
    "  - name: first\n"
    "    command: echo hello ${NAME}\n"
    "  - name: second\n"
    "    command: echo second step\n"
    "    depends: [first]\n";
inline constexpr const char* kFailDag =
    "steps:\n"
    "  - name: bad\n"
    "    command: \"echo oops >&2; exit 3\"\n"
    "  - name: never\n"
    "    command: echo never\n"
    "    depends: [bad]\n";

}  // namespace dagu::testing
