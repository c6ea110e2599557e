// EventHub: the clients of GET /api/v2/events (server-sent events, our
// extension: docs/web.md, "Live updates") and what is sent to them.
//
//   auto stream = hub.Subscribe();          // null: hub full or closed (503)
//   res.stream = stream;                    // the server sends it (http_types.h)
//   hub.Publish({"run", "etl", "r1", ""});  // from LiveEventSource's thread
//
// The wire form of an event (one JSON object per event):
//
//   event: run|dag|queue
//   data: {"kind":"run","dag":"etl","runId":"r1"}      ("queue" has "queue")
//
// A new client first gets `retry: 3000` and an `event: hello`, so
// it knows the stream is open before any change happens; Heartbeat() sends
// a comment line (": ping") that keeps proxies from closing an idle stream.
//
// Bounded: at most max_clients streams; each holds at most max_pending
// unsent bytes (a client that does not read is dropped by its stream, see
// http::BodyStream), so Publish never waits for a client. Close() ends
// every stream (server shutdown) and refuses new ones.
//
// Thread-safe. The mutex guards the list of streams only; writes to the
// streams happen outside it.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "http/http_types.h"

namespace dagu::web {

struct LiveEvent {
  std::string kind;    // "run" (a run started, changed or ended), "dag" (a DAG file changed), "queue"
  std::string dag;     // the DAG's name ("run"; "dag": the file name without .yaml)
  std::string run_id;  // "run", and "queue" when the item names it
  std::string queue;   // "queue"
  bool operator<(const LiveEvent& o) const;
  bool operator==(const LiveEvent& o) const;
};

// The SSE text of `event` (ends with the blank line).
std::string FormatLiveEvent(const LiveEvent& event);

struct EventHubOptions {
  size_t max_clients = 64;
  size_t max_pending = 64 * 1024;  // unsent bytes per client
};

class EventHub {
 public:
  explicit EventHub(EventHubOptions options = {});
  ~EventHub();  // Close()
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  // A new client's stream with the opening already written (`hello_data`
  // is the hello event's JSON); null when max_clients streams are open or
  // the hub is closed.
  std::shared_ptr<http::BodyStream> Subscribe(const std::string& hello_data = "{}");
  // Sends `event` to every open stream and forgets the closed ones; the
  // number of streams it reached.
  size_t Publish(const LiveEvent& event);
  // ": ping" to every open stream (finds the clients that left); the number
  // reached.
  size_t Heartbeat();
  // Ends every stream; Subscribe() gives null from now on. Idempotent.
  void Close();
  // Streams open now (closed ones are counted until the next write finds them).
  size_t clients() const;

 private:
  size_t Broadcast(const std::string& text);

  const EventHubOptions options_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<http::BodyStream>> streams_;
  bool closed_ = false;
};

}  // namespace dagu::web
