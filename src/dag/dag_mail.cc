// Mail settings of a DAG: smtp, mail_on, error_mail, info_mail, wait_mail
// (Dagu 1.30.2's smtp, mailOn, errorMail, infoMail, waitMail). Step mail_on_error is read with the
// other step fields.
#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu::dag_internal {
namespace {

void ParseSmtp(ParseContext& ctx, const Field& f, SmtpConfig* out) {
  Fields fields;
  if (!ctx.Map(f, SmtpKeys(), &fields)) return;
  SmtpConfig smtp;
  if (const Field* x = fields.Get("host")) ctx.String(*x, &smtp.host);
  if (const Field* x = fields.Get("port")) {
    // A string or an integer, as Dagu 1.30.2 takes it (kept as text; it
    // checks nothing more at load time).
    switch (KindOf(x->value)) {
      case ScalarKind::kInt: smtp.port = x->value.Scalar(); break;
      case ScalarKind::kBool: ctx.Error(*x, "port must be string or number, got bool"); return;
      case ScalarKind::kFloat: ctx.Error(*x, "port must be an integer, got " + x->value.Scalar()); return;
      default:
        if (!ctx.String(*x, &smtp.port)) return;
    }
  }
  if (const Field* x = fields.Get("username")) ctx.String(*x, &smtp.username);
  if (const Field* x = fields.Get("password")) ctx.String(*x, &smtp.password);
  smtp.host = Trim(smtp.host);
  smtp.port = Trim(smtp.port);
  *out = smtp;
}

void ParseMailOn(ParseContext& ctx, const Field& f, MailOn* out) {
  Fields fields;
  if (!ctx.Map(f, MailOnKeys(), &fields)) return;
  if (const Field* x = fields.Get("failure")) ctx.Bool(*x, &out->failure);
  if (const Field* x = fields.Get("success")) ctx.Bool(*x, &out->success);
  if (const Field* x = fields.Get("wait")) ctx.Bool(*x, &out->wait);
}

void ParseMail(ParseContext& ctx, const Field& f, MailConfig* out) {
  Fields fields;
  if (!ctx.Map(f, MailKeys(), &fields)) return;
  MailConfig mail;
  if (const Field* x = fields.Get("from")) ctx.String(*x, &mail.from);
  if (const Field* x = fields.Get("to")) {
    std::vector<std::string> to;
    if (ctx.StringList(*x, &to)) {
      for (auto& address : to) {
        address = Trim(address);
        if (!address.empty()) mail.to.push_back(address);
      }
    }
  }
  if (const Field* x = fields.Get("prefix")) ctx.String(*x, &mail.prefix);
  if (const Field* x = fields.Get("attach_logs")) ctx.Bool(*x, &mail.attach_logs);
  mail.from = Trim(mail.from);
  *out = mail;
}

}  // namespace

void ParseMailSettings(ParseContext& ctx, const Fields& fields, Dag* dag) {
  if (const Field* x = fields.Get("smtp")) ParseSmtp(ctx, *x, &dag->smtp);
  if (const Field* x = fields.Get("mail_on")) ParseMailOn(ctx, *x, &dag->mail_on);
  if (const Field* x = fields.Get("error_mail")) ParseMail(ctx, *x, &dag->error_mail);
  if (const Field* x = fields.Get("info_mail")) ParseMail(ctx, *x, &dag->info_mail);
  if (const Field* x = fields.Get("wait_mail")) ParseMail(ctx, *x, &dag->wait_mail);
}

}  // namespace dagu::dag_internal
