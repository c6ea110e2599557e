#include "agent/eval.h"

#include <fnmatch.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/go_format.h"

namespace dagu {
namespace {

using Json = nlohmann::json;

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::vector<std::string> Runes(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    uint32_t r;
    DecodeUtf8Rune(s, &i, &r);
    out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts, size_t from, size_t to) {
  std::string out;
  for (size_t k = from; k < to && k < parts.size(); ++k) out += parts[k];
  return out;
}

// --- Substitute --------------------------------------------------------------

// ${id.stdout[:start[:length]]} and friends.
std::optional<std::string> StepProperty(const StepRefInfo& info, const std::string& path) {
  std::string property = path;
  std::optional<int> start, length;
  size_t colon = path.find(':');
  if (colon != std::string::npos) {
    property = path.substr(0, colon);
    std::string spec = path.substr(colon + 1);
    size_t second = spec.find(':');
    std::string a = spec.substr(0, second);
    std::string b = second == std::string::npos ? "" : spec.substr(second + 1);
    if (a.empty() || b.find(':') != std::string::npos) return std::nullopt;
    try {
      start = std::stoi(a);
      if (!b.empty()) length = std::stoi(b);
    } catch (...) {
      return std::nullopt;
    }
    if (*start < 0 || (length && *length < 0)) return std::nullopt;
  }
  std::string value;
  if (property == ".stdout") {
    if (info.stdout_path.empty()) return std::nullopt;
    value = info.stdout_path;
  } else if (property == ".stderr") {
    if (info.stderr_path.empty()) return std::nullopt;
    value = info.stderr_path;
  } else if (property == ".exitCode" || property == ".exit_code") {
    value = info.exit_code;
  } else {
    return std::nullopt;
  }
  if (start) {
    auto runes = Runes(value);
    size_t from = static_cast<size_t>(*start);
    if (from >= runes.size()) return std::string();
    size_t to = length ? std::min(runes.size(), from + static_cast<size_t>(*length)) : runes.size();
    value = Join(runes, from, to);
  }
  return value;
}

// ${NAME.path} / $NAME.path: a step property or a JSON value.
std::string ExpandReferences(const std::string& text, const VarList* vars, const OwnedVars& owned) {
  static const std::regex kRef(R"(\$\{([A-Za-z0-9_]\w*)(\.[^}]+)\}|\$([A-Za-z0-9_]\w*)(\.[^\s]+))");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), kRef);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out.append(text, last, static_cast<size_t>(m.position()) - last);
    last = static_cast<size_t>(m.position() + m.length());
    const std::string match = m.str();
    const bool braced = match.rfind("${", 0) == 0;
    const std::string name = braced ? m.str(1) : m.str(3);
    const std::string path = braced ? m.str(2) : m.str(4);
    auto step = owned.steps.find(name);
    if (step != owned.steps.end()) {
      if (auto v = StepProperty(step->second, path)) {
        out += *v;
        continue;
      }
    }
    std::optional<std::string> json;
    if (vars != nullptr) json = vars->Get(name);
    if (!json && owned.env) json = owned.env(name);
    if (json) {
      if (auto v = JsonPathValue(*json, path)) {
        out += *v;
        continue;
      }
    }
    out += match;
  }
  out.append(text, last, std::string::npos);
  return out;
}

// Dagu's replaceVars: ${NAME} / $NAME of a known name, unless a single quote
// touches the reference.
std::string ReplaceVars(const std::string& text, const VarList& vars) {
  static const std::regex kVar(R"('?\$\{([^}]+)\}'?|'?\$([a-zA-Z0-9_][a-zA-Z0-9_]*)'?)");
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kVar); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out.append(text, last, static_cast<size_t>(m.position()) - last);
    last = static_cast<size_t>(m.position() + m.length());
    const std::string match = m.str();
    if (match.front() == '\'' && match.back() == '\'') {
      out += match;
      continue;
    }
    // As Dagu takes the key: a quote on one side makes it no variable name.
    std::string key = match.rfind("${", 0) == 0 ? match.substr(2, match.size() - 3) : match.substr(1);
    auto value = vars.Get(key);
    out += value ? *value : match;
  }
  out.append(text, last, std::string::npos);
  return out;
}

