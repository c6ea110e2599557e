// Mailer: sends one mail through the DAG's SMTP server exactly as Dagu
// 1.30.2 does, with libcurl:
//  - the message (ComposeMail): To/From/Subject headers, a multipart/mixed
//    body with the fixed boundary "==simple-boundary-dagu-mailer", the body
//    as base64 text/html (a body that is not an HTML document gets its line
//    breaks turned into <br />), and each attachment that exists and is not
//    empty as a base64 part named by its file name;
//  - the conversation: EHLO localhost; without username and password no TLS
//    and no AUTH; with them STARTTLS when the server offers it (certificate
//    checked against the system trust store, or SSL_CERT_FILE /
//    SSL_CERT_DIR as Go honours them), then AUTH LOGIN, else AUTH PLAIN;
//    a 30-second limit on the whole exchange.
// Errors read as 1.30.2's: "dial tcp HOST:PORT: connect: connection
// refused", or the server's reply ("550 5.1.1 no such user").
//
// Send() blocks; `cancelled` (if given) abandons it at once.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "core/status.h"
#include "dag/dag.h"

namespace dagu {

struct MailMessage {
  std::string from;
  std::vector<std::string> to;
  std::string subject;
  std::string body;                      // HTML, or text whose line breaks become <br />
  std::vector<std::string> attachments;  // file paths
};

// The message as 1.30.2 composes it, with "\n" line ends where 1.30.2 has
// them (the SMTP transfer turns every line end into CRLF).
std::string ComposeMail(const MailMessage& message);

// `text` with bare "\n" turned into "\r\n", as an SMTP DATA transfer sends it.
std::string ToCrlf(const std::string& text);

class Mailer {
 public:
  explicit Mailer(SmtpConfig smtp) : smtp_(std::move(smtp)) {}
  Status Send(const MailMessage& message, const std::atomic<bool>* cancelled = nullptr) const;

 private:
  Status SendOnce(const MailMessage& message, const char* auth, const std::atomic<bool>* cancelled,
                  bool* auth_failed) const;
  SmtpConfig smtp_;
};

}  // namespace dagu
