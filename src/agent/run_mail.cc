#include "agent/run_mail.h"

#include "core/strings.h"

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

void Send(const Dag& dag, const RunRecord& record, const MailConfig& config, const char* failure,
          const MailLookup& lookup, RunLog* log, const std::atomic<bool>* cancelled) {
  if (config.to.empty()) return;
  auto expand = [&](const std::string& s) { return ExpandVars(s, lookup); };
  SmtpConfig smtp{expand(dag.smtp.host), expand(dag.smtp.port), expand(dag.smtp.username),
                  expand(dag.smtp.password)};
  RunReport report = ReportOf(record);
  MailMessage m;
  m.from = expand(config.from);
  for (const auto& to : config.to) m.to.push_back(expand(to));
  m.subject = RunReportSubject(config.prefix, report);
  m.body = RunReportHtml(report);
  if (config.attach_logs) m.attachments = RunReportAttachments(report);
  log->Info("Sending email", {{"to", GoStringList(m.to)}, {"subject", m.subject}});
  Status s = Mailer(smtp).Send(m, cancelled);
  if (!s.ok()) log->Error(failure, {{"err", s.message()}});
}

}  // namespace

void SendStepMail(const Dag& dag, const RunRecord& record, const MailLookup& lookup, RunLog* log,
                  const std::atomic<bool>* cancelled) {
  Send(dag, record, dag.error_mail, "Failed to report step", lookup, log, cancelled);
}

void SendRunMail(const Dag& dag, const RunRecord& record, const MailLookup& lookup, RunLog* log,
                 const std::atomic<bool>* cancelled) {
  const MailConfig* mail = MailForStatus(dag, RunStatusLabel(record.status));
  if (mail != nullptr) Send(dag, record, *mail, "Mail notification failed", lookup, log, cancelled);
}

}  // namespace dagu