// "${NAME}" and "${NAME.path}", quoted by themselves: the Go-quoted value.
std::string QuotedReferences(const std::string& text, const VarList& vars, const OwnedVars& owned) {
  static const std::regex kQuoted(R"re("\$\{([A-Za-z0-9_]\w*(?:\.[^}]+)?)\}")re");
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kQuoted); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out.append(text, last, static_cast<size_t>(m.position()) - last);
    last = static_cast<size_t>(m.position() + m.length());
    const std::string ref = m.str(1);
    if (ref.find('.') != std::string::npos) {
      const std::string plain = "${" + ref + "}";
      std::string extracted = ExpandReferences(plain, &vars, owned);
      out += extracted != plain ? GoQuote(extracted) : m.str();
    } else if (auto v = vars.Get(ref)) {
      out += GoQuote(*v);
    } else {
      out += m.str();
    }
  }
  out.append(text, last, std::string::npos);
  return out;
}

// --- ShellExpand -------------------------------------------------------------

class ShellExpander {
 public:
  ShellExpander(std::string_view text, const VarLookup& lookup) : t_(text), lookup_(lookup) {}

  // False when the text needs the shell itself (command substitution) or
  // does not parse.
  bool Run(std::string* out) { return Word(0, t_.size(), out); }

 private:
  std::string Get(const std::string& name) const {
    auto v = lookup_(name);
    return v ? *v : "";
  }

  bool Word(size_t from, size_t to, std::string* out) {
    for (size_t i = from; i < to;) {
      char c = t_[i];
      if (c == '\\' && i + 1 < to) {
        char n = t_[i + 1];
        if (n == '\n') {
          i += 2;
          continue;
        }
        if (n == '$' || n == '`' || n == '\\') {
          *out += n;
          i += 2;
          continue;
        }
        *out += c;
        ++i;
        continue;
      }
      if (c == '`') return false;
      if (c != '$' || i + 1 >= to) {
        *out += c;
        ++i;
        continue;
      }
      char n = t_[i + 1];
      if (n == '(') return false;
      if (n == '{') {
        size_t close = MatchBrace(i + 2, to);
        if (close == std::string::npos) return false;
        std::string value;
        if (!Param(i + 2, close, &value)) return false;
        *out += value;
        i = close + 1;
        continue;
      }
      if (IsNameStart(n)) {
        size_t e = i + 1;
        while (e < to && IsNameChar(t_[e])) ++e;
        *out += Get(std::string(t_.substr(i + 1, e - i - 1)));
        i = e;
        continue;
      }
      if (IsDigit(n)) {
        *out += Get(std::string(1, n));
        i += 2;
        continue;
      }
      *out += c;
      ++i;
    }
    return true;
  }

  size_t MatchBrace(size_t from, size_t to) const {
    int depth = 1;
    for (size_t k = from; k < to; ++k) {
      if (t_[k] == '\\') {
        ++k;
        continue;
      }
      if (t_[k] == '{') ++depth;
      if (t_[k] == '}' && --depth == 0) return k;
    }
    return std::string::npos;
  }

  bool Sub(size_t from, size_t to, std::string* out) { return Word(from, to, out); }

  static bool Int(std::string s, long* v) {
    while (!s.empty() && s.front() == ' ') s.erase(0, 1);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    if (s.empty()) {
      *v = 0;
      return true;
    }
    char* end = nullptr;
    *v = std::strtol(s.c_str(), &end, 10);
    return end != nullptr && *end == '\0';
  }

