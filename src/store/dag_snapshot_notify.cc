#include "store/dag_snapshot_notify.h"

#include <algorithm>

#include "dag/dag_executor.h"
#include "dag/dag_ssh.h"

namespace dagu::snapshot_internal {
namespace {

Json MailToJson(const MailConfig& m) {
  Json j = Json::object();
  if (!m.from.empty()) j["from"] = m.from;
  if (!m.to.empty()) j["to"] = m.to;
  if (!m.prefix.empty()) j["prefix"] = m.prefix;
  if (m.attach_logs) j["attachLogs"] = true;
  return j;
}

void ReadMail(JsonFields& f, const char* key, MailConfig* out) {
  const Json* obj = nullptr;
  if (!f.Object(key, &obj)) return;
  JsonFields m(*obj, key);
  m.Str("from", &out->from);
  m.StrList("to", &out->to);
  m.Str("prefix", &out->prefix);
  m.Bool("attachLogs", &out->attach_logs);
}

// llm: as 1.30.2's LLMConfig marshals it (omitempty).
Json LlmToJson(const LlmConfig& c) {
  Json j = Json::object();
  if (!c.provider.empty()) j["provider"] = c.provider;
  if (!c.model.empty()) j["model"] = c.model;
  if (!c.system.empty()) j["system"] = c.system;
  if (c.temperature) j["temperature"] = *c.temperature;
  if (c.max_tokens) j["maxTokens"] = *c.max_tokens;
  if (c.top_p) j["topP"] = *c.top_p;
  if (!c.base_url.empty()) j["baseURL"] = c.base_url;
  if (!c.api_key_name.empty()) j["apiKeyName"] = c.api_key_name;
  if (c.stream) j["stream"] = *c.stream;
  if (c.thinking) {
    Json t = Json::object();
    if (c.thinking->enabled) t["enabled"] = true;
    if (!c.thinking->effort.empty()) t["effort"] = c.thinking->effort;
    if (c.thinking->budget_tokens) t["budgetTokens"] = *c.thinking->budget_tokens;
    if (c.thinking->include_in_output) t["includeInOutput"] = true;
    j["thinking"] = t;
  }
  return j;
}

void ReadLlm(JsonFields& f, std::optional<LlmConfig>* out) {
  const Json* obj = nullptr;
  if (!f.Object("llm", &obj)) return;
  JsonFields l(*obj, "llm");
  LlmConfig c;
  l.Str("provider", &c.provider);
  l.Str("model", &c.model);
  l.Str("system", &c.system);
  Json v;
  if (l.Raw("temperature", &v) && v.is_number()) c.temperature = v.get<double>();
  if (l.Raw("maxTokens", &v) && v.is_number()) c.max_tokens = v.get<int64_t>();
  if (l.Raw("topP", &v) && v.is_number()) c.top_p = v.get<double>();
  l.Str("baseURL", &c.base_url);
  l.Str("apiKeyName", &c.api_key_name);
  if (l.Raw("stream", &v) && v.is_boolean()) c.stream = v.get<bool>();
  const Json* t = nullptr;
  if (l.Object("thinking", &t)) {
    JsonFields tf(*t, "thinking");
    LlmThinking th;
    tf.Bool("enabled", &th.enabled);
    tf.Str("effort", &th.effort);
    if (tf.Raw("budgetTokens", &v) && v.is_number()) th.budget_tokens = v.get<int64_t>();
    tf.Bool("includeInOutput", &th.include_in_output);
    c.thinking = th;
  }
  *out = c;
}

}  // namespace

void PutStepExecutor(const Step& step, Json* j) {
  Json exec = Json::object();
  if (!step.executor_type.empty()) {
    exec["type"] = step.executor_type;
    if (!step.executor_config_json.empty()) {
      exec["config"] = Json::parse(step.executor_config_json, nullptr, false);
    }
  }
  (*j)["executorConfig"] = exec;
  if (step.mail_on_error) (*j)["mailOnError"] = true;
  if (step.llm) (*j)["llm"] = LlmToJson(*step.llm);
  if (!step.messages.empty()) {
    Json messages = Json::array();
    for (const auto& m : step.messages) messages.push_back(Json{{"role", m.role}, {"content", m.content}});
    (*j)["messages"] = messages;
  }
}

Status ReadStepExecutor(const Json& snapshot, JsonFields& f, Step* step) {
  f.Bool("mailOnError", &step->mail_on_error);
  ReadLlm(f, &step->llm);
  const Json* messages = nullptr;
  if (f.Array("messages", &messages)) {
    for (const auto& item : *messages) {
      if (!item.is_object()) continue;
      JsonFields m(item, "message");
      LlmMessage msg;
      m.Str("role", &msg.role);
      m.Str("content", &msg.content);
      step->messages.push_back(std::move(msg));
    }
  }
  const Json* exec = nullptr;
  if (!f.Object("executorConfig", &exec)) return Status::OK();
  auto type = exec->find("type");
  if (type == exec->end() || !type->is_string()) return Status::OK();
  std::string t = type->get<std::string>();
  if (IsShellExecutorType(t)) return Status::OK();
  const auto& built = BuiltinExecutorTypes();
  if (std::find(built.begin(), built.end(), t) == built.end()) {
    return Status::NotSupported("step \"" + step->name + "\" uses executor \"" + t +
                                "\", which this dagu does not run");
  }
  step->executor_type = t;
  auto config = exec->find("config");
  if (config != exec->end() && config->is_object()) step->executor_config_json = config->dump();
  (void)snapshot;
  return Status::OK();
}

void PutDagNotify(const Dag& dag, Json* j) {
  if (dag.llm) (*j)["llm"] = LlmToJson(*dag.llm);
  if (!dag.smtp.empty()) {
    Json smtp = Json::object();
    smtp["host"] = dag.smtp.host;
    smtp["port"] = dag.smtp.port;
    if (!dag.smtp.username.empty()) smtp["username"] = dag.smtp.username;
    if (!dag.smtp.password.empty()) smtp["password"] = dag.smtp.password;
    (*j)["smtp"] = smtp;
  }
  if (!dag.error_mail.empty()) (*j)["errorMail"] = MailToJson(dag.error_mail);
  if (!dag.info_mail.empty()) (*j)["infoMail"] = MailToJson(dag.info_mail);
  if (!dag.wait_mail.empty()) (*j)["waitMail"] = MailToJson(dag.wait_mail);
  if (dag.mail_on.failure || dag.mail_on.success || dag.mail_on.wait) {
    (*j)["mailOn"] = Json{{"failure", dag.mail_on.failure}, {"success", dag.mail_on.success}};
    if (dag.mail_on.wait) (*j)["mailOn"]["wait"] = true;
  }
  if (std::optional<SshDefaults> ssh_settings = DagSshSettings(dag)) {
    // 1.30.2's core.SSHConfig (empty values and a false strictHostKey left
    // out); for readers of dag.json only: a run reads the settings from the
    // DAG's text (yamlData), their one home.
    const SshDefaults& c = *ssh_settings;
    Json ssh = Json::object();
    auto put = [&](const char* key, const std::string& v) {
      if (!v.empty()) ssh[key] = v;
    };
    put("user", c.user);
    put("host", c.host);
    put("port", c.port);
    put("key", c.key);
    put("password", c.password);
    if (c.strict_host_key) ssh["strictHostKey"] = true;
    put("knownHostFile", c.known_host_file);
    put("shell", c.shell);
    if (!c.shell_args.empty()) ssh["shellArgs"] = c.shell_args;
    (*j)["ssh"] = ssh;
  }
  if (!dag.secrets.empty()) {
    Json secrets = Json::array();
    for (const auto& s : dag.secrets) {
      Json e = Json{{"name", s.name}, {"provider", s.provider}, {"key", s.key}};
      if (!s.options.empty()) {
        Json options = Json::object();
        for (const auto& [k, v] : s.options) options[k] = v;
        e["options"] = options;
      }
      secrets.push_back(e);
    }
    (*j)["secrets"] = secrets;
  }
}

void ReadDagNotify(JsonFields& f, Dag* dag) {
  ReadLlm(f, &dag->llm);
  const Json* obj = nullptr;
  if (f.Object("smtp", &obj)) {
    JsonFields s(*obj, "smtp");
    s.Str("host", &dag->smtp.host);
    Json port;
    if (s.Raw("port", &port)) dag->smtp.port = port.is_string() ? port.get<std::string>() : port.dump();
    s.Str("username", &dag->smtp.username);
    s.Str("password", &dag->smtp.password);
  }
  ReadMail(f, "errorMail", &dag->error_mail);
  ReadMail(f, "infoMail", &dag->info_mail);
  ReadMail(f, "waitMail", &dag->wait_mail);
  if (f.Object("mailOn", &obj)) {
    JsonFields m(*obj, "mailOn");
    m.Bool("failure", &dag->mail_on.failure);
    m.Bool("success", &dag->mail_on.success);
    m.Bool("wait", &dag->mail_on.wait);
  }
  const Json* list = nullptr;
  if (f.Array("secrets", &list)) {
    for (const auto& item : *list) {
      if (!item.is_object()) continue;
      JsonFields s(item, "secret");
      SecretRef ref;
      s.Str("name", &ref.name);
      s.Str("provider", &ref.provider);
      s.Str("key", &ref.key);
      std::map<std::string, std::string> options;
      s.StrMap("options", &options);
      ref.options.assign(options.begin(), options.end());
      dag->secrets.push_back(std::move(ref));
    }
  }
}

}  // namespace dagu::snapshot_internal
