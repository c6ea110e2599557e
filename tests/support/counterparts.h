// Real counterparts for the executor and notification tests, each started
// by the test on a free loopback port and stopped with it (never mocks):
//   TestCa         a CA and a server certificate for 127.0.0.1 (openssl)
//   SmtpServer     Debian's aiosmtpd, recording every message it accepts,
//                  optionally with STARTTLS and AUTH (LOGIN/PLAIN)
//   HttpTestServer Python's http.server answering fixed routes and
//                  recording every request, optionally over TLS
//   SshServer      Debian's OpenSSH sshd with a generated host key and a
//                  generated user key authorised for the current user
// The Python servers run under /usr/bin/python3 (Debian's, which has
// aiosmtpd). Each Start() waits until the port accepts connections.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {

// Runs a shell command line; true when it exits 0 (output to `log`).
bool RunCommand(const std::string& command_line, std::string* output = nullptr);

class TestCa {
 public:
  explicit TestCa(const std::string& dir);
  bool ok() const { return ok_; }
  std::string ca_cert, server_cert, server_key;

 private:
  bool ok_ = false;
};

class SmtpServer {
 public:
  struct Options {
    std::string tls_cert, tls_key;  // STARTTLS when set
    std::string user, password;     // AUTH required when set
    int reply_code = 250;           // the answer to DATA
  };
  struct Message {
    std::string from;
    std::vector<std::string> to;
    std::string data;     // the DATA as received, CRLF line ends as sent
    std::string helo;
    std::string auth;     // the mechanism used, "" when none
    bool tls = false;
  };
  SmtpServer() = default;
  ~SmtpServer() = default;
  bool Start(const std::string& dir, const Options& options);
  bool Start(const std::string& dir) { return Start(dir, Options()); }
  int port() const { return port_; }
  std::vector<Message> Messages() const;
  // Waits until at least n messages arrived.
  bool WaitFor(size_t n, std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) const;

 private:
  Subprocess process_;
  int port_ = 0;
  std::string record_;
};

class HttpTestServer {
 public:
  // Routes: /json (200, JSON body), /text (200, plain), /404, /slow (5 s),
  // /gzip (gzip-encoded JSON), anything else 200 "hello\n". Every response
  // has X-Test: v1 and a fixed Date and Server. And an OpenAI-compatible
  // chat-completions API at /<mode>/v1/chat/completions: it answers
  // "reply <number of messages> to <last message>", as JSON or, when the
  // request asks to stream, as Server-Sent Events (deltas in two parts, a
  // comment line, a usage chunk, then "data: [DONE]"). Modes: err400 and
  // err401 (that status), err503 (503: retried), notjson, nochoices, nodone
  // (a stream without [DONE]), slowchat (answers after 5 s); any other: OK.
  // Anthropic's Messages API at /<mode>/v1/messages (text in two blocks
  // after a thinking block; streamed: message_start, pings, text and
  // thinking deltas, message_delta with usage, message_stop, then a delta
  // that must be ignored) and Gemini's at /<mode>/.../models/<m>:
  // generateContent and :streamGenerateContent?alt=sse (candidates' parts,
  // usageMetadata, a finishReason STOP chunk, then a chunk to ignore) answer
  // the same text; the same modes, plus array (a JSON array) for all three
  // and streamerr (an anthropic error event mid-stream).
  bool Start(const std::string& dir, const std::string& tls_cert = "", const std::string& tls_key = "");
  int port() const { return port_; }
  std::string url(const std::string& path) const;
  // The requests received: {"m": method, "p": path, "h": headers, "b": body}.
  std::vector<nlohmann::json> Requests() const;

 private:
  Subprocess process_;
  int port_ = 0;
  bool tls_ = false;
  std::string record_;
};

class SshServer {
 public:
  bool Start(const std::string& dir);
  int port() const { return port_; }
  const std::string& user_key() const { return user_key_; }        // private key authorised to log in
  const std::string& known_hosts() const { return known_hosts_; }  // the server's key for 127.0.0.1
  const std::string& user() const { return user_; }

 private:
  Subprocess process_;
  int port_ = 0;
  std::string user_key_, known_hosts_, user_;
};

}  // namespace dagu::testing
