#include "cli/run_tree.h"

#include <time.h>

#include <cstdio>
#include <sstream>
#include <vector>

#include "store/sub_runs.h"

namespace dagu {
namespace {

constexpr const char* kBranch = "├─";
constexpr const char* kLastBranch = "└─";
constexpr const char* kPipe = "│ ";
constexpr const char* kSpace = "  ";

const char* BranchOf(bool last) { return last ? kLastBranch : kBranch; }
std::string ChildPrefix(const std::string& prefix, bool last) { return prefix + (last ? kSpace : kPipe); }

std::vector<std::string> Fields(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// Word wrap at `width` bytes; a longer word is cut into pieces.
std::vector<std::string> Wrap(const std::string& text, size_t width) {
  if (text.size() <= width) return {text};
  std::vector<std::string> lines;
  std::string line;
  for (std::string word : Fields(text)) {
    if (word.size() > width) {
      if (!line.empty()) lines.push_back(line);
      line.clear();
      while (word.size() > width) {
        lines.push_back(word.substr(0, width));
        word = word.substr(width);
      }
      line = word;
      continue;
    }
    if (line.empty()) {
      line = word;
    } else if (line.size() + 1 + word.size() <= width) {
      line += " " + word;
    } else {
      lines.push_back(line);
      line = word;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string TrimSpace(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\v\f");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r\v\f");
  return s.substr(b, e - b + 1);
}

std::string TrimRightSpace(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r' ||
                        s.back() == '\v' || s.back() == '\f')) {
    s.pop_back();
  }
  return s;
}

std::string DropControl(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 32 || c == '\t') out += c;
  }
  return out;
}

bool LooksBinary(const std::string& line) {
  if (line.empty()) return false;
  size_t odd = 0;
  for (char c : line) {
    if (c == '\0') return true;
    if (static_cast<unsigned char>(c) < 32 && c != '\t' && c != '\n' && c != '\r') ++odd;
  }
  return static_cast<double>(odd) / static_cast<double>(line.size()) > 0.3;
}

struct Tail {
  std::vector<std::string> lines;
  size_t cut = 0;  // lines left out before `lines`
};

// The last `max` non-blank lines of a log file, cleaned as Dagu shows them:
// a carriage return keeps the last segment (progress bars), control
// characters go, trailing blanks go.
Tail ReadTail(FileSystem* fs, const std::string& path, size_t max) {
  Tail tail;
  std::string text;
  if (path.empty() || !fs->ReadFile(path, &text).ok()) return tail;
  std::vector<std::string> all;
  size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (first) {
      first = false;
      if (LooksBinary(line)) return {{"(binary data)"}, 0};
    }
    if (line.find('\r') != std::string::npos) {
      std::vector<std::string> segments;
      size_t from = 0;
      for (size_t cr = line.find('\r'); cr != std::string::npos; cr = line.find('\r', from)) {
        segments.push_back(line.substr(from, cr - from));
        from = cr + 1;
      }
      segments.push_back(line.substr(from));
      for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
        std::string segment = TrimRightSpace(*it);
        if (!segment.empty()) {
          all.push_back(DropControl(segment));
          break;
        }
      }
      continue;
    }
    std::string cleaned = TrimRightSpace(DropControl(line));
    if (!cleaned.empty()) all.push_back(cleaned);
  }
  if (max > 0 && all.size() > max) {
    tail.cut = all.size() - max;
    all.erase(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(tail.cut));
  }
  tail.lines = std::move(all);
  return tail;
}

