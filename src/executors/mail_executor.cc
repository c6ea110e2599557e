#include "executors/mail_executor.h"

#include "dag/dag.h"
#include "executors/executor_support.h"
#include "notify/mailer.h"

namespace dagu {
namespace {

StepResult SendStepMail(const StepInvocation& inv, const std::atomic<bool>& cancelled) {
  StepResult result;
  result.started = true;
  ExecutorConfig config;
  std::string error;
  if (!config.Parse(inv, &error)) {
    result.exit_code = 1;
    result.error = "failed to decode mail config: " + error;
    return result;
  }
  auto expand = [&](const std::string& s) { return ExpandConfigString(inv, s); };
  MailMessage m;
  m.from = expand(config.String("from"));
  for (const auto& to : config.StringList("to")) {
    std::string address = expand(to);
    if (!address.empty()) m.to.push_back(address);
  }
  m.subject = expand(config.String("subject"));
  m.body = expand(config.String("message"));
  for (const auto& a : config.StringList("attachments")) m.attachments.push_back(expand(a));
  StepOutput output(inv);
  if (m.to.empty()) {
    result.exit_code = 1;
    result.error = "no valid recipients specified";
    output.Finish(&result);
    return result;
  }
  std::string to;
  for (const auto& a : m.to) to += (to.empty() ? "" : ", ") + a;
  output.Out("sending email\n-----\nfrom: " + m.from + "\nto: " + to + "\nsubject: " + m.subject +
             "\nmessage: " + m.body + "\n-----\n");
  SmtpConfig smtp;
  if (inv.dag != nullptr) smtp = inv.dag->smtp;
  smtp.host = expand(smtp.host);
  smtp.port = expand(smtp.port);
  smtp.username = expand(smtp.username);
  smtp.password = expand(smtp.password);
  Status s = Mailer(smtp).Send(m, &cancelled);
  if (s.ok()) {
    output.Out("sending email succeed.");
  } else {
    output.Err("error occurred.");
    result.exit_code = 1;
    result.error = s.message();
  }
  output.Finish(&result);
  return result;
}

}  // namespace

std::unique_ptr<RunningStep> MailRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<CallbackStep>(
      [inv = invocation](const std::atomic<bool>& cancelled) { return SendStepMail(inv, cancelled); });
}


}  // namespace dagu
