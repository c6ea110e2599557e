#include "support/raw_client.h"

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

using Steady = std::chrono::steady_clock;

int RemainingMs(Steady::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now()).count();
  return static_cast<int>(std::max<long long>(0, left));
}

}  // namespace

bool RawClient::Connect(int port, std::chrono::milliseconds timeout, const std::string& address) {
  Close();
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    Close();
    return false;
  }
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
    Close();
    return false;
  }
  pollfd p{fd_, POLLOUT, 0};
  int err = 0;
  socklen_t len = sizeof err;
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0 || ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0 ||
      err != 0) {
    Close();
    return false;
  }
  return true;
}

void RawClient::SetReceiveBuffer(int bytes) {
  if (fd_ >= 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

bool RawClient::Send(std::string_view bytes) {
  auto deadline = Steady::now() + std::chrono::seconds(5);
  size_t sent = 0;
  while (fd_ >= 0 && sent < bytes.size()) {
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, RemainingMs(deadline)) <= 0) return false;
    ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return fd_ >= 0;
}

bool RawClient::Fill(std::chrono::milliseconds timeout) {
  if (fd_ < 0 || closed_) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return true;
  char buf[16384];
  ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n <= 0) {
    closed_ = true;
    return false;
  }
  buffer_.append(buf, static_cast<size_t>(n));
  return true;
}

HttpReply RawClient::ReadResponse(std::chrono::milliseconds timeout, bool head_request) {
  auto deadline = Steady::now() + timeout;
  HttpReply reply;
  for (;;) {
    size_t head_end = buffer_.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      HttpReply head;
      ParseHttpReply(buffer_.substr(0, head_end + 4), &head);
      size_t length = head.headers.count("content-length") && !head_request
                          ? std::strtoul(head.headers["content-length"].c_str(), nullptr, 10)
                          : 0;
      if (buffer_.size() >= head_end + 4 + length) {
        reply.status = head.status;
        reply.headers = std::move(head.headers);
        reply.body = buffer_.substr(head_end + 4, length);
        buffer_.erase(0, head_end + 4 + length);
        return reply;
      }
    }
    if (closed_) return reply;
    int left = RemainingMs(deadline);
    if (left == 0) return reply;
    Fill(std::chrono::milliseconds(left));  // on EOF: one more parse of what came, then return
  }
}

bool RawClient::WaitClosed(std::chrono::milliseconds timeout) {
  auto deadline = Steady::now() + timeout;
  while (!closed_) {
    int left = RemainingMs(deadline);
    if (left == 0) return false;
    Fill(std::chrono::milliseconds(std::min(left, 50)));
  }
  return true;
}

bool RawClient::ReadUntil(std::string_view needle, std::chrono::milliseconds timeout) {
  auto deadline = Steady::now() + timeout;
  while (buffer_.find(needle) == std::string::npos) {
    int left = RemainingMs(deadline);
    if (left == 0 || closed_) return false;
    Fill(std::chrono::milliseconds(std::min(left, 50)));
  }
  return true;
}

void RawClient::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  closed_ = false;
}

}  // namespace dagu::testing
