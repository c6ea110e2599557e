#include "executors/ssh_command.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace dagu {
namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool ReadHex(const std::string& s, size_t at, size_t n, uint32_t* v) {
  if (at + n > s.size()) return false;
  *v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    *v = *v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(s[i])) ? s[i] - '0'
                                                                                         : std::tolower(s[i]) - 'a' + 10);
  }
  return true;
}

// Go's strconv.Unquote of a "..." literal (the quotes included); false when
// it is not a valid one (Go then keeps the text between the quotes).
bool GoUnquoteDouble(const std::string& token, std::string* out) {
  std::string s = token.substr(1, token.size() - 2);
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || c == '\n') return false;
    if (c != '\\') {
      r.push_back(c);
      continue;
    }
    if (++i >= s.size()) return false;
    uint32_t v = 0;
    switch (s[i]) {
      case 'a': r.push_back('\a'); break;
      case 'b': r.push_back('\b'); break;
      case 'f': r.push_back('\f'); break;
      case 'n': r.push_back('\n'); break;
      case 'r': r.push_back('\r'); break;
      case 't': r.push_back('\t'); break;
      case 'v': r.push_back('\v'); break;
      case '\\': r.push_back('\\'); break;
      case '"': r.push_back('"'); break;
      case 'x':
        if (!ReadHex(s, i + 1, 2, &v)) return false;
        r.push_back(static_cast<char>(v));
        i += 2;
        break;
      case 'u':
      case 'U': {
        size_t n = s[i] == 'u' ? 4 : 8;
        if (!ReadHex(s, i + 1, n, &v) || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return false;
        AppendUtf8(v, &r);
        i += n;
        break;
      }
      default:
        if (s[i] >= '0' && s[i] <= '7') {
          if (i + 2 >= s.size()) return false;
          for (size_t k = i; k < i + 3; ++k) {
            if (s[k] < '0' || s[k] > '7') return false;
            v = v * 8 + static_cast<uint32_t>(s[k] - '0');
          }
          if (v > 255) return false;
          r.push_back(static_cast<char>(v));
          i += 2;
          break;
        }
        return false;
    }
  }
  *out = r;
  return true;
}

std::string UnquoteToken(const std::string& token) {
  if (token.size() < 2) return token;
  char first = token.front(), last = token.back();
  if (first == '"' && last == '"') {
    std::string unquoted;
    if (GoUnquoteDouble(token, &unquoted)) return unquoted;
    return token.substr(1, token.size() - 2);
  }
  if (first == '\'' && last == '\'') return token.substr(1, token.size() - 2);
  return token;
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The words of one element of Dagu's pipeline parse: "|" and "||" and "&&"
// are words of their own outside quotes.
std::vector<std::string> Tokens(const std::string& line) {
  std::vector<std::string> tokens;
  std::string cur;
  bool dq = false, sq = false, bt = false, esc = false;
  auto flush = [&] {
    if (!cur.empty()) tokens.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (esc) {
      cur.push_back(c);
      esc = false;
    } else if (c == '\\') {
      cur.push_back(c);
      esc = true;
    } else if (c == '"' && !bt && !sq) {
      cur.push_back(c);
      dq = !dq;
    } else if (c == '\'' && !bt && !dq) {
      cur.push_back(c);
      sq = !sq;
    } else if (c == '`' && !sq) {
      cur.push_back(c);
      bt = !bt;
    } else if ((c == '|' || c == '&') && !dq && !sq && !bt) {
      bool doubled = i + 1 < line.size() && line[i + 1] == c;
      if (c == '&' && !doubled) {
        cur.push_back(c);  // a single & stays in the word
        continue;
      }
      flush();
      tokens.push_back(doubled ? std::string(2, c) : std::string(1, c));
      if (doubled) ++i;
    } else if (IsBlank(c) && !dq && !sq && !bt) {
      flush();
    } else {
      cur.push_back(c);
    }
  }
  flush();
  return tokens;
}

}  // namespace

