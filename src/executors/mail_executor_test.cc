// MailRunner against a local SMTP server (aiosmtpd) the test starts; the
// message bytes are what Dagu 1.30.2 sent to the same server.
#include "executors/mail_executor.h"

#include <gtest/gtest.h>

#include "core/base64.h"
#include "executors/executor_test_util.h"
#include "support/counterparts.h"

namespace dagu {
namespace {

using testing::SmtpServer;
using testing::StepFixture;

TEST(MailRunnerTest, SendsAndLogsAs1302) {
  testing::TempDir dir;
  SmtpServer smtp;
  ASSERT_TRUE(smtp.Start(dir.path()));
  StepFixture f;
  f.dag.smtp.host = "127.0.0.1";
  f.dag.smtp.port = "${SMTP_PORT}";
  f.step.executor_type = "mail";
  f.step.executor_config_json =
      R"({"to":["x@example.com","y@example.com"],"from":"m@example.com","subject":"Hello <subj> ${A}",)"
      R"("message":"Line one ${B}\n<b>bold</b>\n"})";
  StepInvocation inv = f.Inv();
  inv.env.push_back("SMTP_PORT=" + std::to_string(smtp.port()));
  inv.env.push_back("A=1");
  inv.env.push_back("B=two");
  MailRunner runner;
  StepResult r = runner.Start(inv)->Wait();
  ASSERT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(),
            "sending email\n-----\nfrom: m@example.com\nto: x@example.com, y@example.com\nsubject: Hello <subj> 1\n"
            "message: Line one two\n<b>bold</b>\n\n-----\nsending email succeed.");
  ASSERT_TRUE(smtp.WaitFor(1));
  auto m = smtp.Messages().at(0);
  EXPECT_EQ(m.from, "m@example.com");
  EXPECT_EQ(m.to, (std::vector<std::string>{"x@example.com", "y@example.com"}));
  EXPECT_EQ(m.helo, "localhost");
  EXPECT_EQ(m.data,
            "To: x@example.com,y@example.com\r\nFrom: m@example.com\r\nSubject: Hello <subj> 1\r\n"
            "Content-Type: multipart/mixed;\r\n  boundary=\"==simple-boundary-dagu-mailer\"\r\n\r\n\r\n\r\n"
            "--==simple-boundary-dagu-mailer\r\nContent-Type: text/html; charset=\"UTF-8\"\r\n"
            "Content-Transfer-Encoding: base64\r\n\r\nTGluZSBvbmUgdHdvPGJyIC8+PGI+Ym9sZDwvYj48YnIgLz4=\r\n\r\n"
            "--==simple-boundary-dagu-mailer--\r\n\r\n\r\n\r\n");
}

TEST(MailRunnerTest, ServerErrorFailsTheStep) {
  testing::TempDir dir;
  SmtpServer smtp;
  SmtpServer::Options o;
  o.reply_code = 554;
  ASSERT_TRUE(smtp.Start(dir.path(), o));
  StepFixture f;
  f.dag.smtp = {"127.0.0.1", std::to_string(smtp.port()), "", ""};
  f.step.executor_type = "mail";
  f.step.executor_config_json = R"({"to":"x@example.com","from":"m@example.com","subject":"s","message":"m"})";
  StepResult r = MailRunner().Start(f.Inv())->Wait();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error.substr(0, 4), "554 ") << r.error;
  EXPECT_EQ(f.Err(), "error occurred.");
}

TEST(MailRunnerTest, NoRecipientsFails) {
  StepFixture f;
  f.step.executor_type = "mail";
  f.step.executor_config_json = R"({"from":"m@example.com"})";
  StepResult r = MailRunner().Start(f.Inv())->Wait();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "no valid recipients specified");
}

TEST(MailRunnerTest, RefusedConnectionAsGoWordsIt) {
  StepFixture f;
  int port = testing::FreePort();
  f.dag.smtp = {"127.0.0.1", std::to_string(port), "", ""};
  f.step.executor_type = "mail";
  f.step.executor_config_json = R"({"to":"x@example.com","from":"m@example.com"})";
  StepResult r = MailRunner().Start(f.Inv())->Wait();
  EXPECT_EQ(r.error, "dial tcp 127.0.0.1:" + std::to_string(port) + ": connect: connection refused");
}

TEST(MailRunnerTest, StartTlsAndAuthWhenCredentialsAreSet) {
  testing::TempDir dir;
  testing::TestCa ca(dir.path());
  ASSERT_TRUE(ca.ok());
  SmtpServer smtp;
  SmtpServer::Options o;
  o.tls_cert = ca.server_cert;
  o.tls_key = ca.server_key;
  o.user = "alice";
  o.password = "s3cret";
  ASSERT_TRUE(smtp.Start(dir.path(), o));
  ::setenv("SSL_CERT_FILE", ca.ca_cert.c_str(), 1);
  StepFixture f;
  f.dag.smtp = {"127.0.0.1", std::to_string(smtp.port()), "alice", "s3cret"};
  f.step.executor_type = "mail";
  f.step.executor_config_json = R"({"to":"x@example.com","from":"m@example.com","subject":"s","message":"m"})";
  StepResult r = MailRunner().Start(f.Inv())->Wait();
  ::unsetenv("SSL_CERT_FILE");
  ASSERT_EQ(r.exit_code, 0) << r.error;
  ASSERT_TRUE(smtp.WaitFor(1));
  auto m = smtp.Messages().at(0);
  EXPECT_TRUE(m.tls);
  EXPECT_EQ(m.auth, "LOGIN");
}

}  // namespace
}  // namespace dagu
