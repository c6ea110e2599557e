#include "support/http_client.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "support/raw_client.h"

namespace dagu::testing {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

void ParseHttpReply(const std::string& raw, HttpReply* reply) {
  if (raw.rfind("HTTP/", 0) != 0) return;
  size_t head_end = raw.find("\r\n\r\n");
  std::string head = raw.substr(0, head_end);
  reply->status = std::atoi(head.c_str() + head.find(' ') + 1);
  size_t line = head.find("\r\n");
  while (line != std::string::npos) {
    size_t next = head.find("\r\n", line + 2);
    std::string h = head.substr(line + 2, next == std::string::npos ? std::string::npos : next - line - 2);
    size_t colon = h.find(':');
    if (colon != std::string::npos) {
      size_t v = h.find_first_not_of(' ', colon + 1);
      reply->headers[Lower(h.substr(0, colon))] = v == std::string::npos ? "" : h.substr(v);
    }
    line = next;
  }
  if (head_end != std::string::npos) reply->body = raw.substr(head_end + 4);
}

HttpReply HttpRequest(int port, const std::string& method, const std::string& target, const std::string& body,
                      const std::map<std::string, std::string>& headers, std::chrono::milliseconds timeout) {
  std::string req = method + " " + target + " HTTP/1.0\r\n";
  if (headers.count("Host") == 0) req += "Host: 127.0.0.1\r\n";
  req += "Connection: close\r\n";
  for (const auto& [name, value] : headers) {
    if (name == "Content-Type" && value.empty()) continue;  // "": no Content-Type at all
    req += name + ": " + value + "\r\n";
  }
  if (!body.empty() || method == "POST" || method == "PUT") {
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    if (headers.count("Content-Type") == 0) req += "Content-Type: application/json\r\n";
  }
  req += "\r\n" + body;
  HttpReply reply;
  ParseHttpReply(Exchange("127.0.0.1", port, req, timeout), &reply);
  return reply;
}

std::string Exchange(const std::string& address, int port, const std::string& request,
                     std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                      deadline - std::chrono::steady_clock::now()));
  };
  RawClient client;
  if (!client.Connect(port, left(), address)) return "";
  client.Send(request);  // a server that answers before reading it all still answers
  client.WaitClosed(left());
  return client.TakeReceived();
}

}  // namespace dagu::testing
