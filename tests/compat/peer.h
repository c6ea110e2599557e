// The real Dagu 1.30.2 binary for the compatibility tests: fetched once per
// test process by bench/fetch_peer.sh (cached under build/.cache, or
// DAGU_PEER_BINARY). Without it the tests skip, saying why.
#pragma once

#include <stdio.h>
#include <sys/wait.h>

#include <string>

namespace dagu::testing {

// The peer's path, or the reason it cannot be had.
struct Peer {
  std::string binary;
  std::string why_not;
};

inline const Peer& GetPeer() {
  static const Peer peer = [] {
    Peer p;
    std::string cmd = std::string("bash ") + DAGU_SOURCE_DIR + "/bench/fetch_peer.sh 2>&1";
    FILE* f = ::popen(cmd.c_str(), "r");
    if (f == nullptr) {
      p.why_not = "cannot run bench/fetch_peer.sh";
      return p;
    }
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, f)) out.append(buf, n);
    int st = ::pclose(f);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    if (st != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      p.why_not = "Dagu 1.30.2 is not available (" + out + ")";
      return p;
    }
    p.binary = out.substr(out.find_last_of('\n') == std::string::npos ? 0 : out.find_last_of('\n') + 1);
    return p;
  }();
  return peer;
}

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
