#include "store/run_status.h"

#include <algorithm>
#include <cctype>

#include "core/time_format.h"

namespace dagu {

const char* RunStatusLabel(RunStatus s) {
  switch (s) {
    case RunStatus::kNotStarted: return "not_started";
    case RunStatus::kRunning: return "running";
    case RunStatus::kFailed: return "failed";
    case RunStatus::kAborted: return "aborted";
    case RunStatus::kSucceeded: return "succeeded";
    case RunStatus::kQueued: return "queued";
    case RunStatus::kPartiallySucceeded: return "partially_succeeded";
    case RunStatus::kWaiting: return "waiting";
    case RunStatus::kRejected: return "rejected";
  }
  return "unknown";
}

const char* NodeStatusLabel(NodeStatus s) {
  switch (s) {
    case NodeStatus::kSkipped: return "skipped";
    case NodeStatus::kRetrying: return "retrying";
    default: return RunStatusLabel(static_cast<RunStatus>(static_cast<int>(s)));
  }
}

std::string RunStatusDisplay(RunStatus s) {
  std::string label = RunStatusLabel(s);
  bool up = true;
  for (char& c : label) {
    if (c == '_') {
      c = ' ';
      up = true;
    } else if (up) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      up = false;
    }
  }
  return label;
}

const char* TriggerTypeName(TriggerType t) {
  switch (t) {
    case TriggerType::kUnknown: return "";
    case TriggerType::kScheduler: return "scheduler";
    case TriggerType::kManual: return "manual";
    case TriggerType::kWebhook: return "webhook";
    case TriggerType::kSubDag: return "subdag";
    case TriggerType::kRetry: return "retry";
    case TriggerType::kCatchUp: return "catchup";
  }
  return "";
}

bool ParseTriggerType(std::string_view text, TriggerType* out) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  t.erase(std::remove_if(t.begin(), t.end(), [](char c) { return c == '-' || c == '_'; }), t.end());
  if (t == "scheduler" || t == "scheduled") *out = TriggerType::kScheduler;
  else if (t == "manual") *out = TriggerType::kManual;
  else if (t == "webhook") *out = TriggerType::kWebhook;
  else if (t == "subdag") *out = TriggerType::kSubDag;
  else if (t == "retry") *out = TriggerType::kRetry;
  else if (t == "catchup") *out = TriggerType::kCatchUp;
  else return false;
  return true;
}

bool IsActive(RunStatus s) {
  return s == RunStatus::kRunning || s == RunStatus::kQueued || s == RunStatus::kWaiting;
}

bool IsSuccess(RunStatus s) { return s == RunStatus::kSucceeded || s == RunStatus::kPartiallySucceeded; }

bool ParseRecordTime(const std::string& text, WallTime* out) {
  bool set = false;
  return ParseRFC3339(text, out, &set).ok() && set;
}

std::string NodeRecord::StepName() const {
  auto it = step.find("name");
  if (it == step.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

NodeRecord* RunRecord::FindNode(const std::string& step_name) {
  for (auto& n : nodes) {
    if (n.StepName() == step_name) return &n;
  }
  for (auto* h : {&on_init, &on_exit, &on_success, &on_failure, &on_cancel, &on_wait}) {
    if (h->has_value() && (*h)->StepName() == step_name) return &**h;
  }
  return nullptr;
}

}  // namespace dagu
