#include "distributed/task_journal.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/sha256.h"

namespace dagu::distributed {
namespace {

constexpr int kVersion = 1;
constexpr char kSuffix[] = ".json";
constexpr char kTempMarker[] = ".tmp.";

int64_t ToMs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
std::chrono::system_clock::time_point FromMs(int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string TaskRecordFileName(std::string_view run_id) {
  bool plain = !run_id.empty() && run_id.size() <= 100 && run_id.substr(0, 2) != "h-" &&
               std::all_of(run_id.begin(), run_id.end(), [](char c) {
                 return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-';
               });
  return (plain ? std::string(run_id) : "h-" + Sha256Hex(run_id)) + kSuffix;
}

std::string EncodeTaskRecord(const TaskRecord& r) {
  nlohmann::ordered_json j;
  j["version"] = kVersion;
  j["runId"] = r.run_id;
  j["state"] = r.state == TaskRecord::State::kDispatched ? "dispatched" : "waiting";
  j["workerId"] = r.worker_id;
  j["selector"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.selector) j["selector"][k] = v;
  j["recordedAt"] = ToMs(r.recorded_at);
  j["dispatchedAt"] = ToMs(r.dispatched_at);
  j["task"] = Base64Encode(r.task);
  if (!r.fence.empty()) j["fence"] = r.fence;
  return j.dump() + "\n";
}

Status DecodeTaskRecord(std::string_view bytes, TaskRecord* out) {
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Corruption("not a JSON object");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion) {
    return Status::Corruption("unknown version");
  }
  TaskRecord r;
  auto str = [&j](const char* key, std::string* to) {
    if (!j.contains(key) || !j[key].is_string()) return false;
    *to = j[key].get<std::string>();
    return true;
  };
  std::string state, task64;
  if (!str("runId", &r.run_id) || r.run_id.empty()) return Status::Corruption("no runId");
  if (!str("state", &state) || (state != "waiting" && state != "dispatched")) return Status::Corruption("bad state");
  r.state = state == "dispatched" ? TaskRecord::State::kDispatched : TaskRecord::State::kWaiting;
  if (!str("workerId", &r.worker_id)) return Status::Corruption("no workerId");
  if (!str("task", &task64) || !Base64Decode(task64, &r.task)) return Status::Corruption("bad task");
  if (!j.contains("selector") || !j["selector"].is_object()) return Status::Corruption("no selector");
  for (const auto& [k, v] : j["selector"].items()) {
    if (!v.is_string()) return Status::Corruption("bad selector value");
    r.selector[k] = v.get<std::string>();
  }
  for (const char* key : {"recordedAt", "dispatchedAt"}) {
    if (!j.contains(key) || !j[key].is_number_integer()) return Status::Corruption(std::string("no ") + key);
  }
  if (j.contains("fence")) {
    if (!j["fence"].is_string()) return Status::Corruption("bad fence");
    r.fence = j["fence"].get<std::string>();
  }
  r.recorded_at = FromMs(j["recordedAt"].get<int64_t>());
  r.dispatched_at = FromMs(j["dispatchedAt"].get<int64_t>());
  *out = std::move(r);
  return Status::OK();
}

Status TaskJournal::PutRecord(const TaskRecord& record) const {
  std::string path = JoinPath(dir_, TaskRecordFileName(record.run_id));
  std::string bytes = EncodeTaskRecord(record);
  Status s = fs_->WriteFileAtomic(path, bytes, 0600);
  if (s.IsNotFound()) {
    DAGU_RETURN_IF_ERROR(fs_->MakeDirs(dir_, 0750).WithContext("creating " + dir_));
    s = fs_->WriteFileAtomic(path, bytes, 0600);
  }
  if (!s.ok()) return s.WithContext("recording task of dag-run " + record.run_id);
  return Status::OK();
}

Status TaskJournal::RemoveRecord(const std::string& run_id) const {
  std::string path = JoinPath(dir_, TaskRecordFileName(run_id));
  Status s = fs_->RemoveFile(path);
  if (s.ok() || s.IsNotFound()) return Status::OK();
  return s.WithContext("removing the task record of dag-run " + run_id);
}

Status TaskJournal::LoadRecords(std::vector<TaskRecord>* out, std::vector<std::string>* skipped) const {
  out->clear();
  std::vector<std::string> names;
  Status s = fs_->ListDir(dir_, &names);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s.WithContext("listing " + dir_);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string path = JoinPath(dir_, name);
    if (name.find(kTempMarker) != std::string::npos) {
      // A Put that crashed before its rename: never acknowledged.
      fs_->RemoveFile(path).LogIfError("removing an unfinished task record");
      continue;
    }
    if (!EndsWith(name, kSuffix)) continue;
    std::string bytes;
    TaskRecord r;
    Status read = fs_->ReadFile(path, &bytes);
    if (read.IsNotFound()) continue;  // removed meanwhile
    if (read.ok()) read = DecodeTaskRecord(bytes, &r);
    if (!read.ok()) {
      if (skipped != nullptr) skipped->push_back(path + ": " + read.ToString());
      continue;
    }
    out->push_back(std::move(r));
  }
  std::stable_sort(out->begin(), out->end(),
                   [](const TaskRecord& a, const TaskRecord& b) { return a.recorded_at < b.recorded_at; });
  return Status::OK();
}

bool TaskJournal::Put(const TaskRecord& record, std::string* error) {
  Status s = PutRecord(record);
  if (!s.ok() && error != nullptr) *error = s.ToString();
  return s.ok();
}

bool TaskJournal::Remove(const std::string& run_id, std::string* error) {
  Status s = RemoveRecord(run_id);
  if (!s.ok() && error != nullptr) *error = s.ToString();
  return s.ok();
}

bool TaskJournal::LoadAll(std::vector<TaskRecord>* out, std::vector<std::string>* skipped, std::string* error) {
  Status s = LoadRecords(out, skipped);
  if (!s.ok() && error != nullptr) *error = s.ToString();
  return s.ok();
}

}  // namespace dagu::distributed
