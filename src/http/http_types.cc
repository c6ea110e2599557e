#include "http/http_types.h"

#include <algorithm>

#include "core/strings.h"

namespace dagu::http {
namespace {

bool HasCrOrLf(const std::string& s) { return s.find_first_of("\r\n") != std::string::npos; }

// The id-th value of `key` in `map`, or "".
template <typename Map>
std::string ValueAt(const Map& map, const std::string& key, size_t id) {
  auto [first, last] = map.equal_range(key);
  for (; first != last; ++first, --id) {
    if (id == 0) return first->second;
  }
  return "";
}

}  // namespace

bool CaseInsensitiveLess::operator()(const std::string& a, const std::string& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](char x, char y) { return AsciiLowerChar(x) < AsciiLowerChar(y); });
}

bool Request::has_header(const std::string& key) const { return headers.count(key) > 0; }

std::string Request::get_header_value(const std::string& key, size_t id) const { return ValueAt(headers, key, id); }

size_t Request::get_header_value_count(const std::string& key) const { return headers.count(key); }

bool Request::has_param(const std::string& key) const { return params.count(key) > 0; }

std::string Request::get_param_value(const std::string& key, size_t id) const { return ValueAt(params, key, id); }

bool Response::has_header(const std::string& key) const { return headers.count(key) > 0; }

std::string Response::get_header_value(const std::string& key, size_t id) const { return ValueAt(headers, key, id); }

void Response::set_header(const std::string& key, const std::string& value) {
  if (HasCrOrLf(key) || HasCrOrLf(value)) return;
  headers.emplace(key, value);
}

void Response::set_content(std::string content, const std::string& content_type) {
  body = std::move(content);
  headers.erase("Content-Type");
  set_header("Content-Type", content_type);
}

bool BodyStream::Write(std::string_view bytes) {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return false;
  if (pending_.size() + bytes.size() > max_pending_) {
    closed_ = true;  // too slow: dropped, never waited for
    overflowed_ = true;
    pending_.clear();
    if (notify_) notify_();
    return false;
  }
  pending_.append(bytes);
  if (notify_) notify_();
  return true;
}

void BodyStream::Close() {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return;
  closed_ = true;
  if (notify_) notify_();
}

bool BodyStream::closed() const {
  std::lock_guard<std::mutex> l(mu_);
  return closed_;
}

bool BodyStream::overflowed() const {
  std::lock_guard<std::mutex> l(mu_);
  return overflowed_;
}

void BodyStream::Attach(std::function<void()> notify) {
  std::lock_guard<std::mutex> l(mu_);
  notify_ = std::move(notify);
  if (notify_ && (closed_ || !pending_.empty())) notify_();
}

void BodyStream::Detach() {
  std::lock_guard<std::mutex> l(mu_);
  closed_ = true;
  pending_.clear();
  notify_ = nullptr;
}

std::string BodyStream::Take(bool* ended) {
  std::lock_guard<std::mutex> l(mu_);
  std::string out;
  out.swap(pending_);
  *ended = closed_;
  return out;
}

}  // namespace dagu::http
