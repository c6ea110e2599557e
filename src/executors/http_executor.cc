#include "executors/http_executor.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "core/strings.h"
#include "dag/dag.h"
#include "dynlib/lazy_library.h"
#include "executors/executor_support.h"
#include "executors/go_json.h"

namespace dagu {
namespace {

constexpr const char kUserAgent[] = "go-resty/2.16.5 (https://github.com/go-resty/resty)";

struct HttpConfig {
  int64_t timeout = 0;
  std::map<std::string, std::string> headers;
  std::map<std::string, std::string> query;
  std::string body;
  bool silent = false;
  bool json = false;
  bool skip_tls_verify = false;
};

bool ReadConfig(const StepInvocation& inv, HttpConfig* c, std::string* error) {
  ExecutorConfig config;
  std::string script = inv.step != nullptr ? inv.step->script : inv.script;
  if (!script.empty()) {
    nlohmann::json j;
    if (!GoJsonParse(script, &j, error)) return false;
    if (!j.is_object()) {
      *error = "json: cannot unmarshal " + std::string(j.type_name()) + " into Go value of type http.httpConfig";
      return false;
    }
    config = ExecutorConfig(j);
  } else if (!config.Parse(inv, error)) {
    return false;
  }
  if (!config.Int("timeout", &c->timeout, error)) return false;
  auto expand = [&](const std::string& s) { return ExpandConfigString(inv, s); };
  for (const auto& [k, v] : config.StringMap("headers")) c->headers[k] = expand(v);
  for (const auto& [k, v] : config.StringMap("query")) c->query[k] = expand(v);
  c->body = expand(config.String("body"));
  c->silent = config.Bool("silent");
  c->json = config.Bool("json") || config.String("format") == "json";
  c->skip_tls_verify = config.Bool("skip_tls_verify") || config.Bool("skipTLSVerify");
  return true;
}

std::string QueryUnescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// The URL with `query` merged into its own query string, as resty does.
std::string WithQuery(const std::string& url, const std::map<std::string, std::string>& query) {
  if (query.empty()) return url;
  size_t hash = url.find('#');
  std::string fragment = hash == std::string::npos ? "" : url.substr(hash);
  std::string base = url.substr(0, hash);
  size_t q = base.find('?');
  std::multimap<std::string, std::string> values;
  if (q != std::string::npos) {
    std::string existing = base.substr(q + 1);
    base.erase(q);
    size_t pos = 0;
    while (pos <= existing.size()) {
      size_t amp = existing.find('&', pos);
      std::string pair = existing.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
      if (!pair.empty()) {
        size_t eq = pair.find('=');
        values.emplace(QueryUnescape(pair.substr(0, eq)),
                       eq == std::string::npos ? "" : QueryUnescape(pair.substr(eq + 1)));
      }
      if (amp == std::string::npos) break;
      pos = amp + 1;
    }
  }
  for (const auto& [k, v] : query) {
    values.erase(k);
    values.emplace(k, v);
  }
  return base + "?" + EncodeQuery(values) + fragment;
}

struct Response {
  std::string status;  // "200 OK"
  long code = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // as received
  std::string body;
  bool gzip = false;
};

size_t OnHeader(char* data, size_t size, size_t count, void* userp) {
  auto* r = static_cast<Response*>(userp);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    r->headers.clear();  // a new response (after a redirect or 100 Continue)
    r->gzip = false;
    size_t sp = line.find(' ');
    r->status = sp == std::string::npos ? "" : line.substr(sp + 1);
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * count;
  std::string key = CanonicalHeaderKey(line.substr(0, colon));
  std::string value = line.substr(colon + 1);
  value.erase(0, value.find_first_not_of(" \t"));
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  if (key == "Content-Encoding" && value == "gzip") r->gzip = true;
  r->headers.emplace_back(key, value);
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* userp) {
  static_cast<Response*>(userp)->body.append(data, size * count);
  return size * count;
}

int OnProgress(void* clientp, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(clientp)->load() ? 1 : 0;
}

// "GET" -> "Get", as Go's url.Error names the operation.
std::string Op(const std::string& method) {
  std::string op;
  for (size_t i = 0; i < method.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(method[i]);
    op.push_back(static_cast<char>(i == 0 ? std::toupper(c) : std::tolower(c)));
  }
  return op;
}

std::string HostPort(const std::string& url) {
  CURLU* u = curl_url();
  std::string out;
  if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char* host = nullptr;
    char* port = nullptr;
    curl_url_get(u, CURLUPART_HOST, &host, 0);
    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    if (host != nullptr) out = host;
    if (port != nullptr) out += std::string(":") + port;
    curl_free(host);
    curl_free(port);
  }
  curl_url_cleanup(u);
  return out;
}

std::string TransportError(CURLcode rc, long os_errno, bool got_headers, const std::string& url) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT: {
      std::string why = os_errno == ECONNREFUSED ? "connection refused" : std::strerror(static_cast<int>(os_errno));
      if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
      return "dial tcp " + HostPort(url) + ": connect: " + why;
    }
    case CURLE_COULDNT_RESOLVE_HOST: {
      std::string host = HostPort(url);
      return "dial tcp: lookup " + host.substr(0, host.rfind(':')) + ": no such host";
    }
    case CURLE_OPERATION_TIMEDOUT:
      return got_headers ? "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
                         : "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
    case CURLE_PEER_FAILED_VERIFICATION:
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case CURLE_ABORTED_BY_CALLBACK: return "context canceled";
    case CURLE_UNSUPPORTED_PROTOCOL: {
      size_t colon = url.find(':');
      return "unsupported protocol scheme \"" + (colon == std::string::npos ? "" : url.substr(0, colon)) + "\"";
    }
    default: return curl_easy_strerror(rc);
  }
}

