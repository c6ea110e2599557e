#include "store/service_registry.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/time_format.h"

namespace dagu {
namespace {

using OrderedJson = nlohmann::ordered_json;

std::optional<WallTime> OptionalTime(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  WallTime t{};
  bool set = false;
  if (!ParseRFC3339(it->get<std::string>(), &t, &set).ok() || !set) return std::nullopt;
  return t;
}

std::string OptionalString(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string SafeServiceName(std::string_view id) {
  std::string out;
  for (char c : id) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    out.push_back(keep ? c : '_');
    if (out.size() == 100) break;
  }
  return out;
}

std::string EncodeServiceEntry(const ServiceEntry& e) {
  OrderedJson j;
  j["id"] = e.id;
  j["host"] = e.host;
  j["port"] = e.port;
  j["pid"] = e.pid;
  j["status"] = e.status;
  j["startedAt"] = FormatRFC3339NanoUTC(e.started_at);
  if (!e.role.empty()) j["role"] = e.role;
  if (!e.state.empty()) j["state"] = e.state;
  if (e.role_since) j["role_since"] = FormatRFC3339NanoUTC(*e.role_since);
  if (!e.lock_holder.empty()) j["lock_holder"] = e.lock_holder;
  if (e.last_renewal_seen_seconds) j["last_renewal_seen_seconds"] = *e.last_renewal_seen_seconds;
  if (e.threshold_in_force_seconds) j["threshold_in_force_seconds"] = *e.threshold_in_force_seconds;
  if (e.updated_at) j["updated_at"] = FormatRFC3339NanoUTC(*e.updated_at);
  if (!e.version.empty()) j["version"] = e.version;
  if (e.coordinator_ha) j["coordinator_ha"] = true;
  return j.dump(2);
}

Status DecodeServiceEntry(std::string_view bytes, ServiceEntry* out) {
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption("service registry entry is not a JSON object");
  auto id = j.find("id");
  if (id == j.end() || !id->is_string()) return Status::Corruption("service registry entry has no id");
  ServiceEntry e;
  e.id = id->get<std::string>();
  e.host = OptionalString(j, "host");
  if (auto p = j.find("port"); p != j.end() && p->is_number_integer()) e.port = p->get<int>();
  if (auto p = j.find("pid"); p != j.end() && p->is_number_integer()) e.pid = p->get<int64_t>();
  if (auto s = j.find("status"); s != j.end() && s->is_number_integer()) e.status = s->get<int>();
  if (auto t = OptionalTime(j, "startedAt")) e.started_at = *t;
  e.role = OptionalString(j, "role");
  e.state = OptionalString(j, "state");
  e.role_since = OptionalTime(j, "role_since");
  e.lock_holder = OptionalString(j, "lock_holder");
  if (auto a = j.find("last_renewal_seen_seconds"); a != j.end() && a->is_number()) {
    e.last_renewal_seen_seconds = a->get<double>();
  }
  if (auto t = j.find("threshold_in_force_seconds"); t != j.end() && t->is_number()) {
    e.threshold_in_force_seconds = t->get<double>();
  }
  e.updated_at = OptionalTime(j, "updated_at");
  if (auto h = j.find("coordinator_ha"); h != j.end() && h->is_boolean()) e.coordinator_ha = h->get<bool>();
  e.version = OptionalString(j, "version");
  *out = std::move(e);
  return Status::OK();
}

ServiceRegistry::ServiceRegistry(FileSystem* fs, std::string registry_dir) : fs_(fs), dir_(std::move(registry_dir)) {}

std::string ServiceRegistry::EntryPath(const std::string& service, const std::string& id) const {
  return JoinPath(JoinPath(dir_, service), SafeServiceName(id) + ".json");
}

Status ServiceRegistry::Write(const std::string& service, const ServiceEntry& entry) {
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(JoinPath(dir_, service), 0750));
  return fs_->WriteFileAtomic(EntryPath(service, entry.id), EncodeServiceEntry(entry), 0644);
}

Status ServiceRegistry::Remove(const std::string& service, const std::string& id) {
  Status s = fs_->RemoveFile(EntryPath(service, id));
  return s.IsNotFound() ? Status::OK() : s;
}

Status ServiceRegistry::List(const std::string& service, WallTime now, Duration stale_after,
                             std::vector<ServiceEntry>* out, int* skipped) {
  out->clear();
  if (skipped != nullptr) *skipped = 0;
  std::string dir = JoinPath(dir_, service);
  std::vector<std::string> names;
  Status s = fs_->ListDir(dir, &names);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  for (const std::string& name : names) {
    if (!name.ends_with(".json")) continue;
    std::string path = JoinPath(dir, name);
    FileInfo info;
    std::string bytes;
    ServiceEntry e;
    Status read = fs_->Stat(path, &info);
    if (read.ok()) read = fs_->ReadFile(path, &bytes);
    if (read.IsNotFound()) continue;  // removed while we listed
    if (!read.ok() || !DecodeServiceEntry(bytes, &e).ok()) {
      if (skipped != nullptr) ++*skipped;
      continue;
    }
    if (now - info.mtime > stale_after) continue;
    e.file_mtime = info.mtime;
    out->push_back(std::move(e));
  }
  std::sort(out->begin(), out->end(), [](const ServiceEntry& a, const ServiceEntry& b) { return a.id < b.id; });
  return Status::OK();
}

}  // namespace dagu
