#include "store/role_journal.h"

#include <nlohmann/json.hpp>

#include "core/time_format.h"

namespace dagu {
namespace {

std::string Str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string EncodeRoleChange(const RoleChange& c) {
  nlohmann::ordered_json j;
  j["time"] = FormatRFC3339NanoUTC(c.time);
  j["instance"] = c.instance;
  j["host"] = c.host;
  j["pid"] = c.pid;
  j["from"] = c.from;
  j["to"] = c.to;
  j["reason"] = c.reason;
  if (!c.activation.empty()) j["activation"] = c.activation;
  if (!c.previous_holder.empty()) j["previous_holder"] = c.previous_holder;
  if (c.takeover_seconds) j["takeover_seconds"] = *c.takeover_seconds;
  return j.dump() + "\n";
}

Status DecodeRoleChange(std::string_view line, RoleChange* out) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption("role journal line is not a JSON object");
  RoleChange c;
  bool set = false;
  if (!ParseRFC3339(Str(j, "time"), &c.time, &set).ok() || !set) {
    return Status::Corruption("role journal line has no valid time");
  }
  c.instance = Str(j, "instance");
  c.host = Str(j, "host");
  if (auto p = j.find("pid"); p != j.end() && p->is_number_integer()) c.pid = p->get<int64_t>();
  c.from = Str(j, "from");
  c.to = Str(j, "to");
  if (c.instance.empty() || c.to.empty()) return Status::Corruption("role journal line has no instance or role");
  c.reason = Str(j, "reason");
  c.activation = Str(j, "activation");
  c.previous_holder = Str(j, "previous_holder");
  if (auto t = j.find("takeover_seconds"); t != j.end() && t->is_number()) c.takeover_seconds = t->get<double>();
  *out = std::move(c);
  return Status::OK();
}

RoleJournal::RoleJournal(FileSystem* fs, std::string path, uint64_t rotate_bytes)
    : fs_(fs), path_(std::move(path)), rotate_bytes_(rotate_bytes) {}

Status RoleJournal::Append(const RoleChange& change) {
  FileInfo info;
  if (fs_->Stat(path_, &info).ok() && info.size >= rotate_bytes_) {
    DAGU_RETURN_IF_ERROR(fs_->Rename(path_, path_ + ".1"));
  }
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(DirName(path_), 0750));
  return fs_->AppendFileSync(path_, EncodeRoleChange(change), 0644);
}

Status RoleJournal::ReadRecent(size_t max, std::vector<RoleChange>* out) {
  out->clear();
  std::string bytes;
  Status s = fs_->ReadFile(path_, &bytes);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  size_t start = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    RoleChange c;
    if (end > start && DecodeRoleChange(std::string_view(bytes).substr(start, end - start), &c).ok()) {
      out->push_back(std::move(c));
    }
    start = end + 1;
  }
  if (out->size() > max) out->erase(out->begin(), out->end() - static_cast<std::ptrdiff_t>(max));
  return Status::OK();
}

}  // namespace dagu