StepResult RunRequest(const StepInvocation& inv, const std::atomic<bool>& cancelled) {
  StepResult result;
  result.started = true;
  auto fail = [&](const std::string& error) {
    result.exit_code = 1;
    result.error = error;
    return result;
  };
  HttpConfig cfg;
  std::string error;
  if (!ReadConfig(inv, &cfg, &error)) return fail(error);
  std::string line = inv.commands.empty() ? "" : ExpandConfigString(inv, inv.commands.front());
  line.erase(0, line.find_first_not_of(" \t"));
  size_t sp = line.find(' ');
  std::string method = line.substr(0, sp);
  std::string url = sp == std::string::npos ? "" : line.substr(sp + 1);
  url.erase(0, url.find_first_not_of(" \t"));
  while (!url.empty() && (url.back() == ' ' || url.back() == '\t')) url.pop_back();
  std::transform(method.begin(), method.end(), method.begin(), [](unsigned char c) { return std::toupper(c); });
  url = WithQuery(url, cfg.query);

  if (Status loaded = LoadLazyLibrary(LazyLibrary::kCurl); !loaded.ok()) return fail(loaded.message());
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return fail("cannot initialise libcurl");
  Response rsp;
  curl_slist* headers = nullptr;
  bool has_accept = false, has_type = false, has_agent = false;
  std::string content_type;
  for (const auto& [k, v] : cfg.headers) {
    std::string key = CanonicalHeaderKey(k);
    has_accept |= key == "Accept";
    has_agent |= key == "User-Agent";
    if (key == "Content-Type") {
      has_type = true;
      content_type = v;
    }
    headers = curl_slist_append(headers, (key + ": " + v).c_str());
  }
  if (!has_agent) headers = curl_slist_append(headers, (std::string("User-Agent: ") + kUserAgent).c_str());
  if (!has_accept) {
    // resty asks for JSON when it sends JSON; curl's "Accept: */*" is not sent.
    bool json = content_type.find("json") != std::string::npos;
    headers = curl_slist_append(headers, json ? ("Accept: " + content_type).c_str() : "Accept:");
  }
  if (!has_type && !cfg.body.empty()) headers = curl_slist_append(headers, "Content-Type: text/plain; charset=utf-8");
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (!cfg.body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, cfg.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(cfg.body.size()));
  } else if (method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "gzip");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &rsp);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &rsp);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &cancelled);
  if (cfg.timeout > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT, static_cast<long>(cfg.timeout));
  if (cfg.skip_tls_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  std::optional<std::string> ca_file = EnvValue(inv.env, "SSL_CERT_FILE");
  std::optional<std::string> ca_dir = EnvValue(inv.env, "SSL_CERT_DIR");
  if (ca_file && !ca_file->empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file->c_str());
  if (ca_dir && !ca_dir->empty()) curl_easy_setopt(curl, CURLOPT_CAPATH, ca_dir->c_str());
  CURLcode rc = curl_easy_perform(curl);
  long os_errno = 0;
  curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &rsp.code);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    if (rc == CURLE_ABORTED_BY_CALLBACK && cancelled) {
      result.exit_code = -1;
      return result;
    }
    result.deadline_exceeded = rc == CURLE_OPERATION_TIMEDOUT;
    return fail(Op(method) + " \"" + url + "\": " + TransportError(rc, os_errno, !rsp.status.empty(), url));
  }
  if (rsp.gzip) {
    // Go's transport decodes gzip itself and drops these.
    rsp.headers.erase(std::remove_if(rsp.headers.begin(), rsp.headers.end(),
                                     [](const auto& h) {
                                       return h.first == "Content-Encoding" || h.first == "Content-Length";
                                     }),
                      rsp.headers.end());
  }
  std::map<std::string, std::vector<std::string>> sorted;
  for (const auto& [k, v] : rsp.headers) sorted[k].push_back(v);
  bool success = rsp.code >= 200 && rsp.code <= 299;
  bool full = !success || !cfg.silent;
  StepOutput output(inv);
  if (cfg.json) {
    nlohmann::json body;
    if (!GoJsonParse(rsp.body, &body, &error)) {
      output.Finish(&result);
      return fail(error);
    }
    // Go's struct order: status_code, headers, body.
    std::string text = "{\n \"status_code\": " + std::to_string(full ? rsp.code : 0) + ",\n \"headers\": ";
    if (full) {
      nlohmann::json h = nlohmann::json::object();
      for (const auto& [k, values] : sorted) h[k] = values;
      std::string hs = GoJsonMarshal(h, " ");
      for (size_t p = hs.find('\n'); p != std::string::npos; p = hs.find('\n', p + 1)) hs.insert(p + 1, " ");
      text += hs;
    } else {
      text += "null";
    }
    std::string bs = GoJsonMarshal(body, " ");
    for (size_t p = bs.find('\n'); p != std::string::npos; p = bs.find('\n', p + 1)) bs.insert(p + 1, " ");
    text += ",\n \"body\": " + bs + "\n}";
    output.Out(text);
  } else {
    if (full) {
      std::string head = rsp.status + "\n";
      for (const auto& [k, values] : sorted) {
        for (std::string v : values) {
          std::replace(v.begin(), v.end(), '\n', ' ');
          head += k + ": " + v + "\r\n";
        }
      }
      output.Out(head);
    }
    output.Out(rsp.body);
  }
  output.Finish(&result);
  if (!success) return fail("http status code not 2xx: " + std::to_string(rsp.code));
  return result;
}

}  // namespace

std::string GoTransportError(int rc, long os_errno, bool got_headers, const std::string& url) {
  return TransportError(static_cast<CURLcode>(rc), os_errno, got_headers, url);
}

std::string CanonicalHeaderKey(const std::string& key) {
  for (unsigned char c : key) {
    bool token = std::isalnum(c) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
    if (!token) return key;
  }
  std::string out = key;
  bool upper = true;
  for (auto& ch : out) {
    unsigned char c = static_cast<unsigned char>(ch);
    ch = static_cast<char>(upper ? std::toupper(c) : std::tolower(c));
    upper = ch == '-';
  }
  return out;
}

std::string EncodeQuery(const std::multimap<std::string, std::string>& values) {
  std::string out;
  for (const auto& [k, v] : values) {
    if (!out.empty()) out += "&";
    out += QueryEscape(k) + "=" + QueryEscape(v);
  }
  return out;
}

std::unique_ptr<RunningStep> HttpRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<CallbackStep>(
      [inv = invocation](const std::atomic<bool>& cancelled) { return RunRequest(inv, cancelled); });
}

}  // namespace dagu
