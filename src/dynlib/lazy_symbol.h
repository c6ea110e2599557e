// The forwarding behind the stubs of lazy_library.h: DAGU_LAZY_FN defines a
// library function with its header's signature that calls the library's own,
// looked up once.
#pragma once

#include "dynlib/lazy_library.h"

namespace dagu::lazy_internal {

// The library's `name`, typed as the header declares it (Fn = decltype(&name)).
template <typename Fn>
Fn Resolve(LazyLibrary lib, const char* name) {
  return reinterpret_cast<Fn>(LazySymbol(lib, name));
}

}  // namespace dagu::lazy_internal

// Defines `ret name params` to call the library's `name` with `args`. The
// pointer is resolved at the first call (a function-local static: once,
// thread-safe).
#define DAGU_LAZY_FN(lib, ret, name, params, args)                                                 \
  extern "C" ret name params {                                                                   \
    static const auto fn = ::dagu::lazy_internal::Resolve<decltype(&name)>(::dagu::LazyLibrary::lib, #name); \
    return fn args;                                                                              \
  }
