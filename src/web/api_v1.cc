// Dagu 1.30.2's /api/v1 operations (api_v1.h). The data comes from the same
// places as /api/v2 (DagFiles, RunStore, the CLI runner); only the shapes
// differ: PascalCase keys in Go's field order (alphabetical, hence the
// key-sorted nlohmann::json), omitted when empty as 1.30.2's ptrOf does.
#include "web/api_v1.h"

#include <algorithm>

#include "core/strings.h"
#include "store/dag_snapshot.h"
#include "store/run_layout.h"
#include "web/api_dag_common.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"
#include "web/run_starter.h"

namespace dagu::web {
namespace {

using V1Json = nlohmann::json;  // keys sorted, as Go writes the generated structs

// 1.30.2's paginator: page < 1 is 1, limit 0 is 50, more than 200 is 200.
constexpr long long kDefaultLimit = 50;
constexpr long long kMaxLimit = 200;
// How many runs the history tab shows (1.30.2: 30).
constexpr size_t kHistoryRuns = 30;
// What POST /dags writes (1.30.2's new-DAG template).
constexpr const char* kNewDagSpec = "steps:\n  - name: step1\n    command: echo hello\n";

void Send(http::Response& res, int status, const V1Json& body) { SendJson(res, status, ApiJson(body)); }

// 1.30.2's unexpected-error answer (any error that is not one of its API errors).
void SendInternal(http::Response& res) { SendError(res, 500, error_code::kInternal, "An unexpected error occurred"); }

// What 1.30.2's OpenAPI request validator answers: a text/plain 400.
void SendInvalid(http::Response& res, const std::string& text) {
  res.status = 400;
  res.set_content(text + "\n", "text/plain; charset=utf-8");
}

// api.Step from a step snapshot (store/dag_snapshot.h): the first command's
// Command, Args and CmdWithArgs, a sub-DAG call as Run and Params.
V1Json StepJson(const Json& s) {
  V1Json j = V1Json::object();
  j["Name"] = s.value("name", "");
  CopyIfSet(s, "description", j, "Description");
  if (auto cmds = s.find("commands"); cmds != s.end() && cmds->is_array() && !cmds->empty() && (*cmds)[0].is_object()) {
    const Json& c = (*cmds)[0];
    CopyIfSet(c, "command", j, "Command");
    CopyIfSet(c, "args", j, "Args");
    CopyIfSet(c, "cmdWithArgs", j, "CmdWithArgs");
  } else {
    CopyIfSet(s, "command", j, "Command");
    CopyIfSet(s, "args", j, "Args");
    CopyIfSet(s, "cmdWithArgs", j, "CmdWithArgs");
  }
  CopyIfSet(s, "depends", j, "Depends");
  CopyIfSet(s, "dir", j, "Dir");
  CopyIfSet(s, "mailOnError", j, "MailOnError");
  CopyIfSet(s, "output", j, "Output");
  if (auto it = s.find("preconditions"); it != s.end() && it->is_array() && !it->empty()) {
    V1Json list = V1Json::array();
    for (const Json& c : *it) {
      if (!c.is_object()) continue;
      V1Json e = V1Json::object();
      CopyIfSet(c, "condition", e, "Condition");
      CopyIfSet(c, "expected", e, "Expected");
      list.push_back(std::move(e));
    }
    j["Preconditions"] = std::move(list);
  }
  if (auto it = s.find("repeatPolicy"); it != s.end() && it->is_object()) {
    V1Json rp = V1Json::object();
    if (NonEmpty(it->value("repeatMode", Json(""))) || it->value("repeat", false)) rp["Repeat"] = true;
    const Json interval = it->value("interval", Json(0));
    if (interval.is_number() && static_cast<long long>(interval.get<double>() / 1e9) != 0) {
      rp["Interval"] = static_cast<long long>(interval.get<double>() / 1e9);
    }
    if (!rp.empty()) j["RepeatPolicy"] = std::move(rp);
  }
  CopyIfSet(s, "script", j, "Script");
  if (auto it = s.find("childDag"); it != s.end() && it->is_object()) {
    j["Run"] = it->value("name", "");
    j["Params"] = it->value("params", "");
  }
  return j;
}

V1Json StepJson(const Step& step) { return StepJson(StepToSnapshot(step)); }

// api.Node.
V1Json NodeJson(const NodeRecord& n) {
  V1Json j = V1Json::object();
  j["DoneCount"] = n.done_count;
  if (!n.error.empty()) j["Error"] = n.error;
  j["FinishedAt"] = n.finished_at;
  j["Log"] = n.stdout_path;
  j["RetryCount"] = n.retry_count;
  j["StartedAt"] = n.started_at;
  j["Status"] = static_cast<int>(n.status);
  j["StatusText"] = NodeStatusLabel(n.status);
  j["Step"] = StepJson(n.step);
  return j;
}

// api.DAGStatusDetails of a run record.
V1Json StatusJson(const RunRecord& r) {
  V1Json j = V1Json::object();
  j["FinishedAt"] = r.finished_at;
  j["Log"] = r.log;
  j["Name"] = r.name;
  V1Json nodes = nullptr;
  for (const NodeRecord& n : r.nodes) {
    if (nodes.is_null()) nodes = V1Json::array();
    nodes.push_back(NodeJson(n));
  }
  j["Nodes"] = std::move(nodes);
  if (r.on_exit) j["OnExit"] = NodeJson(*r.on_exit);
  if (r.on_success) j["OnSuccess"] = NodeJson(*r.on_success);
  if (r.on_failure) j["OnFailure"] = NodeJson(*r.on_failure);
  if (r.on_cancel) j["OnCancel"] = NodeJson(*r.on_cancel);
  if (!r.params.empty()) j["Params"] = r.params;
  j["RequestId"] = r.dag_run_id;
  j["StartedAt"] = r.started_at;
  j["Status"] = static_cast<int>(r.status);
  j["StatusText"] = RunStatusLabel(r.status);
  return j;
}

// The record 1.30.2 shows for a DAG without runs: not started, one
// not-started node per step (and handler).
RunRecord NotStartedRecord(const Dag& dag) {
  RunRecord r;
  r.name = dag.name;
  r.params = JoinParams(dag.params);
  auto node = [](const Step& s) {
    NodeRecord n;
    n.step = StepToSnapshot(s);
    return n;
  };
  for (const Step& s : dag.steps) r.nodes.push_back(node(s));
  if (dag.handler_on.exit) r.on_exit = node(*dag.handler_on.exit);
  if (dag.handler_on.success) r.on_success = node(*dag.handler_on.success);
  if (dag.handler_on.failure) r.on_failure = node(*dag.handler_on.failure);
  if (dag.handler_on.abort) r.on_cancel = node(*dag.handler_on.abort);
  return r;
}

// The DAG's latest run, or the not-started record.
RunRecord LatestOrNotStarted(const ApiContext& ctx, const DagFile& f) {
  RunRecord r;
  if (LatestRunRecord(ctx, f, &r)) return r;
  return NotStartedRecord(*f.dag);
}

V1Json ScheduleJson(const Dag& dag) {
  V1Json list = V1Json::array();
  for (const CronSchedule& s : dag.schedules.start) list.push_back({{"Expression", s.expression()}});
  return list;
}

// api.DAG (the list and search shape).
V1Json DagJson(const Dag& dag) {
  V1Json j = V1Json::object();
  j["Name"] = dag.name;
  if (!dag.group.empty()) j["Group"] = dag.group;
  if (!dag.description.empty()) j["Description"] = dag.description;
  if (!dag.params.empty()) {
    j["Params"] = V1Json(ParamsListJson(dag.params));
    j["DefaultParams"] = DefaultParamsText(dag.params);
  }
  if (!dag.tags.empty()) j["Tags"] = dag.tags;
  if (!dag.schedules.start.empty()) j["Schedule"] = ScheduleJson(dag);
  return j;
}

// api.DAGDetails. MaxActiveRuns carries maxActiveSteps, as in 1.30.2.
V1Json DagDetailsJson(const Dag& dag) {
  V1Json j = DagJson(dag);
  if (long long delay = std::chrono::duration_cast<std::chrono::seconds>(dag.delay).count(); delay != 0) {
    j["Delay"] = delay;
  }
  if (!dag.env.empty()) {
    V1Json env = V1Json::array();
    for (const auto& kv : dag.env) env.push_back(kv.first + "=" + kMaskedValue);  // values may be secrets
    j["Env"] = std::move(env);
  }
  V1Json handlers = V1Json::object();
  if (dag.handler_on.failure) handlers["Failure"] = StepJson(*dag.handler_on.failure);
  if (dag.handler_on.success) handlers["Success"] = StepJson(*dag.handler_on.success);
  if (dag.handler_on.abort) handlers["Cancel"] = StepJson(*dag.handler_on.abort);
  if (dag.handler_on.exit) handlers["Exit"] = StepJson(*dag.handler_on.exit);
  if (!handlers.empty()) j["HandlerOn"] = std::move(handlers);
  if (dag.hist_retention_days != 0) j["HistRetentionDays"] = dag.hist_retention_days;
  if (!dag.log_dir.empty()) j["LogDir"] = dag.log_dir;
  if (dag.max_active_steps != 0) j["MaxActiveRuns"] = dag.max_active_steps;
  if (!dag.preconditions.empty()) {
    V1Json list = V1Json::array();
    for (const Condition& c : dag.preconditions) {
      V1Json e = V1Json::object();
      if (!c.condition.empty()) e["Condition"] = c.condition;
      if (!c.expected.empty()) e["Expected"] = c.expected;
      list.push_back(std::move(e));
    }
    j["Preconditions"] = std::move(list);
  }
  if (!dag.steps.empty()) {
    V1Json steps = V1Json::array();
    for (const Step& s : dag.steps) steps.push_back(StepJson(s));
    j["Steps"] = std::move(steps);
  }
  return j;
}

// A query integer as 1.30.2's validator reads it: absent is 0; false after
// its 400 for a value that is not an integer.
bool QueryLong(const http::Request& req, http::Response& res, const char* name, long long* out) {
  if (!ReadQueryInteger(req, name, out)) {
    const std::string v = req.get_param_value(name);
    SendInvalid(res, std::string("parameter \"") + name + "\" in query has an error: value " + v +
                         ": an invalid integer: invalid syntax");
    return false;
  }
  return true;
}

// GET /dags. The Status of every entry is the zero status: 1.30.2 fills a
// slice it then appends to, so the statuses it reads are never shown.
void HandleList(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  long long page = 0, limit = 0;
  if (!QueryLong(req, res, "page", &page) || !QueryLong(req, res, "limit", &limit)) return;
  page = std::max(page, 1LL);
  if (limit > kMaxLimit) limit = kMaxLimit;
  if (limit <= 0) limit = kDefaultLimit;
  const std::string name = AsciiLower(req.get_param_value("searchName"));
  const std::string tag = AsciiLower(req.get_param_value("searchTag"));
  std::vector<std::shared_ptr<const DagFile>> files;
  Status s = ctx.dags->ListShared(/*metadata_only=*/true, &files);
  if (!s.ok()) return SendInternal(res);
  std::vector<const DagFile*> matching;
  for (const auto& f : files) {
    const Dag* d = f->AnyDag();
    if (d == nullptr) continue;
    if (!name.empty() && AsciiLower(d->name).find(name) == std::string::npos) continue;
    if (!tag.empty() &&
        std::none_of(d->tags.begin(), d->tags.end(), [&](const std::string& t) { return AsciiLower(t) == tag; }))
      continue;
    matching.push_back(f.get());
  }
  std::stable_sort(matching.begin(), matching.end(), [](const DagFile* a, const DagFile* b) {
    return AsciiLower(a->AnyDag()->name) < AsciiLower(b->AnyDag()->name);
  });
  const long long total = static_cast<long long>(matching.size());
  V1Json dags = nullptr;
  for (long long i = (page - 1) * limit; i < std::min(total, page * limit); ++i) {
    const DagFile& f = *matching[static_cast<size_t>(i)];
    if (dags.is_null()) dags = V1Json::array();
    dags.push_back({{"DAG", DagJson(*f.AnyDag())},
                    {"File", ""},
                    {"Status",
                     {{"FinishedAt", ""},
                      {"Name", ""},
                      {"RequestId", ""},
                      {"StartedAt", ""},
                      {"Status", 0},
                      {"StatusText", RunStatusLabel(RunStatus::kNotStarted)}}},
                    {"Suspended", f.suspended}});
  }
  Send(res, 200, {{"DAGs", dags}, {"HasError", false}, {"PageCount", (total - 1) / limit + 1}});
}

// POST /dags {action, value}.
void HandleCreate(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return SendInvalid(res, "request body has an error: value is required but missing");
  }
  V1Json body = V1Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    return SendInvalid(res, "request body has an error: failed to decode request body");
  }
  for (const char* field : {"action", "value"}) {
    auto it = body.find(field);
    if (it == body.end()) {
      return SendInvalid(res, std::string("request body has an error: doesn't match schema: Error at \"/") + field +
                                  "\": property \"" + field + "\" is missing");
    }
    if (!it->is_string()) {
      return SendInvalid(res, std::string("request body has an error: doesn't match schema: Error at \"/") + field +
                                  "\": value must be a string");
    }
  }
  const std::string value = body["value"].get<std::string>();
  DagFile existing;
  if (ctx.dags->Find(value, &existing).ok()) {
    return SendError(res, 409, error_code::kAlreadyExists, "DAG " + value + " already exists");
  }
  Status s = ctx.dags->Create(value, kNewDagSpec);
  if (s.code() == Status::Code::kInvalidArgument) return SendError(res, 400, error_code::kBadRequest, s.message());
  if (!s.ok()) return SendInternal(res);
  Send(res, 201, {{"DagID", value}});
}

