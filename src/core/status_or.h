// StatusOr<T>: a value, or the Status that says why there is none (as
// absl::StatusOr), for functions that used to return a Status and fill a
// pointer. Reading value() of an error is a programming error (asserted).
//
//   StatusOr<bool> alive = procs.IsRunAlive(group, dag, run_id);
//   if (!alive.ok()) return alive.status();
//   if (*alive) ...
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "core/status.h"

namespace dagu {

template <typename T>
class DAGU_MUST_USE_RESULT StatusOr {
 public:
  // An error; `status` must not be OK.
  StatusOr(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT: implicit
  StatusOr(T value) : value_(std::move(value)) {}                                     // NOLINT: implicit

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T& value() & {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  // The value, or `fallback` on an error.
  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace dagu

// Declares `lhs` from the value of `expr` (a StatusOr), or returns its
// Status from the enclosing function.
#define DAGU_ASSIGN_OR_RETURN(lhs, expr) DAGU_ASSIGN_OR_RETURN_IMPL(DAGU_STATUS_OR_CONCAT(_dagu_or_, __LINE__), lhs, expr)
#define DAGU_STATUS_OR_CONCAT_INNER(a, b) a##b
#define DAGU_STATUS_OR_CONCAT(a, b) DAGU_STATUS_OR_CONCAT_INNER(a, b)
#define DAGU_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
