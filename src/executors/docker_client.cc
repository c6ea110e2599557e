#include "executors/docker_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/json_text.h"
#include "core/strings.h"
#include "dynlib/lazy_library.h"

namespace dagu {
namespace {

constexpr const char* kDefaultSocket = "/var/run/docker.sock";
// The newest Engine API version these calls were written against.
constexpr int kMaxMajor = 1;
constexpr int kMaxMinor = 43;

struct Exchange {
  DockerResponse* response;
  const std::function<void(std::string_view)>* on_data;
  const std::atomic<bool>* abort;
};

size_t OnHeader(char* data, size_t size, size_t count, void* userp) {
  auto* x = static_cast<Exchange*>(userp);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    x->response->headers.clear();
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string key = AsciiLower(line.substr(0, colon));
    std::string value = std::string(TrimSpace(line.substr(colon + 1)));
    x->response->headers[key] = value;
  }
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* userp) {
  auto* x = static_cast<Exchange*>(userp);
  if (x->on_data != nullptr && *x->on_data) {
    (*x->on_data)(std::string_view(data, size * count));
  } else {
    x->response->body.append(data, size * count);
  }
  return size * count;
}

int OnProgress(void* clientp, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* x = static_cast<Exchange*>(clientp);
  return x->abort != nullptr && x->abort->load() ? 1 : 0;
}

// The message of a daemon's error body: {"message": "..."} (Docker and
// Podman), else the body as text.
std::string DaemonMessage(const DockerResponse& r) {
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  std::string text(TrimSpace(r.body));
  if (text.empty()) text = "HTTP status " + std::to_string(r.code);
  return text;
}

bool ParseVersion(const std::string& v, int* major, int* minor) {
  size_t dot = v.find('.');
  if (dot == std::string::npos) return false;
  try {
    *major = std::stoi(v.substr(0, dot));
    *minor = std::stoi(v.substr(dot + 1));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace

StatusOr<DockerEndpoint> DockerEndpointFor(const std::string& docker_host) {
  DockerEndpoint ep;
  std::string host = docker_host.empty() ? std::string("unix://") + kDefaultSocket : docker_host;
  ep.host = host;
  if (host.rfind("unix://", 0) == 0) {
    ep.unix_socket = host.substr(7);
    if (ep.unix_socket.empty()) return Status::InvalidArgument("DOCKER_HOST " + host + ": no socket path");
    ep.base_url = "http://docker";
    return ep;
  }
  for (const char* scheme : {"tcp://", "http://"}) {
    if (host.rfind(scheme, 0) == 0) {
      std::string rest = host.substr(std::strlen(scheme));
      while (!rest.empty() && rest.back() == '/') rest.pop_back();
      if (rest.empty()) return Status::InvalidArgument("DOCKER_HOST " + host + ": no host");
      ep.base_url = "http://" + rest;
      return ep;
    }
  }
  return Status::InvalidArgument("unable to parse docker host `" + host +
                                 "`: the scheme must be unix://, tcp:// or http://");
}

void StreamDemuxer::Feed(std::string_view data) {
  while (!data.empty()) {
    if (remaining_ == 0) {
      size_t take = std::min(data.size(), sizeof(header_) - header_len_);
      std::memcpy(header_ + header_len_, data.data(), take);
      header_len_ += take;
      data.remove_prefix(take);
      if (header_len_ < sizeof(header_)) return;
      header_len_ = 0;
      stream_ = header_[0];
      remaining_ = (uint32_t{header_[4]} << 24) | (uint32_t{header_[5]} << 16) | (uint32_t{header_[6]} << 8) |
                   uint32_t{header_[7]};
      continue;
    }
    size_t take = std::min<size_t>(data.size(), remaining_);
    if (sink_) sink_(stream_, data.substr(0, take));
    remaining_ -= static_cast<uint32_t>(take);
    data.remove_prefix(take);
  }
}

std::string DockerClient::Escape(std::string_view value) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string DockerClient::Url(const std::string& path) const {
  return endpoint_.base_url + (version_.empty() ? "" : "/v" + version_) + path;
}

StatusOr<DockerResponse> DockerClient::Call(const std::string& method, const std::string& path,
                                            const std::string& body, const std::vector<std::string>& headers,
                                            const std::function<void(std::string_view)>& on_data,
                                            const std::atomic<bool>* abort, long timeout_sec) {
  if (Status loaded = LoadLazyLibrary(LazyLibrary::kCurl); !loaded.ok()) return loaded;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Status::IOError("cannot initialise libcurl");
  DockerResponse response;
  Exchange x{&response, &on_data, abort};
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  list = curl_slist_append(list, "Expect:");
  list = curl_slist_append(list, "User-Agent: dagu");
  std::string url = Url(path);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (!endpoint_.unix_socket.empty()) curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, endpoint_.unix_socket.c_str());
  if (method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  if (!body.empty() || method == "POST") {
    list = curl_slist_append(list, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &x);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &x);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &x);
  if (timeout_sec > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout_sec);
  CURLcode rc = curl_easy_perform(curl);
  long os_errno = 0;
  curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.code);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  if (rc == CURLE_ABORTED_BY_CALLBACK) return Status::Aborted("context canceled");
  if (rc == CURLE_COULDNT_CONNECT || (rc != CURLE_OK && response.code == 0)) {
    std::string why = os_errno != 0 ? std::strerror(static_cast<int>(os_errno)) : curl_easy_strerror(rc);
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return Status::IOError("Cannot connect to the Docker daemon at " + endpoint_.host +
                           ". Is the docker daemon running? (" + why + ")");
  }
  if (rc != CURLE_OK) return Status::IOError(std::string("docker API ") + method + " " + path + ": " +
                                             curl_easy_strerror(rc));
  return response;
}

Status DockerClient::Check(const DockerResponse& response) {
  if (response.code >= 200 && response.code <= 299) return Status::OK();
  std::string message = "Error response from daemon: " + DaemonMessage(response);
  if (response.code == 404) return Status::NotFound(message);
  if (response.code == 409) return Status::AlreadyExists(message);
  return Status::IOError(message);
}

Status DockerClient::Connect(const std::atomic<bool>* abort) {
  version_.clear();
  StatusOr<DockerResponse> ping = Call("GET", "/_ping", "", {}, nullptr, abort, 30);
  if (!ping.ok()) return ping.status();
  if (Status s = Check(*ping); !s.ok()) return s;
  std::string server = ping->headers.count("api-version") != 0 ? ping->headers["api-version"] : "";
  if (server.empty()) {
    StatusOr<nlohmann::json> v = GetJson("/version", abort);
    if (v.ok() && v->contains("ApiVersion") && (*v)["ApiVersion"].is_string()) server = (*v)["ApiVersion"];
  }
  int major = 0, minor = 0;
  if (!ParseVersion(server, &major, &minor)) {
    version_.clear();  // unversioned paths: the daemon's own version
    return Status::OK();
  }
  if (major > kMaxMajor || (major == kMaxMajor && minor > kMaxMinor)) {
    major = kMaxMajor;
    minor = kMaxMinor;
  }
  version_ = std::to_string(major) + "." + std::to_string(minor);
  return Status::OK();
}

StatusOr<nlohmann::json> DockerClient::GetJson(const std::string& path, const std::atomic<bool>* abort) {
  StatusOr<DockerResponse> r = Call("GET", path, "", {}, nullptr, abort, 60);
  if (!r.ok()) return r.status();
  if (Status s = Check(*r); !s.ok()) return s;
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded()) return Status::Corruption("docker API GET " + path + ": the answer is not JSON");
  return j;
}

