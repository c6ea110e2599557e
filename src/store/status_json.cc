#include "store/status_json.h"

#include <array>

#include "store/json_fields.h"
#include "core/json_text.h"

namespace dagu {
namespace {

Json RefToJson(const RunRef& ref) { return Json{{"name", ref.name}, {"id", ref.id}}; }

void ReadRef(JsonFields& f, const char* key, RunRef* out, bool* present) {
  const Json* obj = nullptr;
  *present = f.Object(key, &obj);
  if (!*present) return;
  JsonFields r(*obj, key);
  r.Str("name", &out->name);
  r.Str("id", &out->id);
  if (!r.ok()) f.Fail(key, r.status().message());
}

void PutIfSet(Json& j, const char* key, const std::string& value) {
  if (!value.empty()) j[key] = value;
}

void MergeExtra(Json& j, const Json& extra) {
  if (!extra.is_object()) return;
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    if (!j.contains(it.key())) j[it.key()] = it.value();
  }
}

constexpr const char* kHandlerKeys[] = {"onInit", "onExit", "onSuccess", "onFailure", "onCancel", "onWait"};

// The handler nodes in kHandlerKeys order (const or not, as `r` is).
template <class R>
auto HandlerSlots(R& r) {
  return std::array{&r.on_init, &r.on_exit, &r.on_success, &r.on_failure, &r.on_cancel, &r.on_wait};
}

}  // namespace

Json NodeRecordToJson(const NodeRecord& n) {
  Json j = Json::object();
  if (n.step.is_object() && !n.step.empty()) j["step"] = n.step;
  j["stdout"] = n.stdout_path;
  j["stderr"] = n.stderr_path;
  j["startedAt"] = n.started_at;
  j["finishedAt"] = n.finished_at;
  j["status"] = static_cast<int>(n.status);
  PutIfSet(j, "retriedAt", n.retried_at);
  if (n.retry_count != 0) j["retryCount"] = n.retry_count;
  if (n.done_count != 0) j["doneCount"] = n.done_count;
  if (n.repeated) j["repeated"] = true;
  PutIfSet(j, "error", n.error);
  if (!n.output_variables.empty()) {
    Json vars = Json::object();
    for (const auto& [k, v] : n.output_variables) vars[k] = v;
    j["outputVariables"] = vars;
  }
  MergeExtra(j, n.extra);
  return j;
}

Status NodeRecordFromJson(const Json& json, NodeRecord* n) {
  *n = NodeRecord();
  JsonFields f(json, "node");
  const Json* step = nullptr;
  if (f.Object("step", &step)) n->step = *step;
  f.Str("stdout", &n->stdout_path);
  f.Str("stderr", &n->stderr_path);
  n->started_at.clear();
  n->finished_at.clear();
  f.Str("startedAt", &n->started_at);
  f.Str("finishedAt", &n->finished_at);
  int status = 0;
  f.Int("status", &status);
  n->status = static_cast<NodeStatus>(status);
  f.Str("retriedAt", &n->retried_at);
  f.Int("retryCount", &n->retry_count);
  f.Int("doneCount", &n->done_count);
  f.Bool("repeated", &n->repeated);
  f.Str("error", &n->error);
  f.StrMap("outputVariables", &n->output_variables);
  n->extra = f.Rest();
  return f.status();
}

Json RunRecordToJson(const RunRecord& r) {
  Json j = Json::object();
  if (!r.root.empty()) j["root"] = RefToJson(r.root);
  if (r.parent.has_value() && !r.parent->empty()) j["parent"] = RefToJson(*r.parent);
  j["name"] = r.name;
  j["dagRunId"] = r.dag_run_id;
  j["attemptId"] = r.attempt_id;
  j["status"] = static_cast<int>(r.status);
  PutIfSet(j, "workerId", r.worker_id);
  if (r.pid != 0) j["pid"] = r.pid;
  if (!r.nodes.empty()) {
    Json nodes = Json::array();
    for (const auto& n : r.nodes) nodes.push_back(NodeRecordToJson(n));
    j["nodes"] = nodes;
  }
  auto slots = HandlerSlots(r);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i]->has_value()) j[kHandlerKeys[i]] = NodeRecordToJson(**slots[i]);
  }
  if (r.created_at != 0) j["createdAt"] = r.created_at;
  PutIfSet(j, "queuedAt", r.queued_at);
  PutIfSet(j, "startedAt", r.started_at);
  PutIfSet(j, "finishedAt", r.finished_at);
  PutIfSet(j, "log", r.log);
  PutIfSet(j, "error", r.error);
  PutIfSet(j, "params", r.params);
  if (!r.params_list.empty()) j["paramsList"] = r.params_list;
  if (!r.preconditions.is_null()) j["preconditions"] = r.preconditions;
  if (r.trigger_type != TriggerType::kUnknown) j["triggerType"] = static_cast<int>(r.trigger_type);
  PutIfSet(j, "scheduleTime", r.schedule_time);
  MergeExtra(j, r.extra);
  return j;
}

