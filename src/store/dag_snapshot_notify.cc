#include "store/dag_snapshot_notify.h"

#include <algorithm>

#include "dag/dag_executor.h"

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
}

Status ReadStepExecutor(const Json& snapshot, JsonFields& f, Step* step) {
  f.Bool("mailOnError", &step->mail_on_error);
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
