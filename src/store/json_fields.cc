#include "store/json_fields.h"

#include <cstdlib>

namespace dagu {

JsonFields::JsonFields(const Json& object, std::string what) : object_(object), what_(std::move(what)) {
  if (!object_.is_object()) status_ = Status::Corruption(what_ + ": not a JSON object");
}

const Json* JsonFields::Find(const char* key) {
  if (!object_.is_object()) return nullptr;
  seen_.insert(key);
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

void JsonFields::Fail(const std::string& key, const std::string& why) {
  if (status_.ok()) status_ = Status::Corruption(what_ + ": key \"" + key + "\": " + why);
}

void JsonFields::WrongType(const char* key, const char* want) {
  auto it = object_.find(key);
  Fail(key, std::string("want ") + want + ", got " + std::string(it->type_name()) + " " + it->dump());
}

void JsonFields::Str(const char* key, std::string* out) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_string()) return WrongType(key, "a string");
  *out = v->get<std::string>();
}

void JsonFields::Int(const char* key, int* out) {
  int64_t v64 = *out;
  Int64(key, &v64);
  *out = static_cast<int>(v64);
}

void JsonFields::Int64(const char* key, int64_t* out) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (v->is_number_integer()) {
    *out = v->get<int64_t>();
  } else if (v->is_number_float() && v->get<double>() == static_cast<double>(static_cast<int64_t>(v->get<double>()))) {
    *out = static_cast<int64_t>(v->get<double>());
  } else {
    WrongType(key, "an integer");
  }
}

void JsonFields::Bool(const char* key, bool* out) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_boolean()) return WrongType(key, "a boolean");
  *out = v->get<bool>();
}

void JsonFields::Double(const char* key, double* out) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (v->is_number()) *out = v->get<double>();
  else if (v->is_boolean()) *out = v->get<bool>() ? 2.0 : 0.0;
  else WrongType(key, "a number");
}

void JsonFields::StrList(const char* key, std::vector<std::string>* out) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (v->is_string()) {
    *out = {v->get<std::string>()};
    return;
  }
  if (!v->is_array()) return WrongType(key, "a list of strings");
  std::vector<std::string> items;
  for (const auto& e : *v) {
    if (!e.is_string()) return WrongType(key, "a list of strings");
    items.push_back(e.get<std::string>());
  }
  *out = std::move(items);
}

void JsonFields::IntList(const char* key, std::vector<int>* out) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_array()) return WrongType(key, "a list of integers");
  std::vector<int> items;
  for (const auto& e : *v) {
    if (e.is_number_integer()) {
      items.push_back(e.get<int>());
    } else if (e.is_string()) {
      const std::string s = e.get<std::string>();
      char* end = nullptr;
      long n = std::strtol(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0') return WrongType(key, "a list of integers");
      items.push_back(static_cast<int>(n));
    } else {
      return WrongType(key, "a list of integers");
    }
  }
  *out = std::move(items);
}

void JsonFields::StrMap(const char* key, std::map<std::string, std::string>* out) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_object()) return WrongType(key, "an object of strings");
  std::map<std::string, std::string> items;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it.value().is_string()) return WrongType(key, "an object of strings");
    items[it.key()] = it.value().get<std::string>();
  }
  *out = std::move(items);
}

bool JsonFields::Raw(const char* key, Json* out) {
  const Json* v = Find(key);
  if (v == nullptr) return false;
  *out = *v;
  return true;
}

bool JsonFields::Object(const char* key, const Json** out) {
  const Json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_object()) {
    WrongType(key, "an object");
    return false;
  }
  *out = v;
  return true;
}

bool JsonFields::Array(const char* key, const Json** out) {
  const Json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_array()) {
    WrongType(key, "a list");
    return false;
  }
  *out = v;
  return true;
}

Json JsonFields::Rest() const {
  Json rest = Json::object();
  if (!object_.is_object()) return rest;
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (seen_.count(it.key()) == 0) rest[it.key()] = it.value();
  }
  return rest;
}

}  // namespace dagu
