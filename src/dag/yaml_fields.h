// Internal to src/dag: reading YAML nodes strictly and reporting problems as
// DagErrors with positions. A KeyTable lists the keys one mapping accepts (by
// canonical snake_case name plus aliases); keys match whatever their dialect
// after folding (lower case, underscores dropped), so timeout_sec, timeoutSec
// and TIMEOUTSEC are one key. ParseContext turns a mapping into Fields
// (reporting unknown keys with hints, duplicates, and keys that are known but
// ignored or unsupported) and reads typed values, each reader reporting its
// own error and returning false.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dag/dag_error.h"

namespace dagu::dag_internal {

enum class KeySupport {
  kSupported,    // parsed into the model
  kIgnored,      // accepted with a warning: has no effect here
  kUnsupported,  // an error: a Dagu feature this implementation does not run
};

struct KeySpec {
  const char* name;                   // canonical snake_case spelling
  std::vector<const char*> aliases;   // other names (camelCase needs none: folding covers it)
  KeySupport support = KeySupport::kSupported;
  const char* note = "";              // why ignored/unsupported, or what to use instead
  // A key Dagu 1.30.2 does not have (only the upstream dialect does): a file
  // read as 1.30.2 that uses it gets the error 1.30.2 gives (unknown key).
  bool upstream_only = false;
  // Aliases only the upstream dialect has (as upstream_only, for them).
  std::vector<const char*> upstream_aliases = {};
};

// What the dialect of a file is decided from (docs/dag-format.md, "Which
// dialect a file is read in"): the upstream-only forms it shows, and how it
// spells multi-word keys.
struct DialectEvidence {
  std::string upstream_form;  // the first upstream-only form, e.g. `snake_case key "working_dir" (line 3)`
  struct Spelling {
    std::string snake;  // first snake_case spelling with its line, "" if none
    std::string camel;  // first other spelling with its line, "" if none
  };
  std::map<std::string, Spelling> multi_word;  // canonical key -> spellings seen
  // Upstream-only keys used in the file (errors when it is read as 1.30.2).
  struct Use {
    YAML::Node key;
    std::string path;
    std::string spelled;
  };
  std::vector<Use> upstream_keys;
  void NoteUpstream(const std::string& what) {
    if (upstream_form.empty()) upstream_form = what;
  }
};

struct KeyTable {
  const char* what;                   // "DAG", "step", "retry_policy": used in messages
  std::vector<KeySpec> keys;
  // Keys that are no field here but deserve a pointer: {folded key, hint}.
  std::vector<std::pair<const char*, const char*>> hints;
  // Dagu 1.30.2 matches this mapping's keys exactly (it parses them by hand):
  // a spelling without '_' must be the camelCase one ("exitCode", not
  // "exitcode"). snake_case spellings are the upstream dialect's.
  bool exact_camel = false;
};

// "exit_code" -> "exitCode".
std::string CamelCase(std::string_view snake);

// "timeoutSec", "timeout_sec", "TIMEOUT_SEC" -> "timeoutsec".
std::string FoldKey(std::string_view key);

// Levenshtein distance.
size_t EditDistance(std::string_view a, std::string_view b);

// The closest of `candidates` to `word` when close enough to be a likely
// misspelling (distance <= max(1, min(3, |word| / 3))), else "".
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

enum class ScalarKind { kNull, kBool, kInt, kFloat, kString, kCollection };

// The YAML 1.2 core-schema type of a scalar: quoted and block scalars are
// strings; plain ones are null/bool/int/float when they look like one.
// Undefined nodes are kNull; lists and mappings are kCollection.
ScalarKind KindOf(const YAML::Node& node);

// One key of a mapping, matched against a KeyTable.
// Copy Fields, never assign one over another: YAML::Node's assignment writes
// into the document it refers to.
struct Field {
  std::string name;     // canonical name (or the item index for list items)
  std::string spelled;  // as written in the file
  std::string path;     // key path for messages: "steps[build].retry_policy.limit"
  YAML::Node key;       // may be undefined for list items
  YAML::Node value;
};

struct Fields {
  std::vector<Field> all;      // supported keys, in file order
  std::vector<Field> ignored;  // keys accepted with an "ignored" warning
  const Field* Get(std::string_view canonical) const;
  const Field* GetIgnored(std::string_view canonical) const;
};

class ParseContext {
 public:
  // Appends problems to *out, naming `file`.
  ParseContext(std::string file, std::vector<DagError>* out, bool metadata_only);

