// Shared libraries that `dagu` loads at their first use instead of at exec.
//
// libcurl (the http executor and mail), libssh (the ssh executor) and libjq
// (the jq executor) bring 28 of the 45 shared libraries the binary would
// otherwise map at every exec (gnutls, krb5, ldap, nghttp2, ...): loading
// them cost every `dagu start` ~10 ms of CPU and every scheduler ~8 MB of
// mapped pages, for steps most DAGs never run (docs/benchmarks.md, "Exit
// of dagu start" and "RSS"). libarchive (the archive executor) would add
// libxml2 and ICU among others; libjwt (builtin auth's tokens) libjansson and
// libcrypto. OpenSSL's libssl and libcrypto serve only the
// web port's TLS (http::Server with a certificate). The binary is therefore
// not linked against them. Instead this part defines their functions that
// dagu calls (curl_stubs.cc, ssh_stubs.cc, jq_stubs.cc, archive_stubs.cc, jwt_stubs.cc, ssl_stubs.cc,
// crypto_stubs.cc, each with the signature of the library's own header, so
// the compiler checks it); the first call opens the library with dlopen and
// every call goes to its function.
//
// The stubs are not exported from the binary (nothing it links refers to
// them), so a library dlopen'ed later (libcurl, libssh) binds to the real
// libssl and libcrypto, never to these.
//
// Contract: code that starts using one of these libraries calls
// LoadLazyLibrary() first and reports its Status (a step fails with it), so
// that a missing library is an error naming it, never a crash. A stub
// called without that check loads the library itself and, if it cannot,
// ends the process with a message naming the library and the function.
#pragma once

#include <string>

#include "core/status.h"

namespace dagu {

enum class LazyLibrary { kCurl, kSsh, kJq, kArchive, kJwt, kSsl, kCrypto };

// Opens `lib` once (thread-safe; later calls return the first answer).
// The error names the library's file and what dlopen said.
Status LoadLazyLibrary(LazyLibrary lib);

// Whether `lib` is mapped into this process now (for tests and /proc checks).
bool LazyLibraryLoaded(LazyLibrary lib);

// The library's file name (its soname, e.g. "libcurl.so.4").
const char* LazyLibraryFile(LazyLibrary lib);

// Opens the shared library `file` (RTLD_NOW | RTLD_LOCAL) into *handle, as
// LoadLazyLibrary does; the error names the file and what dlopen said.
Status OpenSharedLibrary(const std::string& file, void** handle);

// The address of `symbol` in `lib`, loading it first. Ends the process with
// a message when the library or the symbol cannot be found (see above).
void* LazySymbol(LazyLibrary lib, const char* symbol);

}  // namespace dagu
