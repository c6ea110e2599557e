#include "web/event_hub.h"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/json_text.h"

namespace dagu::web {

bool LiveEvent::operator<(const LiveEvent& o) const {
  return std::tie(kind, dag, run_id, queue) < std::tie(o.kind, o.dag, o.run_id, o.queue);
}

bool LiveEvent::operator==(const LiveEvent& o) const {
  return std::tie(kind, dag, run_id, queue) == std::tie(o.kind, o.dag, o.run_id, o.queue);
}

std::string FormatLiveEvent(const LiveEvent& event) {
  nlohmann::ordered_json data = {{"kind", event.kind}};
  if (!event.dag.empty()) data["dag"] = event.dag;
  if (!event.run_id.empty()) data["runId"] = event.run_id;
  if (!event.queue.empty()) data["queue"] = event.queue;
  // JSON text has no raw newline, so one data line holds it.
  return "event: " + event.kind + "\ndata: " + JsonText(data) + "\n\n";
}

EventHub::EventHub(EventHubOptions options) : options_(options) {}

EventHub::~EventHub() { Close(); }

std::shared_ptr<http::BodyStream> EventHub::Subscribe(const std::string& hello_data) {
  auto stream = std::make_shared<http::BodyStream>(options_.max_pending);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return nullptr;
    std::erase_if(streams_, [](const auto& s) { return s->closed(); });
    if (streams_.size() >= options_.max_clients) return nullptr;
    streams_.push_back(stream);
  }
  stream->Write("retry: 3000\nevent: hello\ndata: " + hello_data + "\n\n");
  return stream;
}

size_t EventHub::Broadcast(const std::string& text) {
  std::vector<std::shared_ptr<http::BodyStream>> streams;
  {
    std::lock_guard<std::mutex> l(mu_);
    streams = streams_;
  }
  size_t reached = 0;
  bool dropped = false;
  for (const auto& s : streams) {
    if (s->Write(text)) {
      ++reached;
    } else {
      dropped = true;
    }
  }
  if (dropped) {
    std::lock_guard<std::mutex> l(mu_);
    std::erase_if(streams_, [](const auto& s) { return s->closed(); });
  }
  return reached;
}

size_t EventHub::Publish(const LiveEvent& event) { return Broadcast(FormatLiveEvent(event)); }

size_t EventHub::Heartbeat() { return Broadcast(": ping\n\n"); }

void EventHub::Close() {
  std::vector<std::shared_ptr<http::BodyStream>> streams;
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    streams.swap(streams_);
  }
  for (const auto& s : streams) s->Close();
}

size_t EventHub::clients() const {
  std::lock_guard<std::mutex> l(mu_);
  return streams_.size();
}

}  // namespace dagu::web
