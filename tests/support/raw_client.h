// RawClient: one TCP connection to 127.0.0.1:<port> driven byte by byte, for
// tests of the serving loop: slow or idle clients, partial heads, bodies that
// are never sent, pipelined requests, clients that do not read. No TLS.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include "support/http_client.h"

namespace dagu::testing {

class RawClient {
 public:
  RawClient() = default;
  ~RawClient() { Close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  RawClient(RawClient&& other) noexcept : fd_(other.fd_), buffer_(std::move(other.buffer_)) { other.fd_ = -1; }

  // Connects to address:port (an IPv4 address; non-blocking socket); false
  // when it cannot within `timeout`.
  bool Connect(int port, std::chrono::milliseconds timeout = std::chrono::milliseconds(2000),
               const std::string& address = "127.0.0.1");
  // Sends all of `bytes`; false when the connection failed.
  bool Send(std::string_view bytes);
  // Reads one response (head and Content-Length body) within `timeout`.
  // status 0 when none came. A 100 Continue interim answer is returned as
  // such (status 100); call again for the final one.
  // `head_request`: the answer to a HEAD has no body whatever its length says.
  HttpReply ReadResponse(std::chrono::milliseconds timeout, bool head_request = false);
  // Waits up to `timeout` for the server to close the connection (EOF or
  // reset); bytes received meanwhile are kept for ReadResponse.
  bool WaitClosed(std::chrono::milliseconds timeout);
  // Reads until the bytes received hold `needle` (a streamed body); false
  // when they do not within `timeout` or the connection ended first.
  bool ReadUntil(std::string_view needle, std::chrono::milliseconds timeout);
  // The bytes received and not yet returned by ReadResponse; clears them.
  std::string TakeReceived() { return std::exchange(buffer_, std::string()); }
  void Close();
  bool connected() const { return fd_ >= 0; }
  // Shrinks the receive buffer (for clients that do not read).
  void SetReceiveBuffer(int bytes);

 private:
  // Reads what is available within `timeout`; false on EOF/error.
  bool Fill(std::chrono::milliseconds timeout);

  int fd_ = -1;
  std::string buffer_;
  bool closed_ = false;
};

}  // namespace dagu::testing
