#include "executors/archive_paths.h"

#include "core/strings.h"

namespace dagu::archive_paths {

std::string Clean(std::string_view path) {
  if (path.empty()) return ".";
  const bool rooted = path.front() == '/';
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    i = j + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!out.empty() && out.back() != "..") {
        out.pop_back();
      } else if (!rooted) {
        out.emplace_back("..");
      }
      continue;
    }
    out.emplace_back(part);
  }
  std::string s = rooted ? "/" : "";
  for (size_t k = 0; k < out.size(); ++k) s += (k == 0 ? "" : "/") + out[k];
  return s.empty() ? "." : s;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string joined;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    joined += (joined.empty() ? "" : "/") + p;
  }
  return joined.empty() ? "" : Clean(joined);
}

std::string Base(std::string_view path) {
  if (path.empty()) return ".";
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/") return "/";
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string Dir(std::string_view path) {
  size_t slash = path.rfind('/');
  return Clean(slash == std::string_view::npos ? std::string_view() : path.substr(0, slash + 1));
}

bool PathWithin(const std::string& base, const std::string& target) {
  std::string b = Clean(base), t = Clean(target);
  if (b == t) return true;
  if ((b.front() == '/') != (t.front() == '/')) return false;  // filepath.Rel fails
  if (b == ".") return t != ".." && !t.starts_with("../");
  std::string prefix = b == "/" ? "/" : b + "/";
  return t.starts_with(prefix);
}

std::string SanitizeArchivePath(const std::string& name, int strip, bool preserve) {
  std::string clean = name;
  if (clean.starts_with("./")) clean.erase(0, 2);
  if (clean.empty() || clean == ".") return "";
  std::vector<std::string> parts;
  size_t i = 0;
  for (;;) {
    size_t j = clean.find('/', i);
    parts.push_back(clean.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  if (strip > 0) {
    if (static_cast<size_t>(strip) >= parts.size()) return "";
    parts.erase(parts.begin(), parts.begin() + strip);
  }
  if (!preserve) {
    std::string joined;
    for (size_t k = 0; k < parts.size(); ++k) joined += (k == 0 ? "" : "/") + parts[k];
    return Base(joined);
  }
  return Join(parts);
}

bool ValidGlob(std::string_view s) {
  int alt_depth = 0;
  const size_t l = s.size();
  for (size_t i = 0; i < l; ++i) {
    switch (s[i]) {
      case '\\':
        if (++i >= l) return false;
        break;
      case '[': {
        if (++i >= l) return false;
        if (s[i] == '^' || s[i] == '!') ++i;
        if (i >= l || s[i] == ']') return false;
        bool closed = false;
        for (; i < l; ++i) {
          if (s[i] == '\\') {
            ++i;
          } else if (s[i] == ']') {
            closed = true;
            break;
          }
        }
        if (!closed) return false;
        break;
      }
      case '{': ++alt_depth; break;
      case '}':
        if (alt_depth == 0) return false;
        --alt_depth;
        break;
      default: break;
    }
  }
  return alt_depth == 0;
}

namespace {

// Expands the first top-level {a,b} group (escapes respected) recursively.
void ExpandBraces(const std::string& p, std::vector<std::string>* out) {
  size_t open = std::string::npos;
  int depth = 0;
  std::vector<size_t> commas;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '[') {  // a class is literal up to its ']'
      for (++i; i < p.size() && p[i] != ']'; ++i) {
        if (p[i] == '\\') ++i;
      }
      continue;
    }
    if (c == '{') {
      if (depth++ == 0) open = i;
    } else if (c == ',' && depth == 1) {
      commas.push_back(i);
    } else if (c == '}' && depth > 0 && --depth == 0) {
      std::string pre = p.substr(0, open), post = p.substr(i + 1);
      size_t start = open + 1;
      commas.push_back(i);
      for (size_t comma : commas) {
        ExpandBraces(pre + p.substr(start, comma - start) + post, out);
        start = comma + 1;
      }
      return;
    }
  }
  out->push_back(p);
}

size_t RuneLen(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  return i + n <= s.size() ? n : 1;
}

bool MatchClass(std::string_view p, size_t* pi, std::string_view n, size_t ni, size_t* rune_len) {
  size_t i = *pi + 1;
  bool negate = false;
  if (i < p.size() && (p[i] == '^' || p[i] == '!')) {
    negate = true;
    ++i;
  }
  *rune_len = RuneLen(n, ni);
  std::string_view ch = n.substr(ni, *rune_len);
  bool matched = false;
  auto read = [&](size_t* at) {
    if (p[*at] == '\\') ++*at;
    size_t len = RuneLen(p, *at);
    std::string_view r = p.substr(*at, len);
    *at += len;
    return r;
  };
  bool first = true;
  while (i < p.size() && (first || p[i] != ']')) {
    first = false;
    std::string_view lo = read(&i);
    std::string_view hi = lo;
    if (i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
      ++i;
      hi = read(&i);
    }
    if (lo <= ch && ch <= hi) matched = true;  // byte order of UTF-8 is rune order
  }
  *pi = i + 1;  // past ']'
  return matched != negate;
}

bool MatchFrom(std::string_view p, size_t pi, std::string_view n, size_t ni) {
  while (pi < p.size()) {
    char c = p[pi];
    if (c == '*') {
      bool segment_start = pi == 0 || p[pi - 1] == '/';
      if (segment_start && pi + 1 < p.size() && p[pi + 1] == '*' && (pi + 2 == p.size() || p[pi + 2] == '/')) {
        if (pi + 2 == p.size()) return true;  // trailing **: anything below
        size_t rest = pi + 3;
        for (size_t k = ni; k <= n.size(); ++k) {
          if ((k == ni || n[k - 1] == '/') && MatchFrom(p, rest, n, k)) return true;
        }
        return false;
      }
      while (pi < p.size() && p[pi] == '*') ++pi;
      for (size_t k = ni;; ++k) {
        if (MatchFrom(p, pi, n, k)) return true;
        if (k >= n.size() || n[k] == '/') return false;
      }
    }
    if (ni >= n.size()) {
      // "a/**" also matches "a".
      return p.substr(pi) == "/**";
    }
    if (c == '?') {
      if (n[ni] == '/') return false;
      ni += RuneLen(n, ni);
      ++pi;
      continue;
    }
    if (c == '[') {
      if (n[ni] == '/') return false;
      size_t len = 1;
      if (!MatchClass(p, &pi, n, ni, &len)) return false;
      ni += len;
      continue;
    }
    if (c == '\\' && pi + 1 < p.size()) ++pi;
    if (p[pi] != n[ni]) return false;
    ++pi;
    ++ni;
  }
  return ni == n.size();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view name) {
  std::string p(TrimSpace(pattern));
  if (pattern.empty() || !ValidGlob(p)) return false;
  std::vector<std::string> alternatives;
  ExpandBraces(p, &alternatives);
  for (const auto& a : alternatives) {
    if (MatchFrom(a, 0, name, 0)) return true;
  }
  return false;
}

bool MatchesFilters(const std::string& path, const std::vector<std::string>& include,
                    const std::vector<std::string>& exclude) {
  if (!include.empty()) {
    bool any = false;
    for (const auto& p : include) {
      if (GlobMatch(p, path)) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  for (const auto& p : exclude) {
    if (GlobMatch(p, path)) return false;
  }
  return true;
}

}  // namespace dagu::archive_paths
