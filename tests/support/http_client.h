// HttpRequest: one plain HTTP/1.0 request to 127.0.0.1:<port> with any
// method, body and headers, for process-level tests of the web server (the
// GET-only HttpGet in subprocess.h stays as it is). No TLS.
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

HttpReply HttpRequest(int port, const std::string& method, const std::string& target, const std::string& body = "",
                      const std::map<std::string, std::string>& headers = {},
                      std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

}  // namespace dagu::testing
