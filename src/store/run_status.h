// The run status record: one line of a Dagu 1.30.2 `status.jsonl` (see
// docs/storage.md, "status.jsonl"), as C++ structs. Status and node
// codes are Dagu's integers. Times are kept as the strings Dagu writes
// (RFC3339 in the writer's zone; "" or "-" mean unset) so that records read
// from Dagu are written back unchanged; use ParseRecordTime() to compare them.
//
// Fields Dagu writes that this model does not name (approval data, sub-run
// lists, Dagu v2.15.1's keys) are kept in `extra` and written back as they were, so
// appending to a record Dagu wrote loses nothing.
//
// JSON conversion lives in status_json.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"

namespace dagu {

// Key order is kept (Dagu writes Go struct order); unknown keys round-trip.
using Json = nlohmann::ordered_json;

// Run status codes (internal/core/status.go; the same in Dagu v2.15.1).
enum class RunStatus : int {
  kNotStarted = 0,
  kRunning = 1,
  kFailed = 2,
  kAborted = 3,  // also written by dequeue
  kSucceeded = 4,
  kQueued = 5,
  kPartiallySucceeded = 6,
  kWaiting = 7,
  kRejected = 8,
};

// Node (step) status codes. 9 exists only in Dagu v2.15.1.
enum class NodeStatus : int {
  kNotStarted = 0,
  kRunning = 1,
  kFailed = 2,
  kAborted = 3,
  kSucceeded = 4,
  kSkipped = 5,
  kPartiallySucceeded = 6,
  kWaiting = 7,
  kRejected = 8,
  kRetrying = 9,
};

// How a run came about. Written as Dagu v2.15.1's integer `triggerType` (1.30.2
// ignores the key). kUnknown is not written.
enum class TriggerType : int {
  kUnknown = 0,
  kScheduler = 1,
  kManual = 2,
  kWebhook = 3,
  kSubDag = 4,
  kRetry = 5,
  kCatchUp = 6,
};

// "not_started", "running", "failed", "aborted", "succeeded", "queued",
// "partially_succeeded", "waiting", "rejected" (the API's statusLabel).
const char* RunStatusLabel(RunStatus s);
// As RunStatusLabel, plus "skipped" (5) and "retrying" (9).
const char* NodeStatusLabel(NodeStatus s);
// Human form for CLI output: "Succeeded", "Partially Succeeded", ...
std::string RunStatusDisplay(RunStatus s);

// "scheduler", "manual", "webhook", "subdag", "retry", "catchup" ("" for unknown).
const char* TriggerTypeName(TriggerType t);
// Accepts the names above and the spellings "scheduled", "catch-up",
// "catch_up", "sub-dag" (case-insensitive). False for anything else.
bool ParseTriggerType(std::string_view text, TriggerType* out);

// Running, queued or waiting.
bool IsActive(RunStatus s);
// Succeeded or partially succeeded.
bool IsSuccess(RunStatus s);

// Parses a record time ("" and "-" are unset: returns false). A time that
// does not parse also returns false.
bool ParseRecordTime(const std::string& text, WallTime* out);

struct RunRef {
  std::string name;
  std::string id;
  bool empty() const { return name.empty() && id.empty(); }
  bool operator==(const RunRef& o) const { return name == o.name && id == o.id; }
};

struct NodeRecord {
  Json step = Json::object();  // step snapshot in dag.json's step shape (see dag_snapshot.h)
  std::string stdout_path;     // "stdout": "" before the step starts
  std::string stderr_path;     // "stderr"
  std::string started_at = "-";
  std::string finished_at = "-";
  NodeStatus status = NodeStatus::kNotStarted;
  std::string retried_at;      // "" = not written
  int retry_count = 0;
  int done_count = 0;
  bool repeated = false;
  std::string error;
  // Captured outputs: name -> "NAME=value" (Dagu keeps the KEY= prefix).
  std::map<std::string, std::string> output_variables;
  Json extra = Json::object();  // keys this model does not name, kept as read

  // The step's name from the snapshot ("" when absent).
  std::string StepName() const;
};

struct RunRecord {
  RunRef root;                   // equals {name, dag_run_id} for a root run
  std::optional<RunRef> parent;  // sub-DAG runs only
  std::string name;
  std::string dag_run_id;
  std::string attempt_id;
  RunStatus status = RunStatus::kNotStarted;
  std::string worker_id;         // "local" for local runs; "" = not written
  int pid = 0;                   // 0 = not written
  std::vector<NodeRecord> nodes;
  std::optional<NodeRecord> on_init, on_exit, on_success, on_failure, on_cancel, on_wait;
  int64_t created_at = 0;        // Unix milliseconds
  std::string queued_at;         // "" = not written
  std::string started_at;
  std::string finished_at;
  std::string log;               // absolute path of the run's main log
  std::string error;
  std::string params;            // params joined by spaces
  std::vector<std::string> params_list;
  Json preconditions;            // as read; null = not written
  // Dagu v2.15.1 extras (1.30.2 ignores them): trigger type and the slot time.
  TriggerType trigger_type = TriggerType::kUnknown;
  std::string schedule_time;     // RFC3339; "" = not written
  Json extra = Json::object();

  // All nodes including handlers, for lookups by step name.
  NodeRecord* FindNode(const std::string& step_name);
};

}  // namespace dagu
