#include "web/web_server.h"

#include <sys/socket.h>

#include <chrono>
#include <exception>

#include <spdlog/spdlog.h>

#include "web/http_json.h"

namespace dagu::web {
namespace {

constexpr size_t kMaxBodyBytes = 1 << 20;

std::unique_ptr<httplib::Server> MakeServer(const WebServerOptions& o) {
  if (o.cert_file.empty()) return std::make_unique<httplib::Server>();
  return std::make_unique<httplib::SSLServer>(o.cert_file.c_str(), o.key_file.c_str());
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string NormalizeBasePath(std::string_view base_path) {
  std::string out(base_path);
  while (!out.empty() && out.back() == '/') out.pop_back();
  if (!out.empty() && out.front() != '/') out.insert(out.begin(), '/');
  return out;
}

WebServer::WebServer(WebServerOptions options)
    : options_(std::move(options)), auth_(options_.auth), server_(MakeServer(options_)) {
  options_.base_path = NormalizeBasePath(options_.base_path);
  server_->set_payload_max_length(kMaxBodyBytes);
  // cpp-httplib's default sets SO_REUSEPORT, which lets a second server bind
  // the same port silently; SO_REUSEADDR alone still allows a quick restart.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server_->set_read_timeout(std::chrono::seconds(10));
  server_->set_write_timeout(std::chrono::seconds(10));
  server_->set_keep_alive_timeout(5);
  server_->set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return PreRoute(req, res); });
  server_->set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("web: {} {} failed: {}", req.method, req.path, what);
    SendError(res, 500, error_code::kInternal, "internal error: " + what);
  });
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // a handler already wrote an error body
    if (res.status == 404) {
      SendError(res, 404, error_code::kNotFound, "no such endpoint: " + req.method + " " + req.path);
    } else if (res.status == 413) {
      SendError(res, 413, error_code::kBadRequest, "request body too large");
    } else if (res.status >= 400) {
      SendError(res, res.status, res.status >= 500 ? error_code::kInternal : error_code::kBadRequest,
                "request failed with HTTP status " + std::to_string(res.status));
    }
  });
}

WebServer::~WebServer() { Stop(); }

void WebServer::Get(const std::string& pattern, Handler handler) {
  server_->Get(options_.base_path + pattern, std::move(handler));
}
void WebServer::Post(const std::string& pattern, Handler handler) {
  server_->Post(options_.base_path + pattern, std::move(handler));
}
void WebServer::Delete(const std::string& pattern, Handler handler) {
  server_->Delete(options_.base_path + pattern, std::move(handler));
}

bool WebServer::IsPublic(const httplib::Request& req) const {
  const std::string& base = options_.base_path;
  if (!StartsWith(req.path, base)) return false;
  std::string_view rest = std::string_view(req.path).substr(base.size());
  if (req.method == "GET" && (rest == "/health" || rest == "/api/v2/health" || rest == "/api/v1/health")) return true;
  if (options_.metrics_public && req.method == "GET" && (rest == "/metrics" || rest == "/api/v2/metrics")) return true;
  return false;
}

httplib::Server::HandlerResponse WebServer::PreRoute(const httplib::Request& req, httplib::Response& res) {
  if (!auth_.enabled() || IsPublic(req) || auth_.Allows(req.get_header_value("Authorization"))) {
    return httplib::Server::HandlerResponse::Unhandled;
  }
  res.set_header("WWW-Authenticate", auth_.Challenge());
  SendError(res, 401, error_code::kUnauthorized, "authentication required");
  return httplib::Server::HandlerResponse::Handled;
}

Status WebServer::Start() {
  if (!server_->is_valid()) {
    return Status::InvalidArgument("cannot load TLS certificate \"" + options_.cert_file + "\" and key \"" +
                                   options_.key_file + "\"");
  }
  std::string where = options_.host + ":" + std::to_string(options_.port);
  if (options_.port == 0) {
    bound_port_ = server_->bind_to_any_port(options_.host);
    if (bound_port_ <= 0) bound_port_ = 0;
  } else if (server_->bind_to_port(options_.host, options_.port)) {
    bound_port_ = options_.port;
  }
  if (bound_port_ == 0) return Status::IOError("cannot listen on " + where);
  listen_returned_ = false;
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  // stop() is a no-op until the accept loop runs, so wait for it: a Stop()
  // right after Start() must not hang.
  while (!server_->is_running() && !listen_returned_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (listen_returned_) {
    thread_.join();
    return Status::IOError("cannot serve on " + where);
  }
  return Status::OK();
}

void WebServer::Stop() {
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

std::string WebServer::Url() const {
  return std::string(tls() ? "https" : "http") + "://" + options_.host + ":" + std::to_string(bound_port_) +
         options_.base_path;
}

}  // namespace dagu::web