// The file's text, or the log of the latest run or of one step, as the tabs show it.
bool ReadText(const ApiContext& ctx, const std::string& path, std::string* out) {
  return !path.empty() && ctx.fs->ReadFile(path, out).ok();
}

const NodeRecord* FindStepNode(const RunRecord& r, const std::string& step) {
  const NodeRecord* found = nullptr;
  for (const NodeRecord& n : r.nodes)
    if (n.StepName() == step) found = &n;  // the last of that name, as 1.30.2
  if (found != nullptr) return found;
  for (const auto* h : {&r.on_success, &r.on_failure, &r.on_cancel, &r.on_exit})
    if (*h && (*h)->StepName() == step) found = &**h;
  return found;
}

V1Json HistoryJson(const ApiContext& ctx, const Dag& dag) {
  std::vector<RunRecord> records;
  if (ValidateDagFileName(dag.name).ok()) {
    RunQuery q;
    q.dag_name = dag.name;
    q.limit = kHistoryRuns;
    std::vector<RunEntry> entries;
    if (ctx.runs->ListRuns(q, &entries).ok()) {
      for (RunEntry& e : entries) {
        if (!e.error.ok()) continue;
        ApplyStaleCheck(ctx, e.attempt, &e.record);
        records.push_back(std::move(e.record));
      }
    }
  }
  V1Json grid = nullptr;
  for (const auto& row : ApiJson(GridDataJson(records))) {
    if (grid.is_null()) grid = V1Json::array();
    grid.push_back({{"Name", row["name"]}, {"Vals", V1Json(row["history"])}});
  }
  V1Json logs = nullptr;
  for (auto it = records.rbegin(); it != records.rend(); ++it) {  // oldest first
    if (logs.is_null()) logs = V1Json::array();
    logs.push_back({{"File", ""}, {"Status", StatusJson(*it)}});
  }
  return {{"GridData", grid}, {"Logs", logs}};
}

