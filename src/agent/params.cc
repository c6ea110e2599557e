#include "agent/params.h"

#include <nlohmann/json.hpp>

#include <cctype>

namespace dagu {
namespace {

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

// Splits "NAME=value" when the part before '=' is a name.
ParamOverride SplitArg(const std::string& arg) {
  size_t eq = arg.find('=');
  if (eq != std::string::npos && eq > 0) {
    bool name = true;
    for (size_t i = 0; i < eq; ++i) name = name && IsNameChar(arg[i]);
    if (name) return {arg.substr(0, eq), arg.substr(eq + 1)};
  }
  return {"", arg};
}

}  // namespace

Status ParseParamText(std::string_view text, std::vector<ParamOverride>* out) {
  out->clear();
  // A JSON object gives named params (as Dagu reads `-- {"A":"1"}`).
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    nlohmann::json obj = nlohmann::json::parse(text, nullptr, false);
    if (obj.is_object()) {
      for (auto it = obj.begin(); it != obj.end(); ++it) {
        out->push_back({it.key(), it->is_string() ? it->get<std::string>() : it->dump()});
      }
      return Status::OK();
    }
  }
  size_t i = 0;
  const size_t n = text.size();
  auto space = [&](size_t k) { return std::isspace(static_cast<unsigned char>(text[k])) != 0; };
  while (true) {
    while (i < n && space(i)) ++i;
    if (i >= n) return Status::OK();
    std::string word;
    bool quoted_name_part = false;
    while (i < n && !space(i)) {
      if (text[i] == '"') {
        size_t close = text.find('"', i + 1);
        while (close != std::string_view::npos && text[close - 1] == '\\') close = text.find('"', close + 1);
        if (close == std::string_view::npos) {
          return Status::InvalidArgument("invalid params \"" + std::string(text) + "\": unterminated double quote");
        }
        std::string inner(text.substr(i + 1, close - i - 1));
        for (size_t k = 0; k < inner.size(); ++k) {
          if (inner[k] == '\\' && k + 1 < inner.size() && inner[k + 1] == '"') continue;
          word += inner[k];
        }
        i = close + 1;
        quoted_name_part = true;
      } else {
        word += text[i++];
      }
    }
    ParamOverride p = SplitArg(word);
    if (word.size() > 0 && word[0] == '=' && !quoted_name_part) {
      return Status::InvalidArgument("invalid params \"" + std::string(text) + "\": \"" + word + "\" has no name");
    }
    out->push_back(p);
  }
}

std::vector<ParamOverride> ParamArgs(const std::vector<std::string>& args) {
  std::vector<ParamOverride> out;
  for (const auto& a : args) out.push_back(SplitArg(a));
  return out;
}

Params ApplyParamOverrides(const Params& defaults, const std::vector<ParamOverride>& overrides) {
  Params out = defaults;
  for (size_t k = 0; k < overrides.size(); ++k) {
    const ParamOverride& o = overrides[k];
    // A positional value is named by its position among the overrides (as
    // Dagu 1.30.2 names it): `-- B=9 foo` sets "2".
    const std::string name = o.name.empty() ? std::to_string(k + 1) : o.name;
    bool found = false;
    for (auto& [key, value] : out) {
      if (key == name) {
        value = o.value;
        found = true;
      }
    }
    if (!found) out.emplace_back(name, o.value);
  }
  return out;
}

}  // namespace dagu