StatusOr<nlohmann::json> DockerClient::PostJson(const std::string& path, const nlohmann::json& body,
                                                const std::atomic<bool>* abort) {
  StatusOr<DockerResponse> r = Call("POST", path, JsonText(body), {}, nullptr, abort, 120);
  if (!r.ok()) return r.status();
  if (Status s = Check(*r); !s.ok()) return s;
  if (TrimSpace(r->body).empty()) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded()) return Status::Corruption("docker API POST " + path + ": the answer is not JSON");
  return j;
}

Status DockerClient::Post(const std::string& path, const std::atomic<bool>* abort) {
  StatusOr<DockerResponse> r = Call("POST", path, "", {}, nullptr, abort, 120);
  if (!r.ok()) return r.status();
  return Check(*r);
}

Status DockerClient::Delete(const std::string& path) {
  StatusOr<DockerResponse> r = Call("DELETE", path, "", {}, nullptr, nullptr, 120);
  if (!r.ok()) return r.status();
  return Check(*r);
}

Status DockerClient::PullImage(const std::string& image, const std::string& platform,
                               const std::string& registry_auth, const std::atomic<bool>* abort) {
  ImageRef ref = ParseImageRef(image);
  std::string path = "/images/create?fromImage=" + Escape(ref.name);
  if (!ref.tag.empty()) path += "&tag=" + Escape(ref.tag);
  if (!platform.empty()) path += "&platform=" + Escape(platform);
  std::vector<std::string> headers;
  if (!registry_auth.empty()) headers.push_back("X-Registry-Auth: " + registry_auth);
  std::string pending, error;
  auto on_data = [&](std::string_view chunk) {
    pending.append(chunk);
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      nlohmann::json j = nlohmann::json::parse(pending.substr(0, nl), nullptr, false);
      pending.erase(0, nl + 1);
      if (!j.is_object() || !error.empty()) continue;
      if (j.contains("errorDetail") && j["errorDetail"].is_object() && j["errorDetail"].contains("message")) {
        error = j["errorDetail"]["message"].is_string() ? j["errorDetail"]["message"].get<std::string>() : "";
      }
      if (error.empty() && j.contains("error") && j["error"].is_string()) error = j["error"].get<std::string>();
    }
  };
  StatusOr<DockerResponse> r = Call("POST", path, "", headers, on_data, abort, 0);
  if (!r.ok()) return r.status();
  if (r->code < 200 || r->code > 299) {
    DockerResponse with_body = *r;
    with_body.body = pending;
    return Check(with_body);
  }
  if (error.empty() && !TrimSpace(pending).empty()) on_data("\n");
  if (!error.empty()) return Status::IOError("failed to pull image " + image + ": " + error);
  return Status::OK();
}