// GET /dags/{name}?tab&step&file. `file` (a status file path, which
// 1.30.2 reads wherever it is) is refused as 1.30.2 refuses a file it
// cannot parse.
void HandleDetails(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  std::string tab = req.has_param("tab") ? req.get_param_value("tab") : "status";
  if (tab != "status" && tab != "spec" && tab != "history" && tab != "log" && tab != "scheduler-log") {
    return SendInvalid(res,
                       "parameter \"tab\" in query has an error: value is not one of the allowed values "
                       "[\"status\",\"spec\",\"history\",\"log\",\"scheduler-log\"]");
  }
  DagFile f;
  if (!ctx.dags->Find(req.matches[1].str(), &f).ok() || !f.dag) return SendInternal(res);
  const Dag& dag = *f.dag;
  const RunRecord latest = LatestOrNotStarted(ctx, f);
  V1Json j = {
      {"Title", dag.name},
      {"DAG", {{"DAG", DagDetailsJson(dag)}, {"File", ""}, {"Status", StatusJson(latest)}, {"Suspended", f.suspended}}},
      {"Errors", nullptr}};
  const bool with_file = !req.get_param_value("file").empty();
  if (tab == "spec") {
    std::string text;
    if (!ctx.dags->ReadSpec(f, &text).ok()) return SendInternal(res);
    j["Definition"] = text;
  } else if (tab == "history") {
    j["LogData"] = HistoryJson(ctx, dag);
  } else if (tab == "log") {
    if (!req.has_param("step")) return SendError(res, 400, error_code::kBadRequest, "Step name is required");
    if (with_file) return SendInternal(res);
    const std::string step = req.get_param_value("step");
    const NodeRecord* node = FindStepNode(latest, step);
    if (node == nullptr) return SendError(res, 404, error_code::kNotFound, "step " + step + " not found");
    std::string text;
    if (!ReadText(ctx, node->stdout_path, &text)) return SendInternal(res);
    j["StepLog"] = {{"Content", text}, {"LogFile", node->stdout_path}, {"Step", NodeJson(*node)}};
  } else if (tab == "scheduler-log") {
    if (with_file) return SendInternal(res);
    std::string text;
    if (!ReadText(ctx, latest.log, &text)) return SendInternal(res);
    j["ScLog"] = {{"Content", text}, {"LogFile", latest.log}};
  }
  Send(res, 200, j);
}

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(const std::string& v) {
  if (v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "true" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "false" || v == "False") return false;
  return std::nullopt;
}

