#include "store/tick_ledger.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/time_format.h"
#include "store/data_layout.h"

namespace dagu {
namespace {

constexpr int kVersion = 1;

Status BadField(const std::string& origin, const std::string& what) { return Status::Corruption(origin + ": " + what); }

// Reads a required RFC3339 time field.
Status ReadTime(const nlohmann::json& obj, const char* key, const std::string& origin, WallTime* out) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string())
    return BadField(origin, std::string("missing or non-string \"") + key + "\"");
  bool is_set = false;
  Status s = ParseRFC3339(it->get<std::string>(), out, &is_set);
  if (!s.ok()) return BadField(origin, std::string("\"") + key + "\": " + s.message());
  if (!is_set) return BadField(origin, std::string("\"") + key + "\" is empty");
  return Status::OK();
}

std::string StringField(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return (it != obj.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

}  // namespace

TickLedger::TickLedger(FileSystem* fs, std::string scheduler_dir)
    : fs_(fs), dir_(std::move(scheduler_dir)), path_(TickLedgerPath(dir_)) {}

std::string TickLedger::Encode(const TickRecord& record) {
  nlohmann::ordered_json j;
  j["version"] = kVersion;
  j["instance"] = record.instance;
  j["lastTick"] = FormatRFC3339UTC(record.last_tick);
  nlohmann::ordered_json planned = nlohmann::ordered_json::array();
  for (const PlannedSlot& p : record.planned) {
    nlohmann::ordered_json e;
    e["dag"] = p.dag;
    e["kind"] = p.kind;
    e["slot"] = FormatRFC3339UTC(p.slot);
    e["runId"] = p.run_id;
    e["started"] = p.started;
    planned.push_back(std::move(e));
  }
  j["planned"] = std::move(planned);
  if (!record.backlog.empty()) {
    nlohmann::ordered_json backlog = nlohmann::ordered_json::array();
    for (const BacklogSlot& b : record.backlog) {
      nlohmann::ordered_json e;
      e["dag"] = b.dag;
      e["slot"] = FormatRFC3339UTC(b.slot);
      backlog.push_back(std::move(e));
    }
    j["backlog"] = std::move(backlog);
  }
  return j.dump(2) + "\n";
}

Status TickLedger::Decode(const std::string& text, const std::string& origin, TickRecord* out) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return BadField(origin, "not a JSON object");
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || version->get<int>() != kVersion) {
    return BadField(origin, "unknown \"version\" (want " + std::to_string(kVersion) + ")");
  }
  TickRecord record;
  record.instance = StringField(j, "instance");
  DAGU_RETURN_IF_ERROR(ReadTime(j, "lastTick", origin, &record.last_tick));
  auto planned = j.find("planned");
  if (planned != j.end() && !planned->is_null()) {
    if (!planned->is_array()) return BadField(origin, "\"planned\" is not an array");
    for (size_t i = 0; i < planned->size(); ++i) {
      const nlohmann::json& e = (*planned)[i];
      std::string where = origin + " planned[" + std::to_string(i) + "]";
      if (!e.is_object()) return BadField(where, "not an object");
      PlannedSlot p;
      p.dag = StringField(e, "dag");
      p.kind = StringField(e, "kind");
      p.run_id = StringField(e, "runId");
      if (p.dag.empty()) return BadField(where, "missing \"dag\"");
      if (p.kind.empty()) return BadField(where, "missing \"kind\"");
      DAGU_RETURN_IF_ERROR(ReadTime(e, "slot", where, &p.slot));
      auto started = e.find("started");
      p.started = started != e.end() && started->is_boolean() && started->get<bool>();
      record.planned.push_back(std::move(p));
    }
  }
  auto backlog = j.find("backlog");
  if (backlog != j.end() && !backlog->is_null()) {
    if (!backlog->is_array()) return BadField(origin, "\"backlog\" is not an array");
    for (size_t i = 0; i < backlog->size(); ++i) {
      const nlohmann::json& e = (*backlog)[i];
      std::string where = origin + " backlog[" + std::to_string(i) + "]";
      if (!e.is_object()) return BadField(where, "not an object");
      BacklogSlot b;
      b.dag = StringField(e, "dag");
      if (b.dag.empty()) return BadField(where, "missing \"dag\"");
      DAGU_RETURN_IF_ERROR(ReadTime(e, "slot", where, &b.slot));
      record.backlog.push_back(std::move(b));
    }
  }
  *out = std::move(record);
  return Status::OK();
}

Status TickLedger::Read(TickRecord* out, bool* found) const {
  // Test hook (process tests of a wedged tick loop): with
  // DAGU_TEST_HOOK_WEDGE_TICK_LEDGER=<file>, a read blocks while <file>
  // exists, as a read from a hung storage server does. Nothing happens
  // unless the variable is set.
  if (const char* hook = std::getenv("DAGU_TEST_HOOK_WEDGE_TICK_LEDGER"); hook != nullptr && *hook != '\0') {
    while (::access(hook, F_OK) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  *found = false;
  std::string text;
  Status s = fs_->ReadFile(path_, &text);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s.WithContext("reading tick ledger " + path_);
  DAGU_RETURN_IF_ERROR(Decode(text, path_, out));
  *found = true;
  return Status::OK();
}

Status TickLedger::Write(const TickRecord& record) const {
  Status s = fs_->WriteFileAtomic(path_, Encode(record), 0644);
  if (s.IsNotFound()) {
    DAGU_RETURN_IF_ERROR(fs_->MakeDirs(dir_, 0750).WithContext("creating " + dir_));
    s = fs_->WriteFileAtomic(path_, Encode(record), 0644);
  }
  if (!s.ok()) return s.WithContext("writing tick ledger " + path_);
  return Status::OK();
}

}  // namespace dagu
