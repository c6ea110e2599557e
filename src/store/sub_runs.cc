#include "store/sub_runs.h"

#include <algorithm>

#include "core/time_format.h"
#include "store/run_layout.h"
#include "store/run_operations.h"

namespace dagu {
namespace {

constexpr const char* kHeartbeatFile = ".dagu_heartbeat";

const char* ChildrenKey(bool repeated) { return repeated ? "childrenRepeated" : "children"; }

}  // namespace

std::vector<SubRunRef> NodeSubRuns(const NodeRecord& node, bool repeated) {
  std::vector<SubRunRef> out;
  auto it = node.extra.find(ChildrenKey(repeated));
  if (it == node.extra.end() || !it->is_array()) return out;
  for (const Json& item : *it) {
    if (!item.is_object()) continue;
    SubRunRef r;
    auto id = item.find("dagRunId");
    if (id == item.end() || !id->is_string()) continue;
    r.dag_run_id = id->get<std::string>();
    auto params = item.find("params");
    if (params != item.end() && params->is_string()) r.params = params->get<std::string>();
    out.push_back(std::move(r));
  }
  return out;
}

void SetNodeSubRuns(NodeRecord* node, const std::vector<SubRunRef>& runs, bool repeated) {
  const char* key = ChildrenKey(repeated);
  if (runs.empty()) {
    node->extra.erase(key);
    return;
  }
  Json list = Json::array();
  for (const SubRunRef& r : runs) {
    Json item = Json{{"dagRunId", r.dag_run_id}};
    if (!r.params.empty()) item["params"] = r.params;
    list.push_back(std::move(item));
  }
  node->extra[key] = std::move(list);
}

SubRunStore::SubRunStore(FileSystem* fs, const Clock* clock, RunStore* runs) : fs_(fs), clock_(clock), runs_(runs) {}

std::string SubRunStore::ChildrenDir(const RunDir& root_run) { return JoinPath(root_run.path, SubRunStore::kChildrenDirName); }

std::string SubRunStore::SubRunPath(const RunDir& root_run, const std::string& sub_run_id) {
  return JoinPath(ChildrenDir(root_run), SubRunStore::kChildPrefix + sub_run_id);
}

Status SubRunStore::FindRoot(const RunRef& root, RunDir* out) {
  if (root.name.empty() || root.id.empty()) return Status::InvalidArgument("no root run given");
  Status s = runs_->FindRun(root.name, root.id, out);
  if (s.IsNotFound()) {
    return Status::NotFound("root run \"" + root.id + "\" of DAG \"" + root.name + "\" not found");
  }
  return s;
}

Status SubRunStore::FindSubRun(const RunRef& root, const std::string& sub_run_id, RunDir* out) {
  DAGU_RETURN_IF_ERROR(ValidateRunId(sub_run_id));
  RunDir root_run;
  DAGU_RETURN_IF_ERROR(FindRoot(root, &root_run));
  std::string path = SubRunPath(root_run, sub_run_id);
  FileInfo info;
  Status s = fs_->Stat(path, &info);
  if (s.IsNotFound() || (s.ok() && !info.is_dir)) {
    return Status::NotFound("sub dag-run ID " + sub_run_id + " not found under run \"" + root.id + "\" of DAG \"" +
                            root.name + "\"");
  }
  DAGU_RETURN_IF_ERROR(s);
  out->dag_name.clear();
  out->run_id = sub_run_id;
  out->created = info.mtime;
  out->path = path;
  return Status::OK();
}

Status SubRunStore::CreateSubRun(const RunRef& root, const std::string& dag_name, const std::string& sub_run_id,
                                 RunDir* out) {
  DAGU_RETURN_IF_ERROR(ValidateRunId(sub_run_id));
  RunDir root_run;
  DAGU_RETURN_IF_ERROR(FindRoot(root, &root_run));
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(ChildrenDir(root_run), 0750));
  std::string path = SubRunPath(root_run, sub_run_id);
  Status s = fs_->MakeDir(path, 0750);
  if (s.IsAlreadyExists()) {
    return Status::AlreadyExists("sub dag-run ID " + sub_run_id + " already exists under run \"" + root.id + "\"");
  }
  DAGU_RETURN_IF_ERROR(s.WithContext("cannot create the sub-run directory"));
  out->dag_name = dag_name;
  out->run_id = sub_run_id;
  out->created = FromUnixSeconds(UnixSeconds(clock_->Now()));
  out->path = path;
  return Status::OK();
}

Status SubRunStore::ListSubRuns(const RunDir& root_run, std::vector<RunDir>* out) {
  out->clear();
  std::vector<std::string> names;
  Status s = fs_->ListDir(ChildrenDir(root_run), &names);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    if (n.rfind(SubRunStore::kChildPrefix, 0) != 0) continue;
    RunDir r;
    r.run_id = n.substr(std::string(SubRunStore::kChildPrefix).size());
    r.path = JoinPath(ChildrenDir(root_run), n);
    FileInfo info;
    if (!fs_->Stat(r.path, &info).ok() || !info.is_dir) continue;
    r.created = info.mtime;
    out->push_back(std::move(r));
  }
  return Status::OK();
}

Status SubRunStore::ReadSubRun(const RunRef& root, const std::string& sub_run_id, RunDir* run, AttemptDir* attempt,
                               RunRecord* record) {
  RunDir r;
  DAGU_RETURN_IF_ERROR(FindSubRun(root, sub_run_id, &r));
  AttemptDir a;
  DAGU_RETURN_IF_ERROR(runs_->LatestAttempt(r, &a));
  if (record != nullptr) DAGU_RETURN_IF_ERROR(runs_->ReadStatus(a, record));
  if (run != nullptr) *run = r;
  if (attempt != nullptr) *attempt = a;
  return Status::OK();
}

std::string SubRunStore::HeartbeatPath(const AttemptDir& attempt) { return JoinPath(attempt.path, kHeartbeatFile); }

Status SubRunStore::WriteHeartbeat(const AttemptDir& attempt) {
  return fs_->WriteFile(HeartbeatPath(attempt), ProcStore::EncodeHeartbeat(clock_->Now()), 0600);
}

Status SubRunStore::RemoveHeartbeat(const AttemptDir& attempt) {
  Status s = fs_->RemoveFile(HeartbeatPath(attempt));
  return s.IsNotFound() ? Status::OK() : s;
}

bool SubRunStore::HeartbeatAlive(const AttemptDir& attempt, ProcStore* procs) {
  return procs->IsAliveFile(HeartbeatPath(attempt));
}

bool SubRunStore::HasHeartbeat(const AttemptDir& attempt) {
  std::string contents;
  return !fs_->ReadFile(HeartbeatPath(attempt), &contents).IsNotFound();
}

Status SubRunStore::MarkZombie(const RunDir& sub_run, const std::string& expected_attempt_id, bool* changed) {
  *changed = false;
  AttemptDir attempt;
  RunRecord record;
  DAGU_RETURN_IF_ERROR(runs_->LatestAttempt(sub_run, &attempt));
  DAGU_RETURN_IF_ERROR(runs_->ReadStatus(attempt, &record));
  if (record.status != RunStatus::kRunning) return Status::OK();
  if (!expected_attempt_id.empty() && attempt.attempt_id != expected_attempt_id) return Status::OK();
  MarkRecordZombie(&record, clock_->Now());
  DAGU_RETURN_IF_ERROR(runs_->WriteFinalStatus(attempt, record));
  RemoveHeartbeat(attempt).LogIfError("removing the heartbeat of zombie sub-run " + attempt.path);
  *changed = true;
  return Status::OK();
}

}  // namespace dagu
