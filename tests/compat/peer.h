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

}  // namespace dagu::testing
