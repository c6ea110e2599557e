#include "notify/mailer.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/base64.h"
#include "core/file_system.h"
#include "dynlib/lazy_library.h"

namespace dagu {
namespace {

constexpr const char kBoundary[] = "==simple-boundary-dagu-mailer";
constexpr long kMailTimeoutSeconds = 30;

std::string StripLineBreaks(std::string s) {
  for (const char* bad : {"\r\n", "\r", "\n", "%0a", "%0d"}) {
    size_t n = std::strlen(bad);
    for (size_t p = s.find(bad); p != std::string::npos; p = s.find(bad, p)) s.erase(p, n);
  }
  return s;
}

bool IsHtmlDocument(const std::string& body) {
  size_t b = body.find_first_not_of(" \t\r\n\v\f");
  if (b == std::string::npos) return false;
  std::string head = body.substr(b, 14);
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
  return head == "<!doctype html";
}

std::string NewlinesToBr(const std::string& body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    auto at = [&](const char* s) { return body.compare(i, std::strlen(s), s) == 0; };
    if (at("\\r\\n")) {
      out += "<br />";
      i += 3;
    } else if (at("\\r") || at("\\n")) {
      out += "<br />";
      i += 1;
    } else if (at("\r\n")) {
      out += "<br />";
      i += 1;
    } else if (body[i] == '\r' || body[i] == '\n') {
      out += "<br />";
    } else {
      out.push_back(body[i]);
    }
  }
  return out;
}

struct Upload {
  std::string data;
  size_t pos = 0;
};

size_t ReadUpload(char* buffer, size_t size, size_t count, void* userp) {
  auto* u = static_cast<Upload*>(userp);
  size_t n = std::min(size * count, u->data.size() - u->pos);
  std::memcpy(buffer, u->data.data() + u->pos, n);
  u->pos += n;
  return n;
}

int Progress(void* clientp, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancelled = static_cast<const std::atomic<bool>*>(clientp);
  return cancelled != nullptr && cancelled->load() ? 1 : 0;
}

// The server's last reply line, for errors.
int Debug(CURL*, curl_infotype type, char* data, size_t size, void* userp) {
  if (type != CURLINFO_HEADER_IN) return 0;
  std::string line(data, size);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.size() > 4 && line[3] == '-') line[3] = ' ';  // a continued reply reads as its last line
  *static_cast<std::string*>(userp) = line;
  return 0;
}

std::string DialError(const std::string& host, const std::string& port, long os_errno) {
  std::string why = os_errno == ECONNREFUSED ? "connection refused"
                    : os_errno != 0          ? std::string(std::strerror(static_cast<int>(os_errno)))
                                             : "connection failed";
  if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
  return "dial tcp " + host + ":" + port + ": connect: " + why;
}

}  // namespace

std::string ComposeMail(const MailMessage& m) {
  std::string to;
  for (const auto& address : m.to) to += (to.empty() ? "" : ",") + StripLineBreaks(address);
  std::string body = IsHtmlDocument(m.body) ? m.body : NewlinesToBr(m.body);
  std::string out = "To: " + to + "\r\n" + "From: " + m.from + "\r\n" + "Subject: " + m.subject + "\r\n" +
                    "Content-Type: multipart/mixed;\r\n" + "  boundary=\"" + kBoundary + "\"\r\n\r\n" + "\r\n\r\n" +
                    "--" + kBoundary + "\r\n" + "Content-Type: text/html; charset=\"UTF-8\"\r\n" +
                    "Content-Transfer-Encoding: base64\r\n" + "\r\n" + Base64Encode(body);
  for (const auto& path : m.attachments) {
    std::string data;
    if (!PosixFileSystem()->ReadFile(path, &data).ok() || data.empty()) continue;
    out += std::string("\r\n\n--") + kBoundary + "\r\n";
    out += "Content-Type: text/plain;\r\n";
    out += "Content-Transfer-Encoding: base64\r\n";
    out += "Content-Disposition: attachment; filename=" + BaseName(path) + "\r\n";
    out += "Content-Transfer-Encoding: base64\r\n\n";
    out += Base64Encode(data);
  }
  out += std::string("\r\n\r\n--") + kBoundary + "--\r\n\r\n";
  out += "\r\n\r\n";
  return out;
}

