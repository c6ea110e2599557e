#include "agent/env_expand.h"

#include <cctype>

#include "core/strings.h"

namespace dagu {
namespace {

bool NameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string ExpandVars(std::string_view text, const VarLookup& lookup) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      ++i;
      continue;
    }
    size_t start = i;
    std::string_view name;
    size_t end;
    if (text[i + 1] == '{') {
      size_t close = text.find('}', i + 2);
      if (close == std::string_view::npos) {
        out += c;
        ++i;
        continue;
      }
      name = text.substr(i + 2, close - i - 2);
      end = close + 1;
      bool valid = !name.empty() && (NameStart(name[0]) || Digit(name[0]));
      for (char n : name) valid = valid && NameChar(n);
      if (!valid) {
        out += text.substr(start, end - start);
        i = end;
        continue;
      }
    } else if (NameStart(text[i + 1])) {
      end = i + 2;
      while (end < text.size() && NameChar(text[end])) ++end;
      name = text.substr(i + 1, end - i - 1);
    } else if (Digit(text[i + 1])) {
      end = i + 2;
      while (end < text.size() && Digit(text[end])) ++end;
      name = text.substr(i + 1, end - i - 1);
    } else {
      out += c;
      ++i;
      continue;
    }
    std::optional<std::string> value = lookup(name);
    if (value.has_value()) out += *value;
    else out += text.substr(start, end - start);
    i = end;
  }
  return out;
}

VarLookup MapLookup(const std::map<std::string, std::string>& vars) {
  return [&vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

void VarList::Set(const std::string& name, const std::string& value) {
  auto it = index_.find(name);
  if (it != index_.end()) {
    items_[it->second].second = value;
    return;
  }
  index_[name] = items_.size();
  items_.emplace_back(name, value);
}

std::optional<std::string> VarList::Get(std::string_view name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return items_[it->second].second;
}

std::vector<std::string> VarList::ToEnvp() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& [k, v] : items_) out.push_back(k + "=" + v);
  return out;
}

VarLookup VarList::Lookup() const {
  return [this](std::string_view name) { return Get(name); };
}

VarLookup VarList::LookupOrEmpty() const {
  return [this](std::string_view name) { return std::optional<std::string>(Get(name).value_or("")); };
}

std::vector<std::pair<std::string, std::string>> ParseDotenv(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = TrimSpace(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line.substr(0, 7) == "export ") line = TrimSpace(line.substr(7));
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(TrimSpace(line.substr(0, eq)));
    std::string_view value = TrimSpace(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    } else {
      size_t hash = value.find(" #");
      if (hash != std::string_view::npos) value = TrimSpace(value.substr(0, hash));
    }
    if (!key.empty()) out.emplace_back(key, std::string(value));
  }
  return out;
}

}  // namespace dagu
