// HeapOptional<T>: std::optional's interface (the part this code base uses)
// with the value on the heap, so an empty one costs one pointer instead of
// sizeof(T). For large, mostly absent members: Dag's six handler steps (a
// Step is ~1.4 KB; six empty std::optional<Step> made every Dag 10 KB) and
// the parses the web server keeps for thousands of DAG files. Copying copies
// the value (value semantics, as std::optional); moving moves the pointer.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace dagu {

template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(std::nullopt_t) {}  // NOLINT: implicit, as std::optional
  HeapOptional(const T& value) : p_(std::make_unique<T>(value)) {}        // NOLINT: implicit, as std::optional
  HeapOptional(T&& value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: implicit, as std::optional
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional(HeapOptional&& o) noexcept = default;
  HeapOptional& operator=(const HeapOptional& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapOptional& operator=(HeapOptional&& o) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  HeapOptional& operator=(const T& value) {
    p_ = std::make_unique<T>(value);
    return *this;
  }
  HeapOptional& operator=(T&& value) {
    p_ = std::make_unique<T>(std::move(value));
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  // As std::optional, dereferencing an empty one is undefined (here: null).
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& value() {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  const T& value() const {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  template <typename... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace dagu
