#include "peer.h"

#include <stdio.h>
#include <sys/wait.h>

namespace dagu::testing {

const Peer& GetPeer() {
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
    size_t nl = out.find_last_of('\n');
    p.binary = out.substr(nl == std::string::npos ? 0 : nl + 1);
    return p;
  }();
  return peer;
}

}  // namespace dagu::testing
