#include "core/startup_pages.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dagu {
namespace {

struct Mapping {
  uintptr_t begin = 0, end = 0;
  bool droppable = false;
};

// /proc/self/smaps: a mapping line, then its fields ("Anonymous: 0 kB").
std::vector<Mapping> DroppableMappings() {
  std::vector<Mapping> out;
  std::ifstream in("/proc/self/smaps");
  std::string line;
  Mapping current;
  bool have = false;
  while (std::getline(in, line)) {
    unsigned long long b = 0, e = 0;
    char perms[8] = {0};
    unsigned long long offset = 0;
    char dev[16] = {0};
    unsigned long long inode = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %15s %llu", &b, &e, perms, &offset, dev, &inode) == 6) {
      if (have && current.droppable) out.push_back(current);
      current = Mapping{static_cast<uintptr_t>(b), static_cast<uintptr_t>(e), false};
      // A private mapping of a file (inode != 0) that is not writable.
      current.droppable = inode != 0 && perms[1] != 'w' && perms[3] == 'p';
      have = true;
      continue;
    }
    if (have && line.rfind("Anonymous:", 0) == 0) {
      std::istringstream fields(line.substr(10));
      unsigned long long kb = 1;
      fields >> kb;
      if (kb != 0) current.droppable = false;  // holds a private copy (relocated data): keep
    }
  }
  if (have && current.droppable) out.push_back(current);
  return out;
}

}  // namespace

size_t ReleaseStartupPages() {
  size_t released = 0;
  for (const Mapping& m : DroppableMappings()) {
    if (::madvise(reinterpret_cast<void*>(m.begin), m.end - m.begin, MADV_DONTNEED) == 0) released += m.end - m.begin;
  }
  ::malloc_trim(0);
  return released;
}

}  // namespace dagu
