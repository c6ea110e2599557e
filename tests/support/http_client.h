// HttpRequest: one plain HTTP/1.0 request to 127.0.0.1:<port> with any
// method, body and headers, for process-level tests of the web server (the
// GET-only HttpGet in subprocess.h stays as it is). No TLS. A POST or PUT
// (or any request with a body) says `Content-Type: application/json` unless
// `headers` names a type; naming it "" sends none (as Dagu 1.30.2's UI sends
// a POST without body). The Host is "127.0.0.1" unless `headers` names one.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace dagu::testing {

struct HttpReply {
  int status = 0;                              // 0 when the connection failed
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// Parses a raw answer ("HTTP/1.x <status> ...\r\n<headers>\r\n\r\n<body>")
// into `reply`; the body is everything after the head. status stays 0 when
// `raw` is not an HTTP answer.
void ParseHttpReply(const std::string& raw, HttpReply* reply);

// Sends `request` (raw bytes) to address:port and returns every byte answered
// until the server closed the connection or `timeout` passed ("" when the
// connection failed). The one socket exchange of the test clients.
std::string Exchange(const std::string& address, int port, const std::string& request,
                     std::chrono::milliseconds timeout);

HttpReply HttpRequest(int port, const std::string& method, const std::string& target, const std::string& body = "",
                      const std::map<std::string, std::string>& headers = {},
                      std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

}  // namespace dagu::testing
