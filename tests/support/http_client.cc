#include "support/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

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
  HttpReply reply;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return reply;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto remaining_ms = [&] {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<int64_t>(0, left.count()));
  };
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return reply;
  }
  pollfd p{fd, POLLOUT, 0};
  int err = 0;
  socklen_t elen = sizeof err;
  if (::poll(&p, 1, remaining_ms()) <= 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0) {
    ::close(fd);
    return reply;
  }
  std::string req = method + " " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) req += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST" || method == "PUT") {
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    if (headers.count("Content-Type") == 0) req += "Content-Type: application/json\r\n";
  }
  req += "\r\n" + body;
  size_t sent = 0;
  while (sent < req.size()) {
    pollfd w{fd, POLLOUT, 0};
    if (::poll(&w, 1, remaining_ms()) <= 0) break;
    ssize_t n = ::send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buf[8192];
  for (;;) {
    pollfd q{fd, POLLIN, 0};
    if (::poll(&q, 1, remaining_ms()) <= 0) break;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  ParseHttpReply(raw, &reply);
  return reply;
}

}  // namespace dagu::testing