  // The inside of ${...}.
  bool Param(size_t from, size_t to, std::string* out) {
    size_t i = from;
    bool length = false;
    if (i < to && t_[i] == '#' && i + 1 < to) {
      length = true;
      ++i;
    }
    size_t name_start = i;
    if (i < to && IsNameStart(t_[i])) {
      while (i < to && IsNameChar(t_[i])) ++i;
    } else if (i < to && IsDigit(t_[i])) {
      while (i < to && IsDigit(t_[i])) ++i;
    } else {
      return false;
    }
    std::string name(t_.substr(name_start, i - name_start));
    std::string value = Get(name);
    if (length) {
      if (i != to) return false;
      *out = std::to_string(Runes(value).size());
      return true;
    }
    if (i == to) {
      *out = value;
      return true;
    }
    std::string_view rest = t_.substr(i, to - i);
    auto word = [&](size_t skip, std::string* w) { return Sub(i + skip, to, w); };
    // Defaults and alternatives (an empty value counts as unset).
    for (const char* op : {":-", ":=", ":+", ":?"}) {
      if (rest.rfind(op, 0) == 0) {
        std::string w;
        if (!word(2, &w)) return false;
        *out = op[1] == '+' ? (value.empty() ? "" : w) : (value.empty() ? w : value);
        return true;
      }
    }
    if (rest[0] == '-' || rest[0] == '=' || rest[0] == '+' || rest[0] == '?') {
      std::string w;
      if (!word(1, &w)) return false;
      *out = rest[0] == '+' ? (value.empty() ? "" : w) : (value.empty() ? w : value);
      return true;
    }
    if (rest[0] == ':') {
      std::string spec;
      if (!word(1, &spec)) return false;
      size_t colon = spec.find(':');
      long off = 0, len = 0;
      if (!Int(spec.substr(0, colon), &off)) return false;
      bool has_len = colon != std::string::npos;
      if (has_len && !Int(spec.substr(colon + 1), &len)) return false;
      auto runes = Runes(value);
      long n = static_cast<long>(runes.size());
      if (off < 0) off = std::max(0L, n + off);
      if (off > n) off = n;
      long end = has_len ? (len < 0 ? n + len : off + len) : n;
      end = std::min(end, n);
      *out = end > off ? Join(runes, static_cast<size_t>(off), static_cast<size_t>(end)) : "";
      return true;
    }
    if (rest[0] == '#' || rest[0] == '%') {
      bool longest = rest.size() > 1 && rest[1] == rest[0];
      std::string pat;
      if (!word(longest ? 2 : 1, &pat)) return false;
      *out = TrimPattern(value, pat, rest[0] == '#', longest);
      return true;
    }
    if (rest[0] == '/') {
      size_t k = 1;
      bool all = false, anchor_start = false, anchor_end = false;
      if (k < rest.size() && rest[k] == '/') all = true, ++k;
      else if (k < rest.size() && rest[k] == '#') anchor_start = true, ++k;
      else if (k < rest.size() && rest[k] == '%') anchor_end = true, ++k;
      size_t slash = rest.find('/', k);
      std::string pat, rep;
      size_t pat_end = slash == std::string::npos ? to : i + slash;
      if (!Sub(i + k, pat_end, &pat)) return false;
      if (slash != std::string::npos && !Sub(i + slash + 1, to, &rep)) return false;
      *out = ReplacePattern(value, pat, rep, all, anchor_start, anchor_end);
      return true;
    }
    if (rest[0] == '^' || rest[0] == ',') {
      bool whole = rest.size() > 1 && rest[1] == rest[0];
      bool upper = rest[0] == '^';
      std::string v = value;
      for (size_t k = 0; k < v.size() && (whole || k == 0); ++k) {
        unsigned char ch = static_cast<unsigned char>(v[k]);
        v[k] = static_cast<char>(upper ? std::toupper(ch) : std::tolower(ch));
      }
      *out = v;
      return true;
    }
    return false;
  }

  static bool Matches(const std::string& pat, const std::string& s) { return fnmatch(pat.c_str(), s.c_str(), 0) == 0; }

  static std::string TrimPattern(const std::string& v, const std::string& pat, bool prefix, bool longest) {
    auto runes = Runes(v);
    size_t n = runes.size();
    for (size_t step = 0; step <= n; ++step) {
      size_t k = longest ? n - step : step;
      if (prefix && Matches(pat, Join(runes, 0, k))) return Join(runes, k, n);
      if (!prefix && Matches(pat, Join(runes, n - k, n))) return Join(runes, 0, n - k);
    }
    return v;
  }

  static std::string ReplacePattern(const std::string& v, const std::string& pat, const std::string& rep, bool all,
                                    bool anchor_start, bool anchor_end) {
    auto runes = Runes(v);
    const size_t n = runes.size();
    std::string out;
    size_t pos = 0;
    while (pos < n) {
      size_t match_end = 0;  // longest match starting at pos
      for (size_t end = n; end > pos; --end) {
        if (anchor_end && end != n) break;
        if (Matches(pat, Join(runes, pos, end))) {
          match_end = end;
          break;
        }
      }
      if (match_end > pos) {
        out += rep;
        pos = match_end;
        if (!all) break;
        continue;
      }
      if (anchor_start) break;
      out += runes[pos++];
    }
    return out + Join(runes, pos, n);
  }

  std::string_view t_;
  const VarLookup& lookup_;
};

}  // namespace

std::string Substitute(std::string_view text_view, const OwnedVars& vars) {
  std::string text(text_view);
  if (text.find('$') == std::string::npos) return text;
  for (const VarList& map : vars.maps) text = QuotedReferences(text, map, vars);
  if (vars.maps.empty() && !vars.steps.empty()) return ExpandReferences(text, nullptr, vars);
  for (const VarList& map : vars.maps) {
    text = ExpandReferences(text, &map, vars);
    text = ReplaceVars(text, map);
  }
  return text;
}

