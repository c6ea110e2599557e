// Typed, tolerant reading of JSON object fields for the store's decoders
// (status records, dag.json, queue items): a missing or null key leaves the
// target unchanged; a key of the wrong type records an error naming the key
// (the first error wins) and leaves the target unchanged. Every key that was
// read is remembered so that the remaining ones can be kept as `extra`.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/run_status.h"

namespace dagu {

class JsonFields {
 public:
  // `what` names the object in errors, e.g. "status record" or "node 2".
  JsonFields(const Json& object, std::string what);

  void Str(const char* key, std::string* out);
  void Int(const char* key, int* out);
  void Int64(const char* key, int64_t* out);
  void Bool(const char* key, bool* out);
  void Double(const char* key, double* out);  // also accepts true (= 2.0, Dagu's backoff: true)
  void StrList(const char* key, std::vector<std::string>* out);  // also accepts one string
  void IntList(const char* key, std::vector<int>* out);          // numbers or numeric strings
  void StrMap(const char* key, std::map<std::string, std::string>* out);
  // The raw value (any type); false when missing or null.
  bool Raw(const char* key, Json* out);
  // An object value; false when missing or null; error when not an object.
  bool Object(const char* key, const Json** out);
  // An array value; false when missing or null; error when not an array.
  bool Array(const char* key, const Json** out);

  // Records an error about `key` (used for checks beyond the type).
  void Fail(const std::string& key, const std::string& why);

  // The object's keys not read so far, in order.
  Json Rest() const;
  // OK, or Corruption naming the object, the key and the problem.
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }

 private:
  const Json* Find(const char* key);
  void WrongType(const char* key, const char* want);

  const Json& object_;
  std::string what_;
  std::set<std::string> seen_;
  Status status_;
};

}  // namespace dagu
