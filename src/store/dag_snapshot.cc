#include "store/dag_snapshot.h"

#include <array>
#include <chrono>

#include "core/base64.h"
#include "store/dag_snapshot_notify.h"
#include "store/call_snapshot.h"
#include "store/json_fields.h"
#include "core/json_text.h"

namespace dagu {
namespace {

using std::chrono::nanoseconds;

int64_t Ns(nanoseconds d) { return d.count(); }

Json EnvToJson(const std::vector<std::pair<std::string, std::string>>& env) {
  Json list = Json::array();
  for (const auto& [k, v] : env) list.push_back(k + "=" + v);
  return list;
}

std::vector<std::pair<std::string, std::string>> EnvFromList(const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos) env.emplace_back(item, "");
    else env.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return env;
}

Json ConditionToJson(const Condition& c) {
  Json j = Json::object();
  j["condition"] = c.condition;
  if (!c.expected.empty()) j["expected"] = c.expected;
  if (c.negate) j["negate"] = true;
  return j;
}

Json ConditionsToJson(const std::vector<Condition>& conditions) {
  Json list = Json::array();
  for (const auto& c : conditions) list.push_back(ConditionToJson(c));
  return list;
}

Json CommandToJson(const std::string& line) {
  std::vector<std::string> words = SplitCommandLine(line);
  Json j = Json::object();
  j["command"] = words.empty() ? line : words.front();
  if (words.size() > 1) j["args"] = std::vector<std::string>(words.begin() + 1, words.end());
  j["cmdWithArgs"] = line;
  return j;
}

Json RetryToJson(const RetryPolicy& r) {
  Json j = Json::object();
  j["limit"] = r.limit;
  j["interval"] = Ns(r.interval);
  if (!r.limit_text.empty()) j["limitStr"] = r.limit_text;
  if (!r.interval_text.empty()) j["intervalSecStr"] = r.interval_text;
  if (!r.exit_codes.empty()) j["exitCode"] = r.exit_codes;
  if (r.backoff != 0) j["backoff"] = r.backoff;
  if (r.max_interval.count() != 0) j["maxInterval"] = Ns(r.max_interval);
  return j;
}

Json RepeatToJson(const RepeatPolicy& r) {
  Json j = Json::object();
  j["repeatMode"] = r.mode.empty() ? "while" : r.mode;
  j["interval"] = Ns(r.interval);
  if (r.limit != 0) j["limit"] = r.limit;
  if (r.condition.has_value()) j["condition"] = ConditionToJson(*r.condition);
  if (!r.exit_codes.empty()) j["exitCode"] = r.exit_codes;
  if (r.backoff != 0) j["backoff"] = r.backoff;
  if (r.max_interval.count() != 0) j["maxInterval"] = Ns(r.max_interval);
  return j;
}

Json ContinueOnToJson(const ContinueOn& c) {
  Json j = Json::object();
  if (c.failure) j["failure"] = true;
  if (c.skipped) j["skipped"] = true;
  if (!c.exit_codes.empty()) j["exitCode"] = c.exit_codes;
  if (!c.output.empty()) j["output"] = c.output;
  if (c.mark_success) j["markSuccess"] = true;
  return j;
}

void PutIfSet(Json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

// Reads a Condition object; `what` names it in errors.
Status ConditionFromJson(const Json& json, const std::string& what, Condition* c) {
  JsonFields f(json, what);
  f.Str("condition", &c->condition);
  if (c->condition.empty()) f.Str("command", &c->condition);  // legacy key
  f.Str("expected", &c->expected);
  f.Bool("negate", &c->negate);
  return f.status();
}

void ReadConditions(JsonFields& f, const char* key, std::vector<Condition>* out) {
  const Json* list = nullptr;
  if (!f.Array(key, &list)) return;
  for (size_t i = 0; i < list->size(); ++i) {
    Condition c;
    Status s = ConditionFromJson((*list)[i], std::string(key) + "[" + std::to_string(i) + "]", &c);
    if (!s.ok()) return f.Fail(key, s.message());
    out->push_back(c);
  }
}

void ReadDuration(JsonFields& f, const char* key, nanoseconds* out) {
  int64_t ns = out->count();
  f.Int64(key, &ns);
  *out = nanoseconds(ns);
}

void ReadRetry(JsonFields& f, RetryPolicy* r) {
  const Json* obj = nullptr;
  if (!f.Object("retryPolicy", &obj)) return;
  JsonFields p(*obj, "retryPolicy");
  p.Int("limit", &r->limit);
  ReadDuration(p, "interval", &r->interval);
  p.Str("limitStr", &r->limit_text);
  p.Str("intervalSecStr", &r->interval_text);
  p.IntList("exitCode", &r->exit_codes);
  p.Double("backoff", &r->backoff);
  ReadDuration(p, "maxInterval", &r->max_interval);
  if (!p.ok()) f.Fail("retryPolicy", p.status().message());
}

void ReadRepeat(JsonFields& f, RepeatPolicy* r) {
  const Json* obj = nullptr;
  if (!f.Object("repeatPolicy", &obj)) return;
  JsonFields p(*obj, "repeatPolicy");
  bool legacy = false;
  p.Bool("repeat", &legacy);
  p.Str("repeatMode", &r->mode);
  ReadDuration(p, "interval", &r->interval);
  p.Int("limit", &r->limit);
  const Json* cond = nullptr;
  if (p.Object("condition", &cond)) {
    Condition c;
    Status s = ConditionFromJson(*cond, "repeatPolicy.condition", &c);
    if (!s.ok()) p.Fail("condition", s.message());
    else r->condition = c;
  }
  p.IntList("exitCode", &r->exit_codes);
  p.Double("backoff", &r->backoff);
  ReadDuration(p, "maxInterval", &r->max_interval);
  r->enabled = legacy || !r->mode.empty();
  if (!p.ok()) f.Fail("repeatPolicy", p.status().message());
}

void ReadContinueOn(JsonFields& f, ContinueOn* c) {
  const Json* obj = nullptr;
  if (!f.Object("continueOn", &obj)) return;
  JsonFields p(*obj, "continueOn");
  p.Bool("failure", &c->failure);
  p.Bool("skipped", &c->skipped);
  p.IntList("exitCode", &c->exit_codes);
  p.StrList("output", &c->output);
  p.Bool("markSuccess", &c->mark_success);
  if (!p.ok()) f.Fail("continueOn", p.status().message());
}

// The command line of one `commands` item: cmdWithArgs, else command + args.
std::string CommandLine(const Json& item) {
  if (item.is_string()) return item.get<std::string>();
  if (!item.is_object()) return "";
  auto with = item.find("cmdWithArgs");
  if (with != item.end() && with->is_string() && !with->get<std::string>().empty()) return with->get<std::string>();
  std::string line;
  auto cmd = item.find("command");
  if (cmd != item.end() && cmd->is_string()) line = cmd->get<std::string>();
  auto args = item.find("args");
  if (args != item.end() && args->is_array()) {
    for (const auto& a : *args) {
      if (a.is_string()) line += " " + a.get<std::string>();
    }
  }
  return line;
}

constexpr const char* kHandlerKeys[] = {"init", "success", "failure", "cancel", "exit", "wait"};
constexpr const char* kHandlerNames[] = {"onInit", "onSuccess", "onFailure", "onCancel", "onExit", "onWait"};

template <class H>
auto HandlerSlots(H& h) {
  return std::array{&h.init, &h.success, &h.failure, &h.abort, &h.exit, &h.wait};
}

}  // namespace

std::vector<std::string> SplitCommandLine(const std::string& line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size()) cur += line[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      cur += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

std::vector<std::string> ParamsToList(const Params& params) {
  std::vector<std::string> out;
  for (const auto& [k, v] : params) out.push_back(k + "=" + v);
  return out;
}

Params ParamsFromList(const std::vector<std::string>& items) {
  Params out;
  for (size_t i = 0; i < items.size(); ++i) {
    auto eq = items[i].find('=');
    if (eq == std::string::npos) out.emplace_back(std::to_string(i + 1), items[i]);
    else out.emplace_back(items[i].substr(0, eq), items[i].substr(eq + 1));
  }
  return out;
}

std::string JoinParams(const Params& params) {
  std::string out;
  for (const auto& item : ParamsToList(params)) {
    if (!out.empty()) out += " ";
    out += item;
  }
  return out;
}

Json StepToSnapshot(const Step& step) {
  Json j = Json::object();
  PutIfSet(j, "id", step.id);
  j["name"] = step.name;
  PutIfSet(j, "description", step.description);
  PutIfSet(j, "shell", step.shell);
  if (!step.shell_args.empty()) j["shellArgs"] = step.shell_args;
  PutIfSet(j, "dir", step.working_dir);
  snapshot_internal::PutStepExecutor(step, &j);
  if (!step.commands.empty()) {
    Json commands = Json::array();
    for (const auto& line : step.commands) commands.push_back(CommandToJson(line));
    j["commands"] = commands;
  }
  PutIfSet(j, "script", step.script);
  PutIfSet(j, "stdout", step.stdout_file);
  PutIfSet(j, "stderr", step.stderr_file);
  PutIfSet(j, "logOutput", step.log_output);
  PutIfSet(j, "output", step.output);
  PutIfSet(j, "outputKey", step.output_key);
  if (step.output_omit) j["outputOmit"] = true;
  if (!step.depends.empty()) j["depends"] = step.depends;
  Json cont = ContinueOnToJson(step.continue_on);
  if (!cont.empty()) j["continueOn"] = cont;
  if (step.retry_policy.limit > 0 || !step.retry_policy.limit_text.empty()) {
    j["retryPolicy"] = RetryToJson(step.retry_policy);
  }
  if (step.repeat_policy.enabled) j["repeatPolicy"] = RepeatToJson(step.repeat_policy);
  if (!step.preconditions.empty()) j["preconditions"] = ConditionsToJson(step.preconditions);
  PutIfSet(j, "signalOnStop", step.signal_on_stop);
  if (!step.container_json.empty()) j["container"] = Json::parse(step.container_json, nullptr, false);
  if (!step.env.empty()) j["env"] = EnvToJson(step.env);
  if (step.timeout.count() != 0) j["timeout"] = Ns(step.timeout);
  AddCallToSnapshot(step, &j);
  return j;
}

Json DagToSnapshot(const Dag& dag, const SnapshotOptions& options) {
  Json j = Json::object();
  PutIfSet(j, "workingDir", dag.working_dir);
  if (options.include_location) PutIfSet(j, "location", dag.location);
  PutIfSet(j, "group", dag.group);
  j["name"] = dag.name;
  j["type"] = dag.type == DagType::kChain ? "chain" : "graph";
  PutIfSet(j, "shell", dag.shell);
  if (!dag.shell_args.empty()) j["shellArgs"] = dag.shell_args;
  Json dotenv = Json::array();
  if (!dag.dotenv_disabled) {
    dotenv.push_back(".env");
    for (const auto& f : dag.dotenv) dotenv.push_back(f);
  }
  j["dotenv"] = dotenv;
  if (!dag.tags.empty()) j["tags"] = dag.tags;
  PutIfSet(j, "description", dag.description);
  if (!dag.schedules.start.empty()) {
    Json schedules = Json::array();
    for (const auto& s : dag.schedules.start) schedules.push_back(Json{{"expression", s.expression()}});
    j["schedule"] = schedules;
  }
  if (dag.skip_if_successful) j["skipIfSuccessful"] = true;
  if (!dag.env.empty()) j["env"] = EnvToJson(dag.env);
  PutIfSet(j, "logDir", dag.log_dir);
  if (dag.log_output == "merged") j["logOutput"] = dag.log_output;
  j["logOutput"] = "separate";
  std::string defaults;
  for (const auto& [k, v] : dag.params) {
    if (!defaults.empty()) defaults += " ";
    defaults += k + "=" + JsonText(Json(v));
  }
  PutIfSet(j, "defaultParams", defaults);
  if (!options.params.empty()) {
    j["params"] = ParamsToList(options.params);
    Json obj = Json::object();
    for (const auto& [k, v] : options.params) obj[k] = v;
    j["paramsJSON"] = JsonText(obj);
  }
  Json steps = Json::array();
  for (const auto& s : dag.steps) steps.push_back(StepToSnapshot(s));
  j["steps"] = steps;
  Json handlers = Json::object();
  auto slots = HandlerSlots(dag.handler_on);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]->has_value()) continue;
    Step h = **slots[i];
    h.name = kHandlerNames[i];
    handlers[kHandlerKeys[i]] = StepToSnapshot(h);
  }
  if (!handlers.empty()) j["handlerOn"] = handlers;
  if (!dag.preconditions.empty()) j["preconditions"] = ConditionsToJson(dag.preconditions);
  if (dag.timeout.count() != 0) j["timeout"] = Ns(dag.timeout);
  if (dag.delay.count() != 0) j["delay"] = Ns(dag.delay);
  if (dag.restart_wait.count() != 0) j["restartWait"] = Ns(dag.restart_wait);
  if (dag.max_active_steps != 0) j["maxActiveSteps"] = dag.max_active_steps;
  j["maxActiveRuns"] = dag.max_active_runs;
  j["maxCleanUpTime"] = Ns(dag.max_clean_up_time);
  j["histRetentionDays"] = dag.hist_retention_days;
  PutIfSet(j, "queue", dag.queue);
  j["maxOutputSize"] = dag.max_output_size;
  snapshot_internal::PutDagNotify(dag, &j);
  if (!dag.container_json.empty()) j["container"] = Json::parse(dag.container_json, nullptr, false);
  if (!dag.registry_auths_json.empty()) j["registryAuths"] = Json::parse(dag.registry_auths_json, nullptr, false);
  if (!dag.worker_selector.empty()) j["workerSelector"] = dag.worker_selector;
  if (!dag.yaml_data.empty()) j["yamlData"] = Base64Encode(dag.yaml_data);
  AddLocalDagsToSnapshot(dag, &j);
  return j;
}