std::string ToCrlf(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 64);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) out.push_back('\r');
    out.push_back(text[i]);
  }
  return out;
}

Status Mailer::Send(const MailMessage& message, const std::atomic<bool>* cancelled) const {
  if (smtp_.username.empty() && smtp_.password.empty()) return SendOnce(message, nullptr, cancelled, nullptr);
  bool auth_failed = false;
  Status login = SendOnce(message, "AUTH=LOGIN", cancelled, &auth_failed);
  if (login.ok() || !auth_failed) return login;
  Status plain = SendOnce(message, "AUTH=PLAIN", cancelled, &auth_failed);
  if (plain.ok() || !auth_failed) return plain;
  return Status::IOError("authentication failed: LOGIN auth failed: " + login.message() +
                         "; PLAIN auth failed: " + plain.message());
}

Status Mailer::SendOnce(const MailMessage& message, const char* auth, const std::atomic<bool>* cancelled,
                        bool* auth_failed) const {
  if (Status loaded = LoadLazyLibrary(LazyLibrary::kCurl); !loaded.ok()) return loaded;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Status::IOError("cannot initialise libcurl");
  Upload upload{ToCrlf(ComposeMail(message)), 0};
  std::string url = "smtp://" + smtp_.host + ":" + smtp_.port + "/localhost";
  curl_slist* rcpt = nullptr;
  for (const auto& to : message.to) rcpt = curl_slist_append(rcpt, ("<" + StripLineBreaks(to) + ">").c_str());
  std::string from = "<" + StripLineBreaks(message.from) + ">";
  std::string last_reply;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadUpload);
  curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
  curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(upload.data.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, kMailTimeoutSeconds);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, Progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, cancelled);
  curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, Debug);
  curl_easy_setopt(curl, CURLOPT_DEBUGDATA, &last_reply);
  curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
  if (auth != nullptr) {
    curl_easy_setopt(curl, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_TRY));
    curl_easy_setopt(curl, CURLOPT_USERNAME, smtp_.username.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, smtp_.password.c_str());
    curl_easy_setopt(curl, CURLOPT_LOGIN_OPTIONS, auth);
    if (const char* file = std::getenv("SSL_CERT_FILE"); file != nullptr && *file != '\0') {
      curl_easy_setopt(curl, CURLOPT_CAINFO, file);
    }
    if (const char* dir = std::getenv("SSL_CERT_DIR"); dir != nullptr && *dir != '\0') {
      curl_easy_setopt(curl, CURLOPT_CAPATH, dir);
    }
  }
  CURLcode rc = curl_easy_perform(curl);
  long os_errno = 0;
  curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  curl_slist_free_all(rcpt);
  curl_easy_cleanup(curl);
  if (rc == CURLE_OK) return Status::OK();
  if (auth_failed != nullptr) *auth_failed = rc == CURLE_LOGIN_DENIED;
  std::string why;
  switch (rc) {
    case CURLE_COULDNT_CONNECT: why = DialError(smtp_.host, smtp_.port, os_errno); break;
    case CURLE_COULDNT_RESOLVE_HOST: why = "dial tcp: lookup " + smtp_.host + ": no such host"; break;
    case CURLE_OPERATION_TIMEDOUT: why = "mail sending timeout after 30s"; break;
    case CURLE_ABORTED_BY_CALLBACK: why = "context canceled"; break;
    default: why = !last_reply.empty() && std::isdigit(static_cast<unsigned char>(last_reply[0]))
                       ? last_reply
                       : curl_easy_strerror(rc);
  }
  if (auth != nullptr && rc == CURLE_COULDNT_CONNECT) why = "failed to connect to SMTP server: " + why;
  return Status::IOError(why);
}

}  // namespace dagu