std::string LocalStamp(WallTime t) {
  time_t secs = std::chrono::system_clock::to_time_t(t);
  struct tm tm {};
  localtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

class Renderer {
 public:
  Renderer(FileSystem* fs, WallTime now, const RunTreeOptions& options) : fs_(fs), now_(now), opt_(options) {}

  std::string Render(const RunRecord& r) {
    std::string started = r.started_at.empty() || r.started_at == "-" ? LocalStamp(now_) : r.started_at;
    out_ << RunStatusDisplay(r.status) << " - " << started << "\n\n";
    std::string d = Duration(r.started_at, r.finished_at, r.status == RunStatus::kRunning);
    out_ << "dag: " << r.name;
    if (!d.empty()) out_ << " " << Gray("(" + d + ")");
    out_ << "\n";
    if (!r.nodes.empty()) out_ << "│\n";
    for (size_t i = 0; i < r.nodes.size(); ++i) Step(r.nodes[i], i + 1 == r.nodes.size(), "");
    out_ << "\n" << (r.status == RunStatus::kRunning ? "Status" : "Result") << ": " << RunStatusDisplay(r.status)
         << "\n";
    return out_.str();
  }

 private:
  std::string Text(const std::string& s) const { return opt_.color ? "\033[38;5;110m" + s + "\033[0m" : s; }
  std::string Gray(const std::string& s) const { return opt_.color ? "\033[38;5;245m" + s + "\033[0m" : s; }

  std::string Duration(const std::string& started, const std::string& finished, bool running) const {
    WallTime start, end;
    if (!ParseRecordTime(started, &start)) return "";
    if (!finished.empty() && finished != "-") {
      if (!ParseRecordTime(finished, &end)) end = now_;
    } else if (running) {
      end = now_;
    } else {
      return "";
    }
    return FormatShortDuration(end - start);
  }

  static std::string CommandText(const Json& c) {
    if (c.is_string()) return c.get<std::string>();
    if (!c.is_object()) return "";
    std::string with_args = c.value("cmdWithArgs", std::string());
    if (!with_args.empty()) return with_args;
    std::string text = c.value("command", std::string());
    if (auto a = c.find("args"); a != c.end() && a->is_array()) {
      for (const Json& arg : *a) {
        if (arg.is_string()) text += " " + arg.get<std::string>();
      }
    }
    return text;
  }

  static std::vector<std::string> Commands(const Json& step) {
    std::vector<std::string> out;
    if (auto c = step.find("commands"); c != step.end() && c->is_array() && !c->empty()) {
      for (const Json& entry : *c) out.push_back(CommandText(entry));
      return out;
    }
    std::string legacy = CommandText(step);
    if (!legacy.empty()) out.push_back(legacy);
    return out;
  }

  void CommandLine(const std::string& cmd, bool last, const std::string& prefix) {
    std::string branch = BranchOf(last);
    if (opt_.max_width > 0) {
      size_t used = prefix.size() + branch.size();
      size_t room = opt_.max_width > used ? opt_.max_width - used : 0;
      if (room > 20 && cmd.size() > room) {
        std::vector<std::string> lines = Wrap(cmd, room);
        for (size_t i = 0; i < lines.size(); ++i) {
          out_ << (i == 0 ? prefix + branch : ChildPrefix(prefix, last) + "  ") << Text(lines[i]) << "\n";
        }
        return;
      }
    }
    out_ << prefix << branch << Text(cmd) << "\n";
  }

  void Output(const std::string& label, const Tail& tail, bool last, const std::string& prefix) {
    if (tail.lines.empty()) return;
    std::string branch = BranchOf(last);
    std::string content = ChildPrefix(prefix, last);
    size_t width = opt_.max_width > content.size() + 2 ? opt_.max_width - content.size() - 2 : 0;
    if (width < 20) width = 20;
    auto line_out = [&](const std::string& line) {
      std::string trimmed = TrimSpace(line);
      if (trimmed.empty()) return;
      for (const std::string& l : trimmed.size() > width ? Wrap(trimmed, width) : std::vector<std::string>{trimmed}) {
        out_ << content << "  " << Text(l) << "\n";
      }
    };
    if (tail.cut > 0) {
      out_ << prefix << branch << Text(label + ": ... (" + std::to_string(tail.cut) + " more lines)") << "\n";
      for (const std::string& l : tail.lines) line_out(l);
    } else if (tail.lines.size() == 1) {
      std::string trimmed = TrimSpace(tail.lines[0]);
      std::string inline_text = label + ": " + trimmed;
      if (inline_text.size() <= width) {
        out_ << prefix << branch << Text(inline_text) << "\n";
      } else {
        out_ << prefix << branch << Text(label + ":") << "\n";
        line_out(trimmed);
      }
    } else {
      out_ << prefix << branch << Text(label + ":") << "\n";
      for (const std::string& l : tail.lines) line_out(l);
    }
  }

  void Error(const std::string& message, const std::string& prefix) {
    std::string cleaned = message;
    for (const char* marker : {"\nrecent stderr (tail):", "recent stderr (tail):"}) {
      size_t at = cleaned.find(marker);
      if (at != std::string::npos) {
        cleaned = TrimSpace(cleaned.substr(0, at));
        break;
      }
    }
    std::string text = "error: " + cleaned;
    size_t used = prefix.size() + std::string(kLastBranch).size();
    size_t width = opt_.max_width > used ? opt_.max_width - used : 0;
    if (width < 20) width = 20;
    if (text.size() <= width) {
      out_ << prefix << kLastBranch << Text(text) << "\n";
      return;
    }
    std::vector<std::string> lines = Wrap(text, width);
    for (size_t i = 0; i < lines.size(); ++i) {
      out_ << prefix << (i == 0 ? kLastBranch : "    ") << Text(lines[i]) << "\n";
    }
  }

  void Step(const NodeRecord& n, bool last, const std::string& prefix) {
    std::string line = Text(n.StepName());
    bool ran = n.status == NodeStatus::kSucceeded || n.status == NodeStatus::kFailed ||
               n.status == NodeStatus::kRunning || n.status == NodeStatus::kPartiallySucceeded;
    if (ran) {
      std::string d = Duration(n.started_at, n.finished_at, n.status == NodeStatus::kRunning);
      if (!d.empty()) line += " " + Gray("(" + d + ")");
    }
    if (n.status != NodeStatus::kNotStarted) line += " " + Text(std::string("[") + NodeStatusLabel(n.status) + "]");
    out_ << prefix << BranchOf(last) << line << "\n";
    if (n.status == NodeStatus::kSkipped || n.status == NodeStatus::kAborted || n.status == NodeStatus::kNotStarted) {
      if (!last) out_ << prefix << kPipe << "\n";
      return;
    }
    std::string child = ChildPrefix(prefix, last);
    Tail out = ReadTail(fs_, n.stdout_path, opt_.max_output_lines);
    Tail err = ReadTail(fs_, n.stderr_path, opt_.max_output_lines);
    bool has_output = !out.lines.empty() || !err.lines.empty();
    bool has_error = !n.error.empty() && n.status == NodeStatus::kFailed;
    std::vector<std::string> sub_runs;
    for (const SubRunRef& sub : NodeSubRuns(n)) {
      std::string info = "subdag: " + sub.dag_run_id;
      if (!sub.params.empty()) info += " [" + sub.params + "]";
      sub_runs.push_back(info);
    }
    bool has_sub = !sub_runs.empty();
    bool wrote = false;
    std::vector<std::string> commands = Commands(n.step);
    for (size_t i = 0; i < commands.size(); ++i) {
      CommandLine(commands[i], i + 1 == commands.size() && !has_output && !has_error && !has_sub, child);
      wrote = true;
    }
    auto spacing = [&] {
      if (wrote) out_ << child << "│\n";
      wrote = true;
    };
    if (has_output) {
      spacing();
      bool outputs_last = !has_error && !has_sub;
      Output("stdout", out, outputs_last && err.lines.empty(), child);
      Output("stderr", err, outputs_last, child);
    }
    if (has_sub) {
      spacing();
      for (size_t i = 0; i < sub_runs.size(); ++i) {
        out_ << child << BranchOf(i + 1 == sub_runs.size() && !has_error) << Text(sub_runs[i]) << "\n";
      }
    }
    if (has_error) {
      spacing();
      Error(n.error, child);
    }
    if (!last) out_ << prefix << kPipe << "\n";
  }

  FileSystem* fs_;
  WallTime now_;
  RunTreeOptions opt_;
  std::ostringstream out_;
};

}  // namespace

std::string FormatShortDuration(std::chrono::nanoseconds d) {
  using namespace std::chrono;
  if (d == nanoseconds::zero()) return "0s";
  if (d < nanoseconds::zero()) return "-" + FormatShortDuration(-d);
  char buf[64];
  if (d < seconds(1)) {
    std::snprintf(buf, sizeof buf, "%lldms", static_cast<long long>(duration_cast<milliseconds>(d).count()));
  } else if (d < minutes(1)) {
    std::snprintf(buf, sizeof buf, "%.1fs", duration<double>(d).count());
  } else if (d < hours(1)) {
    long long secs = duration_cast<seconds>(d).count();
    std::snprintf(buf, sizeof buf, "%lldm %llds", secs / 60, secs % 60);
  } else {
    long long mins = duration_cast<minutes>(d).count();
    std::snprintf(buf, sizeof buf, "%lldh %lldm", mins / 60, mins % 60);
  }
  return buf;
}

std::string RenderRunTree(const RunRecord& record, FileSystem* fs, WallTime now, const RunTreeOptions& options) {
  return Renderer(fs, now, options).Render(record);
}

}  // namespace dagu
