#include "auth/record_json.h"

#include "core/time_format.h"

namespace dagu::auth {

Status ReadStringField(const RecordJson& j, const char* key, std::string* out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return Status::Corruption(std::string("missing string field ") + key);
  *out = it->get<std::string>();
  return Status::OK();
}

Status ReadTimeField(const RecordJson& j, const char* key, WallTime* out) {
  std::string text;
  Status s = ReadStringField(j, key, &text);
  if (!s.ok()) return s;
  bool is_set = false;
  s = ParseRFC3339(text, out, &is_set);
  if (!s.ok()) return Status::Corruption(std::string("bad time in ") + key + ": " + s.message());
  if (!is_set) *out = WallTime{};
  return Status::OK();
}

}  // namespace dagu::auth