// The body of POST /dags/{name}, checked as 1.30.2's validator checks it.
struct Action {
  std::string action;
  std::optional<std::string> value, request_id, step, params;
};

bool ReadAction(const http::Request& req, http::Response& res, Action* out) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    SendInvalid(res, "request body has an error: value is required but missing");
    return false;
  }
  V1Json body = V1Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    SendInvalid(res, "request body has an error: failed to decode request body");
    return false;
  }
  auto bad = [&](const std::string& field, const std::string& what) {
    SendInvalid(res, "request body has an error: doesn't match schema: Error at \"/" + field + "\": " + what);
    return false;
  };
  auto it = body.find("action");
  if (it == body.end()) return bad("action", "property \"action\" is missing");
  static const char* const kActions[] = {"start",        "suspend",     "stop", "retry",
                                         "mark-success", "mark-failed", "save", "rename"};
  if (!it->is_string() ||
      std::find(std::begin(kActions), std::end(kActions), it->get<std::string>()) == std::end(kActions)) {
    return bad("action",
               "value is not one of the allowed values "
               "[\"start\",\"suspend\",\"stop\",\"retry\",\"mark-success\",\"mark-failed\",\"save\",\"rename\"]");
  }
  out->action = it->get<std::string>();
  for (auto [field, slot] : {std::pair{"value", &out->value}, std::pair{"requestId", &out->request_id},
                             std::pair{"step", &out->step}, std::pair{"params", &out->params}}) {
    auto f = body.find(field);
    if (f == body.end()) continue;
    if (!f->is_string()) return bad(field, "value must be a string");
    *slot = f->get<std::string>();
  }
  return true;
}

