#include "executors/executor_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include "executors/go_json.h"

namespace dagu {
namespace {

int OpenAppend(const std::string& path) {
  if (path.empty()) return -1;
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

void CloseFd(int fd) {
  if (fd >= 0) ::close(fd);
}

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool NameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

StepOutput::StepOutput(const StepInvocation& inv)
    : limit_(inv.capture_limit),
      out_(OpenAppend(inv.stdout_path)),
      err_(OpenAppend(inv.stderr_path)),
      extra_out_(OpenAppend(inv.extra_stdout_path)),
      extra_err_(OpenAppend(inv.extra_stderr_path)) {}

StepOutput::~StepOutput() {
  CloseFd(out_);
  CloseFd(err_);
  CloseFd(extra_out_);
  CloseFd(extra_err_);
}

void StepOutput::WriteAll(int fd, std::string_view data) {
  if (fd < 0) return;
  while (!data.empty()) {
    ssize_t w = ::write(fd, data.data(), data.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    data.remove_prefix(static_cast<size_t>(w));
  }
}

void StepOutput::Out(std::string_view data) {
  WriteAll(out_, data);
  WriteAll(extra_out_, data);
  size_t room = limit_ > captured_.size() ? limit_ - captured_.size() : 0;
  if (data.size() > room) too_large_ = true;
  captured_.append(data.substr(0, room));
}

void StepOutput::Err(std::string_view data) {
  WriteAll(err_, data);
  WriteAll(extra_err_, data);
  stderr_tail_.append(data);
  if (stderr_tail_.size() > 1024) stderr_tail_.erase(0, stderr_tail_.size() - 1024);
}

void StepOutput::Finish(StepResult* result) {
  result->captured_stdout = std::move(captured_);
  result->output_too_large = too_large_;
  result->stderr_tail = std::move(stderr_tail_);
}

bool ExecutorConfig::Parse(const StepInvocation& inv, std::string* error) {
  if (inv.executor_config_json.empty()) {
    j_ = nlohmann::json::object();
    return true;
  }
  j_ = nlohmann::json::parse(inv.executor_config_json, nullptr, false);
  if (!j_.is_object()) {
    *error = "the executor config is not a mapping";
    return false;
  }
  return true;
}

const nlohmann::json* ExecutorConfig::Find(std::string_view key) const {
  auto exact = j_.find(std::string(key));
  if (exact != j_.end() && !exact->is_null()) return &*exact;
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (EqualFold(it.key(), key) && !it->is_null()) return &*it;
  }
  return nullptr;
}

std::string ScalarText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";  // mapstructure's weak bool -> string
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) return GoFormatFloatV(v.get<double>());
  return "";
}

std::string ExecutorConfig::String(std::string_view key) const {
  const nlohmann::json* v = Find(key);
  return v == nullptr ? "" : ScalarText(*v);
}

bool ExecutorConfig::Bool(std::string_view key) const {
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return false;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_number()) return v->get<double>() != 0;
  if (v->is_string()) {
    std::string s = v->get<std::string>();
    return s == "1" || EqualFold(s, "true") || EqualFold(s, "t");
  }
  return false;
}

bool ExecutorConfig::Int(std::string_view key, int64_t* out, std::string* error) const {
  const nlohmann::json* v = Find(key);
  *out = -1;
  if (v == nullptr) return true;
  if (v->is_number_integer() || v->is_number_unsigned()) {
    *out = v->get<int64_t>();
    return true;
  }
  if (v->is_number_float()) {
    *out = static_cast<int64_t>(v->get<double>());
    return true;
  }
  if (v->is_boolean()) {
    *out = v->get<bool>() ? 1 : 0;
    return true;
  }
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    if (s.empty()) {
      *out = 0;
      return true;
    }
    char* end = nullptr;
    long long n = std::strtoll(s.c_str(), &end, 0);
    if (end != nullptr && *end == '\0') {
      *out = n;
      return true;
    }
  }
  *error = "config " + std::string(key) + ": expected a whole number, got " + v->dump();
  return false;
}

std::vector<std::string> ExecutorConfig::StringList(std::string_view key) const {
  std::vector<std::string> out;
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return out;
  if (v->is_array()) {
    for (const auto& item : *v) {
      std::string s = ScalarText(item);
      if (!s.empty()) out.push_back(s);
    }
  } else {
    std::string s = ScalarText(*v);
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

std::map<std::string, std::string> ExecutorConfig::StringMap(std::string_view key) const {
  std::map<std::string, std::string> out;
  const nlohmann::json* v = Find(key);
  if (v == nullptr || !v->is_object()) return out;
  for (auto it = v->begin(); it != v->end(); ++it) out[it.key()] = ScalarText(*it);
  return out;
}

std::optional<std::string> EnvValue(const std::vector<std::string>& env, std::string_view name) {
  std::optional<std::string> found;
  for (const auto& kv : env) {
    if (kv.size() > name.size() && kv[name.size()] == '=' && kv.compare(0, name.size(), name) == 0) {
      found = kv.substr(name.size() + 1);
    }
  }
  return found;
}

std::string ExpandConfigString(const StepInvocation& inv, const std::string& text) {
  std::string in = inv.expand ? inv.expand(text) : text;
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '$' || i + 1 >= in.size()) {
      out.push_back(in[i]);
      continue;
    }
    size_t start, end;
    bool braced = in[i + 1] == '{';
    if (braced) {
      start = i + 2;
      end = in.find('}', start);
      if (end == std::string::npos) {
        out.push_back(in[i]);
        continue;
      }
    } else {
      start = i + 1;
      if (std::isdigit(static_cast<unsigned char>(in[start])) ||
          std::string_view("*#$@!?-").find(in[start]) != std::string_view::npos) {
        end = start + 1;  // Go's os.Expand: a one-character special or positional name
      } else if (!NameStart(in[start])) {
        out.push_back(in[i]);
        continue;
      } else {
        end = start;
        while (end < in.size() && NameChar(in[end])) ++end;
      }
    }
    std::string name = in.substr(start, end - start);
    out += EnvValue(inv.env, name).value_or("");
    i = braced ? end : end - 1;
  }
  return out;
}

}  // namespace dagu