bool SplitDaguCommand(const std::string& line, DaguCommand* out) {
  std::vector<std::vector<std::string>> pipeline;
  std::vector<std::string> current;
  for (const auto& token : Tokens(line)) {
    if (token == "|") {
      if (!current.empty()) pipeline.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(UnquoteToken(token));
    }
  }
  if (!current.empty()) pipeline.push_back(std::move(current));
  if (pipeline.empty() || pipeline.front().empty()) return false;
  DaguCommand c;
  c.command = pipeline.front().front();
  c.args.assign(pipeline.front().begin() + 1, pipeline.front().end());
  for (size_t i = 1; i < pipeline.size(); ++i) {
    c.args.push_back("|");
    c.args.insert(c.args.end(), pipeline[i].begin(), pipeline[i].end());
  }
  // Dagu trims the command word.
  size_t b = 0, e = c.command.size();
  while (b < e && IsBlank(c.command[b])) ++b;
  while (e > b && IsBlank(c.command[e - 1])) --e;
  c.command = c.command.substr(b, e - b);
  *out = std::move(c);
  return true;
}

std::string QuoteForShell(const std::string& word) {
  if (word.empty()) return "''";
  bool safe = std::all_of(word.begin(), word.end(), [](char ch) {
    unsigned char u = static_cast<unsigned char>(ch);
    return (u < 0x80 && std::isalnum(u)) || ch == '-' || ch == '_' || ch == '.' || ch == '/';
  });
  if (safe) return word;
  std::string out = "'";
  for (char ch : word) {
    if (ch == '\'') out += "'\\''";
    else out.push_back(ch);
  }
  return out + "'";
}

namespace {

// Dagu's rejoining of a command and its arguments for a shell: an argument
// already wrapped in quotes is kept; one holding a blank is double-quoted
// (its double quotes escaped) unless it is KEY="value".
std::string EscapedCommandString(const DaguCommand& c) {
  static const std::regex key_value(R"re(^[^\s=]+="[^"]+"$)re");
  std::string out = c.command;
  for (const auto& arg : c.args) {
    std::string a = arg;
    bool wrapped = a.size() >= 1 && ((a.front() == '"' && a.back() == '"') || (a.front() == '\'' && a.back() == '\''));
    if (!wrapped && a.find(' ') != std::string::npos && !std::regex_match(a, key_value)) {
      std::string q = "\"";
      for (char ch : a) {
        if (ch == '"') q += "\\\"";
        else q.push_back(ch);
      }
      a = q + "\"";
    }
    out += " " + a;
  }
  return out;
}

std::string ShellBase(const std::string& shell) {
  std::string name = shell.substr(shell.find_last_of('/') == std::string::npos ? 0 : shell.find_last_of('/') + 1);
  if (size_t p = name.find_last_of('\\'); p != std::string::npos) name = name.substr(p + 1);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".exe") == 0) name.resize(name.size() - 4);
  return name;
}

std::string CommandFlag(const std::string& shell) {
  std::string base = ShellBase(shell);
  if (base == "powershell" || base == "pwsh") return "-Command";
  if (base == "cmd") return "/c";
  if (base == "nix-shell") return "--run";
  return "-c";
}

}  // namespace

std::string RemoteCommandLine(const DaguCommand& command, const std::string& shell,
                              const std::vector<std::string>& shell_args) {
  if (shell.empty()) {
    std::string line = QuoteForShell(command.command);
    for (size_t i = 0; i < command.args.size(); ++i) line += (i == 0 ? " " : " ") + QuoteForShell(command.args[i]);
    return line;
  }
  std::string line = QuoteForShell(shell);
  for (const auto& a : shell_args) line += " " + QuoteForShell(a);
  const std::string flag = CommandFlag(shell);
  if (std::find(shell_args.begin(), shell_args.end(), flag) == shell_args.end()) line += " " + flag;
  return line + " " + QuoteForShell(EscapedCommandString(command));
}

}  // namespace dagu
