// DockerClient: the Docker Engine API over libcurl (no docker CLI), for the
// `docker` / `container` executor (docker_executor.h). It speaks to Docker
// and to Podman's Docker-compatible service alike.
//
// Where the daemon is (DockerEndpointFor): DOCKER_HOST as `unix:///path`
// or `tcp://host:port` (`http://` too), else /var/run/docker.sock, as the
// Docker SDK reads it. Connect() asks `/_ping` for the API version the
// daemon speaks and prefixes every later path with `/v<that version>`,
// capped at the newest version this client was written against (1.43).
//
// Each call is one HTTP exchange; errors come back as Status with Docker's
// own words: a daemon answer that is not 2xx reads
// "Error response from daemon: <message>", an unreachable daemon
// "Cannot connect to the Docker daemon at unix:///...: <why>". Streaming
// calls hand each received chunk to a callback; `abort`, when given and set,
// ends the call soon (libcurl's progress callback polls it, at least once a
// second) with Status::Aborted.
//
// A DockerClient is used by one thread at a time; it keeps no connection
// between calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/status_or.h"

namespace dagu {

struct DockerEndpoint {
  std::string unix_socket;  // set for unix:// (curl connects there)
  std::string base_url;     // "http://docker" for a socket, "http://host:port" for tcp
  std::string host;         // as given (for error messages)
};

// The endpoint for `docker_host` (the DOCKER_HOST value; "" = the default
// socket). InvalidArgument for a scheme other than unix, tcp or http.
StatusOr<DockerEndpoint> DockerEndpointFor(const std::string& docker_host);

// Splits Docker's multiplexed stream (Tty false): frames of an 8-byte header
// (stream id: 0 stdin, 1 stdout, 2 stderr; three zero bytes; big-endian
// 32-bit length) and that many bytes. Feed() takes any chunking; the sink
// receives each frame's payload as it arrives (possibly in pieces).
class StreamDemuxer {
 public:
  using Sink = std::function<void(int stream, std::string_view data)>;
  explicit StreamDemuxer(Sink sink) : sink_(std::move(sink)) {}
  void Feed(std::string_view data);

 private:
  Sink sink_;
  unsigned char header_[8] = {};
  size_t header_len_ = 0;
  uint32_t remaining_ = 0;
  int stream_ = 1;
};

struct DockerResponse {
  long code = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // empty when streamed
};

class DockerClient {
 public:
  explicit DockerClient(DockerEndpoint endpoint) : endpoint_(std::move(endpoint)) {}

  // Pings the daemon and negotiates the API version.
  Status Connect(const std::atomic<bool>* abort = nullptr);
  const std::string& api_version() const { return version_; }
  const DockerEndpoint& endpoint() const { return endpoint_; }

  // One exchange. `path` starts with '/' and has no version prefix; `body`
  // is sent as JSON when not empty (or when `force_body`). With `on_data`,
  // the response body goes there instead of into the response. A non-2xx
  // answer is returned as a response, not an error: use Check().
  StatusOr<DockerResponse> Call(const std::string& method, const std::string& path, const std::string& body = "",
                                const std::vector<std::string>& headers = {},
                                const std::function<void(std::string_view)>& on_data = nullptr,
                                const std::atomic<bool>* abort = nullptr, long timeout_sec = 0);

  // OK for 2xx; otherwise "Error response from daemon: <message>", with the
  // code: NotFound for 404, AlreadyExists for 409, IOError otherwise.
  static Status Check(const DockerResponse& response);

  // Typed calls. Each returns the daemon's message on failure.
  StatusOr<nlohmann::json> GetJson(const std::string& path, const std::atomic<bool>* abort = nullptr);
  StatusOr<nlohmann::json> PostJson(const std::string& path, const nlohmann::json& body,
                                    const std::atomic<bool>* abort = nullptr);
  Status Post(const std::string& path, const std::atomic<bool>* abort = nullptr);
  Status Delete(const std::string& path);

  // POST /images/create?fromImage=..., draining the progress stream; an
  // {"error": ...} or {"errorDetail": ...} line in it fails the pull with its
  // message (1.30.2 drops those and fails later at create).
  Status PullImage(const std::string& image, const std::string& platform, const std::string& registry_auth,
                   const std::atomic<bool>* abort);

  // GET /containers/{id}/json; NotFound when there is no such container.
  StatusOr<nlohmann::json> InspectContainer(const std::string& id, const std::atomic<bool>* abort = nullptr);

  // Streams GET /containers/{id}/logs into `demux`: with `follow`, until the
  // container's output ends or `abort` is set; without, what the daemon holds
  // now. The first `skip` bytes of the raw (multiplexed) stream are dropped,
  // so a read that replaces an aborted follow, fed to the same demuxer, goes
  // on exactly where the follow stopped (even inside a frame); `received`
  // (optional) counts the raw bytes seen, skipped ones included.
  Status Logs(const std::string& id, bool follow, size_t skip, StreamDemuxer* demux, const std::atomic<bool>* abort,
              size_t* received = nullptr);

  // POST /containers/{id}/wait?condition=not-running: the exit code.
  StatusOr<int> Wait(const std::string& id, const std::atomic<bool>* abort);

  // Creates an exec, starts it attached and streams its output (demultiplexed)
  // until it ends, then reads its exit code.
  StatusOr<int> Exec(const std::string& id, const nlohmann::json& exec_config, const StreamDemuxer::Sink& sink,
                     const std::atomic<bool>* abort);

  // URL-encodes a query value.
  static std::string Escape(std::string_view value);

 private:
  std::string Url(const std::string& path) const;
  DockerEndpoint endpoint_;
  std::string version_;  // "" until Connect(): unversioned paths
};

// Docker's reference parsing for a pull: "busybox" ->
// {"docker.io/library/busybox", "latest"}; "host:5000/x/y:tag" ->
// {"host:5000/x/y", "tag"}; a digest ("x@sha256:...") is kept in the name
// with an empty tag.
struct ImageRef {
  std::string name;  // repository with its registry host
  std::string tag;
  std::string registry;  // "docker.io" or the host part
};
ImageRef ParseImageRef(const std::string& image);

}  // namespace dagu