// mark-success / mark-failed: sets the step's node status in the run's
// latest attempt (a new record appended, as /api/v2's step status update).
void MarkStep(const ApiContext& ctx, const Dag& dag, const Action& a, http::Response& res) {
  RunView view;
  Status s = LookupRun(ctx, dag.name, *a.request_id, &view);
  if (s.IsNotFound() || s.code() == Status::Code::kInvalidArgument) {
    return SendError(res, 500, error_code::kNotFound, "dag-run not found");  // 1.30.2's status
  }
  if (!s.ok()) return SendInternal(res);
  if (view.record.status == RunStatus::kRunning) {
    return SendError(res, 400, error_code::kBadRequest, "cannot change status of running DAG");
  }
  NodeRecord* node = nullptr;
  for (NodeRecord& n : view.record.nodes)
    if (n.StepName() == *a.step) node = &n;
  if (node == nullptr) return SendInternal(res);  // 1.30.2 wraps its 404 into a 500
  node->status = a.action == "mark-success" ? NodeStatus::kSucceeded : NodeStatus::kFailed;
  if (!ctx.runs->AppendStatus(view.attempt, view.record).ok()) return SendInternal(res);
  Send(res, 200, V1Json::object());
}

void HandleAction(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  Action a;
  if (!ReadAction(req, res, &a)) return;
  const std::string name = req.matches[1].str();
  DagFile f;
  if (a.action == "save") {
    if (!a.value) return SendError(res, 400, error_code::kBadRequest, "value is required for save action (DAG spec)");
    if (!ctx.dags->Find(name, &f).ok()) return SendInternal(res);
    if (!ctx.dags->LoadText(f.file_name, *a.value).dag)
      return SendInternal(res);  // 1.30.2 refuses a spec that does not load
    if (!ctx.dags->WriteSpec(f, *a.value).ok()) return SendInternal(res);
    return Send(res, 200, V1Json::object());
  }
  if (!ctx.dags->Find(name, &f).ok() || !f.dag) {
    return SendError(res, 404, error_code::kNotFound, "DAG " + name + " not found");
  }
  const Dag& dag = *f.dag;
  const RunRecord latest = LatestOrNotStarted(ctx, f);
  const bool running = latest.status == RunStatus::kRunning;
  if (a.action == "start") {
    if (running) return SendError(res, 400, error_code::kAlreadyRunning, "DAG is already running");
    const std::string run_id = NewUuidV7(ctx.clock->Now());
    std::vector<std::string> flags{"-q", "--run-id=" + run_id, "--trigger-type=manual"};
    if (a.params && !a.params->empty()) flags.push_back("--params=" + *a.params);
    if (!StartAndWait(ctx, flags, f.path, dag.name, run_id).ok()) return SendInternal(res);
    return Send(res, 200, V1Json::object());
  }
  if (a.action == "suspend") {
    std::optional<bool> on = ParseBool(a.value.value_or(""));
    if (!on) return SendError(res, 400, error_code::kBadRequest, "invalid value for suspend, must be true or false");
    if (!ctx.dags->SetSuspended(f, *on).ok()) return SendInternal(res);
    return Send(res, 200, V1Json::object());
  }
  if (a.action == "stop") {
    if (!running) return SendError(res, 400, error_code::kNotRunning, "DAG is not running");
    if (!RunCommand(ctx, "stop", {"-q", "--run-id=" + latest.dag_run_id}, {dag.name}).ok()) return SendInternal(res);
    return Send(res, 200, V1Json::object());
  }
  if (a.action == "retry") {
    if (!a.request_id) return SendError(res, 400, error_code::kBadRequest, "requestId is required for retry action");
    // Like 1.30.2: the retry is started and not waited for (a run ID that
    // does not exist fails in the command, after the answer).
    std::vector<std::string> flags{"-q", "--run-id=" + *a.request_id};
    if (a.step && !a.step->empty()) flags.push_back("--step=" + *a.step);
    pid_t pid = 0;
    if (a.request_id->empty() || !ctx.cli->Spawn("retry", flags, {dag.name}, &pid).ok()) return SendInternal(res);
    return Send(res, 200, V1Json::object());
  }
  if (a.action == "mark-success" || a.action == "mark-failed") {
    if (running) return SendError(res, 400, error_code::kBadRequest, "cannot change status of running DAG");
    if (!a.request_id)
      return SendError(res, 400, error_code::kBadRequest, "requestId is required for mark-success action");
    if (!a.step) return SendError(res, 400, error_code::kBadRequest, "step is required for mark-success action");
    return MarkStep(ctx, dag, a, res);
  }
  // rename
  if (!a.value) return SendError(res, 400, error_code::kBadRequest, "value is required for rename action (new name)");
  if (Status v = ValidateDagFileName(*a.value); !v.ok()) return SendInternal(res);
  if (!ctx.dags->Rename(f, *a.value).ok()) return SendInternal(res);
  Send(res, 200, {{"NewName", *a.value}});
}

