#include "config/yaml_source.h"

#include <algorithm>

#include "config/config_keys.h"
#include "config/value_parse.h"

namespace dagu::config_internal {
namespace {

struct Entry {
  const KeySpec* spec;
  Setting setting;
  int line;
};

const char* ShapeName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a single value";
    default: return "nothing";
  }
}

const char* ExpectedShape(ValueType type) {
  switch (type) {
    case ValueType::kDuration: return "a duration such as \"30s\"";
    case ValueType::kInt: return "a whole number";
    case ValueType::kBool: return "true or false";
    case ValueType::kPath: return "a path";
    case ValueType::kQueueList: return "a list of queues ({name, max_active_runs})";
    case ValueType::kStringList: return "a list of names, or one comma-separated value";
    case ValueType::kLabels: return "a mapping of labels, or one value \"key1=value1,key2=value2\"";
    default: return "a single value";
  }
}

bool ShapeFits(ValueType type, const YAML::Node& node) {
  if (type == ValueType::kQueueList) return node.IsSequence();
  if (type == ValueType::kLabels) {
    if (node.IsScalar()) return true;
    if (!node.IsMap()) return false;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar() || !(it->second.IsScalar() || it->second.IsNull())) return false;
    }
    return true;
  }
  if (type == ValueType::kStringList) {
    if (node.IsScalar()) return true;
    if (!node.IsSequence()) return false;
    for (const YAML::Node& item : node) {
      if (!item.IsScalar()) return false;
    }
    return true;
  }
  return node.IsScalar();
}

class Walker {
 public:
  Walker(const std::string& path, std::vector<std::string>* warnings) : path_(path), warnings_(warnings) {}

  std::string Where(const YAML::Node& node) const {
    return path_ + " line " + std::to_string(node.Mark().line + 1);
  }

  Status Walk(const YAML::Node& map, const std::string& normalized_prefix, const std::string& written_prefix) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;  // copies: it-> yields a temporary
      const YAML::Node value = it->second;
      if (!key.IsScalar()) {
        return Status::InvalidArgument(Where(key) + ": a key must be a plain name, got " + ShapeName(key));
      }
      std::string written = written_prefix.empty() ? key.Scalar() : written_prefix + "." + key.Scalar();
      std::string normalized = NormalizeSegment(key.Scalar());
      if (!normalized_prefix.empty()) normalized = normalized_prefix + "." + normalized;
      DAGU_RETURN_IF_ERROR(Visit(key, value, written, normalized));
    }
    return Status::OK();
  }

  std::vector<Entry>& entries() { return entries_; }

 private:
  Status Visit(const YAML::Node& key, const YAML::Node& value, const std::string& written,
               const std::string& normalized) {
    if (const KeySpec* spec = FindKey(normalized)) {
      if (spec->type == ValueType::kIgnored || value.IsNull()) return Status::OK();
      if (!ShapeFits(spec->type, value)) {
        return Status::InvalidArgument(Where(key) + ": " + written + " must be " + ExpectedShape(spec->type) +
                                       ", got " + ShapeName(value));
      }
      Setting setting;
      if (value.IsScalar()) setting.value = value.Scalar();
      setting.node = value;
      setting.origin = Where(key) + ": " + written;
      setting.file = path_;
      entries_.push_back({spec, std::move(setting), key.Mark().line + 1});
      return Status::OK();
    }
    if (IsSection(normalized)) {
      if (value.IsNull()) return Status::OK();
      if (!value.IsMap()) {
        return Status::InvalidArgument(Where(key) + ": " + written + " must be a mapping of settings, got " +
                                       ShapeName(value));
      }
      std::string section_prefix = normalized;
      return Walk(value, section_prefix, written);
    }
    std::string hint = SuggestKey(written);
    std::string message = Where(key) + ": unknown key \"" + written + "\"";
    if (normalized.rfind("scheduler.", 0) == 0) {
      return Status::InvalidArgument(message + (hint.empty() ? "" : "; " + hint) +
                                     " (unknown scheduler keys are errors: a misspelt lock setting would "
                                     "silently change failover timing)");
    }
    warnings_->push_back(message + " is ignored" + (hint.empty() ? "" : "; " + hint));
    return Status::OK();
  }

  std::string path_;
  std::vector<std::string>* warnings_;
  std::vector<Entry> entries_;
};

Status CheckDuplicates(const std::string& path, const std::vector<Entry>& entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    for (size_t j = i + 1; j < entries.size(); ++j) {
      if (entries[i].spec != entries[j].spec) continue;
      return Status::InvalidArgument(path + ": " + std::string(entries[i].spec->name) + " is set twice, at line " +
                                     std::to_string(entries[i].line) + " and line " +
                                     std::to_string(entries[j].line) + " (one spelling per key, please)");
    }
  }
  return Status::OK();
}

// The legacy isAuthToken/authToken pair: authToken counts only when
// isAuthToken is true, as in Dagu.
bool AuthTokenEnabled(const std::vector<Entry>& entries) {
  for (const Entry& e : entries) {
    bool on = false;
    if (e.spec->name == "is_auth_token" && ParseBool(e.setting.value, &on)) return on;
  }
  return false;
}

size_t TableIndex(const KeySpec* spec) { return static_cast<size_t>(spec - AllKeys().data()); }

}  // namespace

Status ParseConfigText(const std::string& path, const std::string& text, Settings* settings,
                       std::vector<std::string>* warnings) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return Status::InvalidArgument(path + " line " + std::to_string(e.mark.line + 1) + " column " +
                                   std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(path + ": invalid YAML: " + e.what());
  }
  if (root.IsNull()) return Status::OK();
  if (!root.IsMap()) {
    return Status::InvalidArgument(path + ": the file must be a mapping of settings, got " +
                                   std::string(ShapeName(root)));
  }
  Walker walker(path, warnings);
  DAGU_RETURN_IF_ERROR(walker.Walk(root, "", ""));
  std::vector<Entry>& entries = walker.entries();
  DAGU_RETURN_IF_ERROR(CheckDuplicates(path, entries));
  bool token_enabled = AuthTokenEnabled(entries);
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    bool a_legacy = !a.spec->target.empty();
    bool b_legacy = !b.spec->target.empty();
    if (a_legacy != b_legacy) return !a_legacy;
    return a_legacy && TableIndex(a.spec) < TableIndex(b.spec);
  });
  for (Entry& e : entries) {
    if (e.spec->name == "auth_token" && !token_enabled) {
      warnings->push_back(e.setting.origin + " is ignored because isAuthToken is not true");
      continue;
    }
    std::string target(e.spec->target.empty() ? e.spec->name : e.spec->target);
    (*settings)[target] = std::move(e.setting);
  }
  return Status::OK();
}

Status ReadConfigFile(const std::string& path, bool required, FileSystem* fs, Settings* settings,
                      std::vector<std::string>* warnings, bool* found) {
  std::string text;
  Status s = fs->ReadFile(path, &text);
  if (s.IsNotFound() && !required) {
    *found = false;
    return Status::OK();
  }
  if (!s.ok()) return Status::IOError("cannot read config file " + path + ": " + s.message());
  *found = true;
  return ParseConfigText(path, text, settings, warnings);
}

}  // namespace dagu::config_internal
