// The keys a Dagu config file may contain, in both dialects: the current
// upstream snake_case spelling (canonical here) and the 1.30.2 camelCase one.
// Matching ignores case, "_" and "-" in each dotted segment, so
// "scheduler.lockStaleThreshold", "scheduler.lock_stale_threshold" and
// "Scheduler.LockStaleThreshold" are the same key. Legacy top-level keys
// (dags, dagsDir, dataDir, basicAuthUsername, navbarTitle, ...) have a
// `target`: the canonical key they set, overriding the structured key.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dagu::config_internal {

enum class ValueType {
  kString,
  kPath,       // resolved like Dagu's paths (env, "~", absolute, clean)
  kDuration,   // Go syntax: "30s", "1h30m", "500ms"
  kInt,
  kBool,       // true/false/1/0/t/f, as Go's strconv.ParseBool
  kQueueList,  // queues.config: [{name, max_active_runs | max_concurrency}]
  kStringList, // a list of strings, or one string of comma-separated items
  kLabels,     // a mapping of names to values, or one string "k1=v1,k2=v2"
  kIgnored,    // a Dagu key this program accepts and does not use (any value)
};

struct KeySpec {
  std::string_view name;    // canonical dotted snake_case name
  std::string_view camel;   // the 1.30.2 spelling ("" when identical)
  ValueType type;
  std::string_view target;  // legacy key: the canonical key it sets ("" = itself)
};

// The lowercase form of one segment without "_" and "-".
std::string NormalizeSegment(std::string_view segment);
// NormalizeSegment applied to each dot-separated segment.
std::string NormalizePath(std::string_view dotted);

// The key whose normalised name is `normalized`, or nullptr.
const KeySpec* FindKey(const std::string& normalized);
// Whether `normalized` is a section (a mapping that holds known keys).
bool IsSection(const std::string& normalized);

// For an unknown key as written (dotted), a hint naming the closest known
// key in both spellings ("did you mean ..."), or "" when nothing is close.
std::string SuggestKey(const std::string& written);

// Every key, for docs and tests.
const std::vector<KeySpec>& AllKeys();

// The name a key is reported under: "name" or "name (1.30.2: camel)".
std::string DisplayName(const KeySpec& spec);

}  // namespace dagu::config_internal