// DELETE /dags/{name}: 1.30.2 answers a DAG it cannot find with a 500.
void HandleDelete(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!ctx.dags->Find(req.matches[1].str(), &f).ok()) return SendInternal(res);
  if (!ctx.dags->Remove(f).ok()) return SendInternal(res);
  res.status = 204;
}

void HandleSearch(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  if (!req.has_param("q"))
    return SendInvalid(res, "parameter \"q\" in query has an error: value is required but missing");
  const std::string q = req.get_param_value("q");
  if (q.empty()) return SendInvalid(res, "parameter \"q\" in query has an error: empty value is not allowed");
  DagSearch found;
  if (!SearchDags(ctx, q, &found).ok()) return SendInternal(res);
  V1Json errors = nullptr;
  if (found.bad_pattern) errors = found.errors;
  V1Json results = nullptr;
  for (const DagSearchHit& hit : found.hits) {
    V1Json matches = V1Json::array();
    for (const DagSearchMatch& m : hit.matches) {
      matches.push_back({{"Line", m.line}, {"LineNumber", m.line_number}, {"StartLine", m.start_line}});
    }
    if (results.is_null()) results = V1Json::array();
    results.push_back({{"DAG", DagJson(*hit.file.AnyDag())}, {"Matches", matches}, {"Name", hit.file.file_name}});
  }
  Send(res, 200, {{"Errors", errors}, {"Results", results}});
}

void HandleTags(const ApiContext& ctx, const http::Request&, http::Response& res) {
  std::vector<std::string> tags;
  if (!CollectDagTags(ctx, &tags).ok()) return SendInternal(res);
  Send(res, 200, {{"Errors", nullptr}, {"Tags", tags.empty() ? V1Json(nullptr) : V1Json(tags)}});
}

}  // namespace

void AddApiV1Routes(WebServer* server, const ApiContext* ctx) {
  const std::string p = "/api/v1";
  using Handler = void (*)(const ApiContext&, const http::Request&, http::Response&);
  auto bind = [ctx](Handler h) { return [ctx, h](const http::Request& q, http::Response& r) { h(*ctx, q, r); }; };
  server->Get(p + "/dags", bind(HandleList));
  server->Post(p + "/dags", bind(HandleCreate));
  server->Get(p + "/dags/([^/]+)", bind(HandleDetails));
  server->Post(p + "/dags/([^/]+)", bind(HandleAction));
  server->Delete(p + "/dags/([^/]+)", bind(HandleDelete));
  server->Get(p + "/search", bind(HandleSearch));
  server->Get(p + "/tags", bind(HandleTags));
}

}  // namespace dagu::web