Status RunRecordFromJson(const Json& json, RunRecord* r) {
  *r = RunRecord();
  JsonFields f(json, "status record");
  bool present = false;
  ReadRef(f, "root", &r->root, &present);
  RunRef parent;
  ReadRef(f, "parent", &parent, &present);
  if (present && !parent.empty()) r->parent = parent;
  f.Str("name", &r->name);
  f.Str("dagRunId", &r->dag_run_id);
  f.Str("attemptId", &r->attempt_id);
  int status = 0;
  f.Int("status", &status);
  r->status = static_cast<RunStatus>(status);
  f.Str("workerId", &r->worker_id);
  f.Int("pid", &r->pid);
  const Json* nodes = nullptr;
  if (f.Array("nodes", &nodes)) {
    for (size_t i = 0; i < nodes->size(); ++i) {
      NodeRecord n;
      Status s = NodeRecordFromJson((*nodes)[i], &n);
      if (!s.ok()) {
        f.Fail("nodes", "item " + std::to_string(i) + ": " + s.message());
        break;
      }
      r->nodes.push_back(std::move(n));
    }
  }
  auto slots = HandlerSlots(*r);
  for (size_t i = 0; i < slots.size(); ++i) {
    const Json* h = nullptr;
    if (!f.Object(kHandlerKeys[i], &h)) continue;
    NodeRecord n;
    Status s = NodeRecordFromJson(*h, &n);
    if (!s.ok()) f.Fail(kHandlerKeys[i], s.message());
    else *slots[i] = std::move(n);
  }
  f.Int64("createdAt", &r->created_at);
  f.Str("queuedAt", &r->queued_at);
  f.Str("startedAt", &r->started_at);
  f.Str("finishedAt", &r->finished_at);
  f.Str("log", &r->log);
  f.Str("error", &r->error);
  f.Str("params", &r->params);
  f.StrList("paramsList", &r->params_list);
  f.Raw("preconditions", &r->preconditions);
  // Dagu v2.15.1's triggerType is an int; tolerate a string form too.
  Json trigger;
  if (f.Raw("triggerType", &trigger)) {
    if (trigger.is_number_integer() && trigger.get<int>() >= 0 && trigger.get<int>() <= 6) {
      r->trigger_type = static_cast<TriggerType>(trigger.get<int>());
    } else if (trigger.is_string()) {
      ParseTriggerType(trigger.get<std::string>(), &r->trigger_type);
    }
  }
  f.Str("scheduleTime", &r->schedule_time);
  r->extra = f.Rest();
  return f.status();
}

std::string SerializeRunRecord(const RunRecord& record) {
  return JsonText(RunRecordToJson(record));
}

Status ParseRunRecord(std::string_view line, RunRecord* record) {
  Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption("status line is not valid JSON");
  return RunRecordFromJson(j, record);
}

Status ParseStatusFile(std::string_view contents, const std::string& path, RunRecord* record,
                       int* skipped_lines) {
  int skipped = 0;
  bool found = false;
  Status last_error;
  size_t pos = 0;
  while (pos < contents.size()) {
    size_t end = contents.find('\n', pos);
    if (end == std::string_view::npos) end = contents.size();
    std::string_view line = contents.substr(pos, end - pos);
    pos = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    if (line.empty()) continue;
    RunRecord candidate;
    Status s = ParseRunRecord(line, &candidate);
    if (s.ok()) {
      *record = std::move(candidate);
      found = true;
    } else {
      ++skipped;
      last_error = s;
    }
  }
  if (skipped_lines != nullptr) *skipped_lines = skipped;
  if (!found) {
    std::string why = last_error.ok() ? "the file is empty" : last_error.message();
    return Status::Corruption("corrupted status file " + path + ": no valid record (" + why + ")");
  }
  return Status::OK();
}

}  // namespace dagu