Status SnapshotToStep(const Json& snapshot, Step* step) {
  *step = Step();
  JsonFields f(snapshot, "step");
  f.Str("id", &step->id);
  f.Str("name", &step->name);
  f.Str("description", &step->description);
  f.Str("shell", &step->shell);
  f.StrList("shellArgs", &step->shell_args);
  f.Str("dir", &step->working_dir);
  if (step->working_dir.empty()) f.Str("workingDir", &step->working_dir);
  DAGU_RETURN_IF_ERROR(snapshot_internal::ReadStepExecutor(snapshot, f, step));
  const Json* commands = nullptr;
  if (f.Array("commands", &commands)) {
    for (const auto& item : *commands) {
      std::string line = CommandLine(item);
      if (!line.empty()) step->commands.push_back(line);
    }
  }
  if (step->commands.empty()) {
    // Older snapshots: command / args / cmdWithArgs on the step itself.
    std::string line = CommandLine(snapshot);
    if (!line.empty()) step->commands.push_back(line);
  } else {
    std::string ignored;
    f.Str("command", &ignored);
    f.Str("cmdWithArgs", &ignored);
  }
  f.Str("script", &step->script);
  f.Str("stdout", &step->stdout_file);
  f.Str("stderr", &step->stderr_file);
  f.Str("logOutput", &step->log_output);
  f.Str("output", &step->output);
  f.Str("outputKey", &step->output_key);
  f.Bool("outputOmit", &step->output_omit);
  f.StrList("depends", &step->depends);
  ReadContinueOn(f, &step->continue_on);
  ReadRetry(f, &step->retry_policy);
  ReadRepeat(f, &step->repeat_policy);
  ReadConditions(f, "preconditions", &step->preconditions);
  f.Str("signalOnStop", &step->signal_on_stop);
  if (auto c = snapshot.find("container"); c != snapshot.end() && c->is_object()) step->container_json = c->dump();
  std::vector<std::string> env;
  f.StrList("env", &env);
  step->env = EnvFromList(env);
  ReadDuration(f, "timeout", &step->timeout);
  if (!f.ok()) return f.status().WithContext("step \"" + step->name + "\"");
  return ReadCallFromSnapshot(snapshot, step).WithContext("step \"" + step->name + "\"");
}

