// libcurl's functions that dagu calls, forwarded to the library loaded at
// first use (lazy_library.h). Each has the signature of <curl/curl.h>.
//
// curl_easy_setopt and curl_easy_getinfo take a variable argument; libcurl
// reads it by the option's type, so the stub reads it the same way
// (CURLOPTTYPE_* ranges of the option number; getinfo always takes a
// pointer) and passes it on with that type.

// The stubs define the functions themselves: no type-checking macros that
// would rename them.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include <cstdarg>

#include "dynlib/lazy_symbol.h"

DAGU_LAZY_FN(kCurl, CURL*, curl_easy_init, (void), ())
DAGU_LAZY_FN(kCurl, CURLcode, curl_easy_perform, (CURL * curl), (curl))
DAGU_LAZY_FN(kCurl, void, curl_easy_cleanup, (CURL * curl), (curl))
DAGU_LAZY_FN(kCurl, const char*, curl_easy_strerror, (CURLcode code), (code))
DAGU_LAZY_FN(kCurl, void, curl_free, (void* p), (p))
DAGU_LAZY_FN(kCurl, curl_slist*, curl_slist_append, (curl_slist * list, const char* data), (list, data))
DAGU_LAZY_FN(kCurl, void, curl_slist_free_all, (curl_slist * list), (list))
DAGU_LAZY_FN(kCurl, CURLU*, curl_url, (void), ())
DAGU_LAZY_FN(kCurl, void, curl_url_cleanup, (CURLU * handle), (handle))
DAGU_LAZY_FN(kCurl, CURLUcode, curl_url_get, (CURLU * handle, CURLUPart what, char** part, unsigned int flags),
             (handle, what, part, flags))
DAGU_LAZY_FN(kCurl, CURLUcode, curl_url_set,
             (CURLU * handle, CURLUPart what, const char* part, unsigned int flags), (handle, what, part, flags))

// The last named parameter is an enum, as in <curl/curl.h>: Clang warns that
// va_start after a parameter that may be promoted is undefined, but the
// signature is libcurl's, and libcurl's own curl_easy_setopt does the same.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvarargs"
#endif

extern "C" CURLcode curl_easy_setopt(CURL* curl, CURLoption option, ...) {
  static const auto fn = dagu::lazy_internal::Resolve<decltype(&curl_easy_setopt)>(dagu::LazyLibrary::kCurl,
                                                                                   "curl_easy_setopt");
  va_list ap;
  va_start(ap, option);
  CURLcode rc;
  const int type = static_cast<int>(option) / 10000 * 10000;
  if (type == CURLOPTTYPE_LONG) {
    rc = fn(curl, option, va_arg(ap, long));
  } else if (type == CURLOPTTYPE_OFF_T) {
    rc = fn(curl, option, va_arg(ap, curl_off_t));
  } else if (type == CURLOPTTYPE_FUNCTIONPOINT) {
    using AnyFunction = void (*)();
    rc = fn(curl, option, va_arg(ap, AnyFunction));
  } else {  // OBJECTPOINT (strings, lists, callbacks' data) and BLOB
    rc = fn(curl, option, va_arg(ap, void*));
  }
  va_end(ap);
  return rc;
}

extern "C" CURLcode curl_easy_getinfo(CURL* curl, CURLINFO info, ...) {
  static const auto fn = dagu::lazy_internal::Resolve<decltype(&curl_easy_getinfo)>(dagu::LazyLibrary::kCurl,
                                                                                    "curl_easy_getinfo");
  va_list ap;
  va_start(ap, info);
  void* out = va_arg(ap, void*);
  va_end(ap);
  return fn(curl, info, out);
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif
