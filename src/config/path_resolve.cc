#include "config/path_resolve.h"
#include "core/strings.h"

#include <cctype>
#include <vector>

namespace dagu::config_internal {
namespace {

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string Lookup(const EnvMap& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

}  // namespace

std::string ExpandEnv(const std::string& text, const EnvMap& env) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '{') {
      size_t close = text.find('}', i + 2);
      if (close == std::string::npos) {
        out += text.substr(i);
        break;
      }
      out += Lookup(env, text.substr(i + 2, close - i - 2));
      i = close;
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && IsNameChar(text[j])) ++j;
    if (j == i + 1) {
      out += '$';
      continue;
    }
    out += Lookup(env, text.substr(i + 1, j - i - 1));
    i = j - 1;
  }
  return out;
}

std::string CleanPath(const std::string& path) {
  if (path.empty()) return ".";
  bool absolute = path.front() == '/';
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string part = path.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);
      }
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out.empty() ? "." : out;
}

std::string AbsolutePath(const std::string& path, const std::string& cwd) {
  if (!path.empty() && path.front() == '/') return CleanPath(path);
  return CleanPath(cwd + "/" + path);
}

Status ResolvePath(const std::string& text, const EnvMap& env, const std::string& cwd,
                   std::string* out) {
  std::string path = ExpandEnv(std::string(TrimSpace(text)), env);
  if (path.empty()) {
    out->clear();
    return Status::OK();
  }
  if (path.front() == '~') {
    std::string home = Lookup(env, "HOME");
    if (home.empty()) {
      return Status::InvalidArgument("cannot expand \"~\" in \"" + text + "\": HOME is not set");
    }
    path = home + "/" + path.substr(1);
  }
  *out = AbsolutePath(path, cwd);
  return Status::OK();
}

}  // namespace dagu::config_internal
