// The real Dagu 1.30.2 binary for process tests that run it beside ours: the
// path bench/fetch_peer.sh prints (DAGU_PEER_BINARY, or fetched once from npm
// into build/.cache/dagu-1.30.2). Tests skip, saying why, when it cannot be
// had. (The compat suite has its own cached copy, tests/compat/peer.h.)
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

namespace dagu::testing {

// The path of the Dagu 1.30.2 binary, or "" with *why set. Needs
// DAGU_SOURCE_DIR defined by the test target.
inline std::string FetchPeer(std::string* why) {
  std::string cmd = std::string("bash '") + DAGU_SOURCE_DIR + "/bench/fetch_peer.sh' 2>&1";
  FILE* f = ::popen(cmd.c_str(), "r");
  if (f == nullptr) {
    *why = "cannot run " + cmd;
    return "";
  }
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f) != nullptr) out += buf;
  int rc = ::pclose(f);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  std::string last = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  if (rc != 0 || last.empty() || !std::filesystem::exists(last)) {
    *why = out;
    return "";
  }
  return last;
}

}  // namespace dagu::testing
