// MailRunner: `type: mail` (Dagu 1.30.2). Sends one mail through the DAG's
// smtp settings (src/notify/mailer.h) with config:
//   to        an address or a list of them (required)
//   from      the sender
//   subject   the subject
//   message   the body; text line breaks become <br />
//   attachments  files to attach (those that exist and are not empty)
// Config values and the smtp settings are expanded with the step's
// variables. Writes to stdout, as 1.30.2 does:
//   sending email\n-----\nfrom: F\nto: A, B\nsubject: S\nmessage: M\n-----\n
// then "sending email succeed." -- or "error occurred." to stderr and the
// step fails with the SMTP error. Signal() abandons the transfer at once.
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class MailRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

}  // namespace dagu