Status SnapshotToDag(const Json& snapshot, Dag* dag, Params* params) {
  *dag = Dag();
  params->clear();
  JsonFields f(snapshot, "dag.json");
  f.Str("name", &dag->name);
  f.Str("location", &dag->location);
  f.Str("workingDir", &dag->working_dir);
  f.Str("group", &dag->group);
  f.Str("description", &dag->description);
  f.StrList("tags", &dag->tags);
  std::string type;
  f.Str("type", &type);
  dag->type = type == "chain" ? DagType::kChain : DagType::kGraph;
  f.Str("shell", &dag->shell);
  f.StrList("shellArgs", &dag->shell_args);
  std::vector<std::string> dotenv;
  Json raw_dotenv;
  bool has_dotenv = f.Raw("dotenv", &raw_dotenv);
  f.StrList("dotenv", &dotenv);
  dag->dotenv_disabled = has_dotenv && dotenv.empty();
  for (const auto& d : dotenv) {
    if (d != ".env") dag->dotenv.push_back(d);
  }
  f.Bool("skipIfSuccessful", &dag->skip_if_successful);
  std::vector<std::string> env;
  f.StrList("env", &env);
  dag->env = EnvFromList(env);
  f.Str("logDir", &dag->log_dir);
  f.Str("logOutput", &dag->log_output);
  if (dag->log_output.empty()) dag->log_output = "separate";
  std::vector<std::string> param_items;
  f.StrList("params", &param_items);
  *params = ParamsFromList(param_items);
  dag->params = *params;
  const Json* steps = nullptr;
  if (f.Array("steps", &steps)) {
    for (const auto& s : *steps) {
      Step step;
      DAGU_RETURN_IF_ERROR(SnapshotToStep(s, &step).WithContext("dag.json"));
      dag->steps.push_back(std::move(step));
    }
  }
  const Json* handlers = nullptr;
  if (f.Object("handlerOn", &handlers)) {
    auto slots = HandlerSlots(dag->handler_on);
    for (size_t i = 0; i < slots.size(); ++i) {
      auto it = handlers->find(kHandlerKeys[i]);
      if (it == handlers->end() && std::string(kHandlerKeys[i]) == "cancel") it = handlers->find("abort");
      if (it == handlers->end() || it->is_null()) continue;
      Step h;
      DAGU_RETURN_IF_ERROR(SnapshotToStep(*it, &h).WithContext("dag.json handlerOn"));
      h.name = kHandlerNames[i];
      *slots[i] = std::move(h);
    }
  }
  ReadConditions(f, "preconditions", &dag->preconditions);
  ReadDuration(f, "timeout", &dag->timeout);
  ReadDuration(f, "delay", &dag->delay);
  ReadDuration(f, "restartWait", &dag->restart_wait);
  f.Int("maxActiveSteps", &dag->max_active_steps);
  f.Int("maxActiveRuns", &dag->max_active_runs);
  ReadDuration(f, "maxCleanUpTime", &dag->max_clean_up_time);
  f.Int("histRetentionDays", &dag->hist_retention_days);
  f.Str("queue", &dag->queue);
  f.Int64("maxOutputSize", &dag->max_output_size);
  snapshot_internal::ReadDagNotify(f, dag);
  if (auto c = snapshot.find("container"); c != snapshot.end() && c->is_object()) dag->container_json = c->dump();
  if (auto c = snapshot.find("registryAuths"); c != snapshot.end() && c->is_object() && !c->empty()) {
    dag->registry_auths_json = c->dump();
  }
  if (auto w = snapshot.find("workerSelector"); w != snapshot.end() && w->is_object()) {
    for (const auto& [key, value] : w->items()) {
      if (value.is_string()) dag->worker_selector[key] = value.get<std::string>();
    }
  }
  std::string yaml_b64;
  f.Str("yamlData", &yaml_b64);
  if (!yaml_b64.empty() && !Base64Decode(yaml_b64, &dag->yaml_data)) f.Fail("yamlData", "not valid base64");
  DAGU_RETURN_IF_ERROR(f.status());
  return ReadLocalDagsFromSnapshot(snapshot, dag);
}

}  // namespace dagu
