#include "agent/run_mail.h"

#include "agent/env_expand.h"
#include "notify/mailer.h"
#include "notify/run_report.h"

namespace dagu {
namespace {

RunReport ReportOf(const RunRecord& r) {
  RunReport report;
  report.dag_name = r.name;
  report.run_id = r.dag_run_id;
  report.params = r.params;
  report.status = RunStatusLabel(r.status);
  report.started_at = r.started_at;
  report.finished_at = r.finished_at;
  for (const auto& n : r.nodes) {
    RunReport::Step s;
    s.name = n.StepName();
    s.started_at = n.started_at == "-" ? "" : n.started_at;
    s.finished_at = n.finished_at == "-" ? "" : n.finished_at;
    s.status = NodeStatusLabel(n.status);
    auto commands = n.step.find("commands");
    if (commands != n.step.end() && commands->is_array() && !commands->empty()) {
      s.command = commands->front().value("cmdWithArgs", "");
    }
    s.error = n.error;
    s.stdout_path = n.stdout_path;
    report.steps.push_back(std::move(s));
  }
  return report;
}

}  // namespace

void SendRunMails(const Dag& dag, const RunRecord& record,
                  const std::function<std::optional<std::string>(std::string_view)>& lookup, RunLog* log,
                  const std::atomic<bool>* cancelled) {
  const std::string status = RunStatusLabel(record.status);
  const MailConfig* run_mail = MailForStatus(dag, status);
  bool step_mail = false;
  for (size_t i = 0; i < record.nodes.size() && i < dag.steps.size(); ++i) {
    if (dag.steps[i].mail_on_error && record.nodes[i].status == NodeStatus::kFailed) step_mail = true;
  }
  if (run_mail == nullptr && !step_mail) return;
  auto expand = [&](const std::string& s) { return ExpandVars(s, lookup); };
  SmtpConfig smtp{expand(dag.smtp.host), expand(dag.smtp.port), expand(dag.smtp.username),
                  expand(dag.smtp.password)};
  Mailer mailer(smtp);
  RunReport report = ReportOf(record);
  auto send = [&](const MailConfig& config, const char* failure) {
    if (config.to.empty()) return;
    MailMessage m;
    m.from = expand(config.from);
    for (const auto& to : config.to) m.to.push_back(expand(to));
    m.subject = RunReportSubject(config.prefix, report);
    m.body = RunReportHtml(report);
    if (config.attach_logs) m.attachments = RunReportAttachments(report);
    std::string to_list;
    for (const auto& a : m.to) to_list += (to_list.empty() ? "" : " ") + a;
    log->Info("Sending email", {{"name", dag.name}, {"run-id", record.dag_run_id}, {"to", "[" + to_list + "]"},
                                {"subject", m.subject}});
    Status s = mailer.Send(m, cancelled);
    if (!s.ok()) log->Error(failure, {{"name", dag.name}, {"run-id", record.dag_run_id}, {"err", s.message()}});
  };
  if (step_mail) send(dag.error_mail, "Failed to report step");
  if (run_mail != nullptr) send(*run_mail, "Mail notification failed");
}

}  // namespace dagu
