// The run report mail, byte for byte against what Dagu 1.30.2 sent (the
// failed run of tests/compat/cases/executors/mail_failure.yaml).
#include "notify/run_report.h"

#include <gtest/gtest.h>

#include "core/base64.h"
#include "notify/mailer.h"
#include "support/counterparts.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

RunReport FailedRun() {
  RunReport r;
  r.dag_name = "mail1";
  r.run_id = "01a23b34-658f-7772-8fde-c05ff8a2c1a0";
  r.status = "failed";
  r.started_at = r.finished_at = "2026-12-03T09:20:19Z";
  r.steps.push_back({"s1", "2026-12-03T09:20:19Z", "2026-12-03T09:20:19Z", "succeeded", "echo hello", "", ""});
  r.steps.push_back({"fail", "2026-12-03T09:20:19Z", "2026-12-03T09:20:19Z", "failed", "sh -c 'echo bad >&2; exit 3'",
                     "failed to execute step \"fail\": exit status 3\nrecent stderr (tail):\nbad\n", ""});
  return r;
}

TEST(RunReportTest, BodyOfAFailedRun) {
  std::string html = RunReportHtml(FailedRun());
  EXPECT_EQ(html.substr(0, 16), "<!DOCTYPE html>\n");
  EXPECT_EQ(html.size(), 7684u);  // the length of the page 1.30.2 sent
  EXPECT_NE(html.find("<div class=\"status-badge failed\">FAILED</div>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"dag-info-value mono\">(none)</div>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"\">succeeded</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"command-cell\">sh -c 'echo bad &gt;&amp;2; exit 3'</td>"
                      "<td class=\"error-cell\">failed to execute step \"fail\": exit status 3\nrecent stderr (tail):\n"
                      "bad\n</td></tr></tbody></table></div></body></html>"),
            std::string::npos);
  EXPECT_EQ(RunReportSubject("[ERR]", FailedRun()), "[ERR] mail1 (failed)");
  EXPECT_EQ(RunReportSubject("", FailedRun()), " mail1 (failed)");
}

TEST(RunReportTest, WhichMailForWhichStatus) {
  Dag dag;
  dag.mail_on = {true, true};
  EXPECT_EQ(MailForStatus(dag, "failed"), &dag.error_mail);
  EXPECT_EQ(MailForStatus(dag, "partially_succeeded"), &dag.error_mail);
  EXPECT_EQ(MailForStatus(dag, "succeeded"), &dag.info_mail);
  EXPECT_EQ(MailForStatus(dag, "aborted"), nullptr);
  dag.mail_on = {false, false};
  EXPECT_EQ(MailForStatus(dag, "failed"), nullptr);
}

TEST(MailerTest, AttachmentsAndTheWireFormat) {
  testing::TempDir dir;
  std::string log = dir.WriteFile("s1.out", "hello\n");
  std::string empty = dir.WriteFile("s2.out", "");
  MailMessage m{"a@x", {"b@x", "c@x"}, "subj", "<!DOCTYPE html><p>x</p>", {log, empty, dir.Sub("missing.out")}};
  EXPECT_EQ(ComposeMail(m),
            "To: b@x,c@x\r\nFrom: a@x\r\nSubject: subj\r\nContent-Type: multipart/mixed;\r\n"
            "  boundary=\"==simple-boundary-dagu-mailer\"\r\n\r\n\r\n\r\n--==simple-boundary-dagu-mailer\r\n"
            "Content-Type: text/html; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
                Base64Encode("<!DOCTYPE html><p>x</p>") +
                "\r\n\n--==simple-boundary-dagu-mailer\r\nContent-Type: text/plain;\r\n"
                "Content-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=s1.out\r\n"
                "Content-Transfer-Encoding: base64\r\n\naGVsbG8K\r\n\r\n--==simple-boundary-dagu-mailer--\r\n\r\n\r\n\r\n");
  testing::SmtpServer smtp;
  ASSERT_TRUE(smtp.Start(dir.path()));
  ASSERT_TRUE(Mailer({"127.0.0.1", std::to_string(smtp.port()), "", ""}).Send(m).ok());
  ASSERT_TRUE(smtp.WaitFor(1));
  EXPECT_EQ(smtp.Messages()[0].data, ToCrlf(ComposeMail(m)));
  EXPECT_EQ(smtp.Messages()[0].auth, "");
  EXPECT_FALSE(smtp.Messages()[0].tls);
}

}  // namespace
}  // namespace dagu