  const std::string& file() const { return file_; }
  // What the keys read so far say about the file's dialect.
  DialectEvidence& evidence() { return evidence_; }
  // The file ends its lines with CRLF: multi-line values keep the CR of their
  // inner lines, as Dagu 1.30.2's YAML reader does (yaml-cpp drops it).
  void set_crlf(bool crlf) { crlf_ = crlf; }
  bool crlf() const { return crlf_; }
  // The DAG has an ssh: key: steps without a type run over it.
  void set_dag_ssh(bool on) { dag_ssh_ = on; }
  bool dag_ssh() const { return dag_ssh_; }
  // The DAG has a container: key: steps without a type run in it.
  void set_dag_container(bool on) { dag_container_ = on; }
  bool dag_container() const { return dag_container_; }

  // Inside a StepScope, errors of a metadata-only load become warnings.
  class StepScope {
   public:
    explicit StepScope(ParseContext* ctx) : ctx_(ctx) { ++ctx_->step_depth_; }
    ~StepScope() { --ctx_->step_depth_; }
    StepScope(const StepScope&) = delete;
    StepScope& operator=(const StepScope&) = delete;

   private:
    ParseContext* ctx_;
  };

  void Error(const Field& at, std::string message);
  void Warning(const Field& at, std::string message);
  // At a node (its position; 1:1 when it has none) with an explicit key path.
  void ErrorAt(const YAML::Node& node, const std::string& path, std::string message, std::string value = "");
  void WarningAt(const YAML::Node& node, const std::string& path, std::string message, std::string value = "");
  void Report(DagError error);

  // The fields of mapping `node`. Reports: not a mapping, unknown keys (with
  // hints; `other` is the table of the other level, e.g. step keys at the DAG
  // level), duplicate keys (also two spellings of one key), ignored keys
  // (warning) and unsupported keys (error). Supports "<<" merge keys. Returns
  // false only when `node` is not a mapping.
  bool Map(const Field& at, const KeyTable& table, Fields* out, const KeyTable* other = nullptr);

  // A Field for item `index` of the sequence in `parent`.
  static Field Item(const Field& parent, size_t index, const YAML::Node& item);

  // Typed readers: false (after reporting) when the value has the wrong type.
  // A null value reads as empty / false / 0 and returns true.
  bool String(const Field& f, std::string* out);          // a YAML string (not 5, not true)
  bool Bool(const Field& f, bool* out);                   // true / false only
  bool Int(const Field& f, int64_t min, int64_t max, int64_t* out);
  // Whole seconds (a float is truncated, as Go decodes it); a negative value
  // is an error unless `allow_negative`, which reads it as 0.
  bool Seconds(const Field& f, std::chrono::nanoseconds* out, bool allow_negative = false);
  // A scalar or a list of scalars. `*empty_list` (if given) says "[]" was written.
  bool StringList(const Field& f, std::vector<std::string>* out, bool* empty_list = nullptr);
  // An int or a list of ints (quoted digits accepted, as Dagu does for exit codes).
  bool IntList(const Field& f, std::vector<int>* out);

 private:
  DagError Make(const YAML::Node& node, const std::string& path, std::string message, std::string value,
                DagError::Severity severity) const;
  void UnknownKey(const Field& key, const KeyTable& table, const KeyTable* other);
  void NoteSpelling(const KeySpec& spec, const Field& f);
  void CollectEntries(const YAML::Node& node, const std::string& path, bool merged, std::vector<Field>* out);

  std::string file_;
  DialectEvidence evidence_;
  bool crlf_ = false;
  bool dag_ssh_ = false;
  bool dag_container_ = false;
  std::vector<DagError>* out_;
  bool metadata_only_;
  int step_depth_ = 0;
};

// The position of `node` (1-based), or {1, 1} when it has none.
std::pair<int, int> PositionOf(const YAML::Node& node);

// Text of a node for messages: the scalar, or "<list>" / "<map>".
std::string Describe(const YAML::Node& node);

// Trims ASCII whitespace at both ends.
std::string Trim(std::string_view s);

// ASCII lower case.
std::string Lower(std::string_view s);

// `s` in double quotes, for messages.
std::string Quote(std::string_view s);

// The items of a list field, or the field itself when it is not a list.
std::vector<Field> ItemsOf(const Field& f);

}  // namespace dagu::dag_internal