std::string ExpandJsonReferences(std::string_view text_view, const OwnedVars& vars) {
  std::string text(text_view);
  if (text.find('$') == std::string::npos) return text;
  if (vars.maps.empty()) return ExpandReferences(text, nullptr, vars);
  for (const VarList& map : vars.maps) text = ExpandReferences(text, &map, vars);
  return text;
}

std::string ReplaceBackticks(std::string_view text, const std::function<std::string(const std::string&)>& run) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find('`', pos);
    size_t close = open == std::string_view::npos ? std::string_view::npos : text.find('`', open + 1);
    if (close == std::string_view::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    out += run(std::string(text.substr(open + 1, close - open - 1)));
    pos = close + 1;
  }
  return out;
}

std::string ShellExpand(std::string_view text, const VarLookup& lookup) {
  std::string out;
  if (ShellExpander(text, lookup).Run(&out)) return out;
  return GoExpand(text, lookup);
}

std::string GoExpand(std::string_view s, const VarLookup& lookup) {
  auto special = [](char c) {
    return c == '*' || c == '#' || c == '$' || c == '@' || c == '!' || c == '?' || c == '-' || IsDigit(c);
  };
  std::string out;
  size_t i = 0;
  for (size_t j = 0; j < s.size(); ++j) {
    if (s[j] != '$' || j + 1 >= s.size()) continue;
    out.append(s.substr(i, j - i));
    std::string_view rest = s.substr(j + 1);
    std::string name;
    size_t w = 0;
    if (rest[0] == '{') {
      if (rest.size() > 2 && special(rest[1]) && rest[2] == '}') {
        name = std::string(1, rest[1]);
        w = 3;
      } else {
        size_t close = rest.find('}', 1);
        if (close == std::string_view::npos) w = 1;
        else if (close == 1) w = 2;
        else name = std::string(rest.substr(1, close - 1)), w = close + 1;
      }
    } else if (special(rest[0])) {
      name = std::string(1, rest[0]);
      w = 1;
    } else {
      while (w < rest.size() && IsNameChar(rest[w])) ++w;
      name = std::string(rest.substr(0, w));
    }
    if (name.empty() && w == 0) {
      out += '$';
    } else if (!name.empty()) {
      auto v = lookup(name);
      if (v) out += *v;
    }
    j += w;
    i = j + 1;
  }
  out.append(s.substr(std::min(i, s.size())));
  return out;
}

std::optional<std::string> JsonPathValue(const std::string& json, std::string_view path) {
  Json doc = Json::parse(json, nullptr, false);
  if (doc.is_discarded()) return std::nullopt;
  const Json* cur = &doc;
  static const Json kNull;
  size_t i = 0;
  if (path.empty() || path[0] != '.') return std::nullopt;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      if (i < path.size() && path[i] == '[') continue;
      size_t e = i;
      while (e < path.size() && IsNameChar(path[e])) ++e;
      if (e == i) return std::nullopt;
      std::string key(path.substr(i, e - i));
      if (cur->is_null()) {
        cur = &kNull;
      } else if (!cur->is_object()) {
        return std::nullopt;
      } else {
        auto it = cur->find(key);
        cur = it == cur->end() ? &kNull : &*it;
      }
      i = e;
    } else if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string_view::npos) return std::nullopt;
      std::string inner(path.substr(i + 1, close - i - 1));
      if (inner.size() >= 2 && inner.front() == '"' && inner.back() == '"') {
        if (cur->is_null()) {
          cur = &kNull;
        } else if (!cur->is_object()) {
          return std::nullopt;
        } else {
          auto it = cur->find(inner.substr(1, inner.size() - 2));
          cur = it == cur->end() ? &kNull : &*it;
        }
      } else {
        long idx = 0;
        char* end = nullptr;
        idx = std::strtol(inner.c_str(), &end, 10);
        if (inner.empty() || end == nullptr || *end != '\0') return std::nullopt;
        if (cur->is_null()) {
          cur = &kNull;
        } else if (!cur->is_array()) {
          return std::nullopt;
        } else {
          long n = static_cast<long>(cur->size());
          if (idx < 0) idx += n;
          cur = idx >= 0 && idx < n ? &(*cur)[static_cast<size_t>(idx)] : &kNull;
        }
      }
      i = close + 1;
    } else {
      return std::nullopt;
    }
  }
  return GoFormatJson(*cur);
}

}  // namespace dagu