StatusOr<nlohmann::json> DockerClient::InspectContainer(const std::string& id, const std::atomic<bool>* abort) {
  return GetJson("/containers/" + Escape(id) + "/json", abort);
}

Status DockerClient::Logs(const std::string& id, bool follow, size_t skip, StreamDemuxer* demux,
                          const std::atomic<bool>* abort, size_t* received) {
  size_t seen = 0;
  auto on_data = [&](std::string_view chunk) {
    if (seen < skip) {
      size_t drop = std::min(skip - seen, chunk.size());
      chunk.remove_prefix(drop);
      seen += drop;
    }
    seen += chunk.size();
    if (received != nullptr) *received = seen;
    if (!chunk.empty()) demux->Feed(chunk);
  };
  StatusOr<DockerResponse> r =
      Call("GET", "/containers/" + Escape(id) + "/logs?" + (follow ? "follow=1&" : "") + "stdout=1&stderr=1", "",
           {}, on_data, abort, 0);
  if (!r.ok()) return r.status();
  if (r->code < 200 || r->code > 299) return Status::IOError("Error response from daemon: HTTP status " +
                                                             std::to_string(r->code));
  return Status::OK();
}

StatusOr<int> DockerClient::Wait(const std::string& id, const std::atomic<bool>* abort) {
  StatusOr<DockerResponse> r =
      Call("POST", "/containers/" + Escape(id) + "/wait?condition=not-running", "", {}, nullptr, abort, 0);
  if (!r.ok()) return r.status();
  if (Status s = Check(*r); !s.ok()) return s;
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (!j.is_object() || !j.contains("StatusCode") || !j["StatusCode"].is_number()) {
    return Status::Corruption("docker API wait: unexpected answer " + r->body);
  }
  if (j.contains("Error") && j["Error"].is_object() && j["Error"].contains("Message") &&
      j["Error"]["Message"].is_string() && !j["Error"]["Message"].get<std::string>().empty()) {
    return Status::IOError(j["Error"]["Message"].get<std::string>());
  }
  return j["StatusCode"].get<int>();
}

StatusOr<int> DockerClient::Exec(const std::string& id, const nlohmann::json& exec_config,
                                 const StreamDemuxer::Sink& sink, const std::atomic<bool>* abort) {
  StatusOr<nlohmann::json> created = PostJson("/containers/" + Escape(id) + "/exec", exec_config, abort);
  if (!created.ok()) return created.status().WithContext("failed to create exec");
  if (!created->contains("Id") || !(*created)["Id"].is_string()) {
    return Status::Corruption("failed to create exec: no Id in the answer");
  }
  const std::string exec_id = (*created)["Id"];
  StreamDemuxer demux(sink);
  auto on_data = [&](std::string_view chunk) { demux.Feed(chunk); };
  nlohmann::json start = {{"Detach", false}, {"Tty", exec_config.value("Tty", false)}};
  StatusOr<DockerResponse> r =
      Call("POST", "/exec/" + exec_id + "/start", JsonText(start), {}, on_data, abort, 0);
  if (!r.ok()) return r.status();
  if (r->code < 200 || r->code > 299) {
    return Status::IOError("failed to start exec: Error response from daemon: HTTP status " +
                           std::to_string(r->code));
  }
  // The stream ends with the process; its exit code may show a moment later.
  for (int i = 0; i < 600; ++i) {
    StatusOr<nlohmann::json> info = GetJson("/exec/" + exec_id + "/json", abort);
    if (!info.ok()) return info.status().WithContext("failed to inspect exec");
    if (!info->value("Running", false) && (*info)["ExitCode"].is_number()) return (*info)["ExitCode"].get<int>();
    if (abort != nullptr && abort->load()) return Status::Aborted("context canceled");
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  return Status::TimedOut("exec " + exec_id + " still running after its output ended");
}

ImageRef ParseImageRef(const std::string& image) {
  ImageRef ref;
  std::string name = image;
  size_t at = name.find('@');
  if (at == std::string::npos) {
    size_t slash = name.rfind('/');
    size_t colon = name.rfind(':');
    if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
      ref.tag = name.substr(colon + 1);
      name = name.substr(0, colon);
    } else {
      ref.tag = "latest";
    }
  }
  size_t slash = name.find('/');
  std::string first = slash == std::string::npos ? "" : name.substr(0, slash);
  bool has_host = !first.empty() && (first.find('.') != std::string::npos || first.find(':') != std::string::npos ||
                                     first == "localhost");
  if (has_host) {
    ref.registry = first;
    ref.name = name;
  } else {
    ref.registry = "docker.io";
    ref.name = "docker.io/" + std::string(slash == std::string::npos ? "library/" : "") + name;
  }
  return ref;
}

}  // namespace dagu
