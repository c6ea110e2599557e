#include "dynlib/lazy_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace dagu {
namespace {

// The sonames are those of the libraries found at build time (CMakeLists.txt
// passes them), so that a build against newer majors loads what it was
// compiled against.
#ifndef DAGU_CURL_SONAME
#error "DAGU_CURL_SONAME must be defined by the build"
#endif

struct Slot {
  const char* file;
  std::once_flag once;
  void* handle = nullptr;
  std::string error;
};

Slot& SlotOf(LazyLibrary lib) {
  static Slot curl{DAGU_CURL_SONAME, {}, nullptr, {}};
  static Slot ssh{DAGU_SSH_SONAME, {}, nullptr, {}};
  static Slot jq{DAGU_JQ_SONAME, {}, nullptr, {}};
  static Slot archive{DAGU_ARCHIVE_SONAME, {}, nullptr, {}};
  static Slot jwt{DAGU_JWT_SONAME, {}, nullptr, {}};
  static Slot ssl{DAGU_SSL_SONAME, {}, nullptr, {}};
  static Slot crypto{DAGU_CRYPTO_SONAME, {}, nullptr, {}};
  switch (lib) {
    case LazyLibrary::kCurl:
      return curl;
    case LazyLibrary::kSsh:
      return ssh;
    case LazyLibrary::kJq:
      return jq;
    case LazyLibrary::kArchive:
      return archive;
    case LazyLibrary::kJwt:
      return jwt;
    case LazyLibrary::kSsl:
      return ssl;
    case LazyLibrary::kCrypto:
      break;
  }
  return crypto;
}

Slot& Opened(LazyLibrary lib) {
  Slot& s = SlotOf(lib);
  std::call_once(s.once, [&s] {
    Status opened = OpenSharedLibrary(s.file, &s.handle);
    if (!opened.ok()) s.error = opened.message();
  });
  return s;
}

}  // namespace

Status OpenSharedLibrary(const std::string& file, void** handle) {
  // RTLD_NOW: a missing symbol of the library's own dependencies is found
  // here, not in the middle of a step. RTLD_LOCAL: its symbols do not become
  // visible to libraries loaded later.
  *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (*handle != nullptr) return Status::OK();
  const char* why = dlerror();
  return Status::IOError("cannot load " + file + ": " + (why != nullptr ? why : "unknown error"));
}

Status LoadLazyLibrary(LazyLibrary lib) {
  Slot& s = Opened(lib);
  if (s.handle == nullptr) return Status::IOError(s.error);
  return Status::OK();
}

bool LazyLibraryLoaded(LazyLibrary lib) {
  const char* file = SlotOf(lib).file;
  void* h = dlopen(file, RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return false;
  dlclose(h);  // RTLD_NOLOAD took a reference
  return true;
}

const char* LazyLibraryFile(LazyLibrary lib) { return SlotOf(lib).file; }

void* LazySymbol(LazyLibrary lib, const char* symbol) {
  Slot& s = Opened(lib);
  if (s.handle == nullptr) {
    std::fprintf(stderr, "dagu: %s (needed for %s)\n", s.error.c_str(), symbol);
    std::abort();
  }
  void* p = dlsym(s.handle, symbol);
  if (p == nullptr) {
    std::fprintf(stderr, "dagu: %s has no function %s\n", s.file, symbol);
    std::abort();
  }
  return p;
}

}  // namespace dagu
