#include "support/run_records.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sha256.h"

namespace fs = std::filesystem;

namespace dagu::testing {
namespace {

std::vector<fs::path> SortedChildren(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

// The last line of `file` that parses as a JSON object.
bool LastValidLine(const fs::path& file, nlohmann::json* out) {
  std::ifstream in(file);
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() && parsed.is_object()) {
      *out = std::move(parsed);
      found = true;
    }
  }
  return found;
}

RunRecord ReadRun(const fs::path& run_dir) {
  RunRecord r;
  r.run_dir = run_dir.string();
  std::string name = run_dir.filename().string();  // dag-run_<YYYYMMDD_HHMMSS>Z_<id>
  auto z = name.find("Z_", 8);
  r.run_id = z == std::string::npos ? name : name.substr(z + 2);
  for (const auto& child : SortedChildren(run_dir)) {
    if (child.filename().string().starts_with("attempt_")) r.attempt_dirs.push_back(child.string());
  }
  std::reverse(r.attempt_dirs.begin(), r.attempt_dirs.end());
  for (const auto& attempt : r.attempt_dirs) {
    fs::path status_file = fs::path(attempt) / "status.jsonl";
    if (!fs::exists(status_file)) continue;
    r.has_status = LastValidLine(status_file, &r.status);
    break;
  }
  return r;
}

}  // namespace

int RunRecord::status_code() const {
  if (!has_status || !status.contains("status") || !status["status"].is_number_integer()) return -1;
  return status["status"].get<int>();
}

int RunRecord::trigger_type() const {
  if (!has_status || !status.contains("triggerType") || !status["triggerType"].is_number_integer()) return -1;
  return status["triggerType"].get<int>();
}

std::string RunRecord::Field(const char* key) const {
  if (!has_status || !status.contains(key) || !status[key].is_string()) return "";
  return status[key].get<std::string>();
}

std::string RunRecord::Describe() const {
  std::ostringstream os;
  os << "run " << run_id << " dir=" << run_dir << " attempts=" << attempt_dirs.size();
  if (!has_status) {
    os << " status=(no valid status line)";
    return os.str();
  }
  os << " status=" << status_code();
  if (status.contains("triggerType")) os << " triggerType=" << status["triggerType"].dump();
  for (const char* key : {"scheduleTime", "queuedAt", "startedAt", "finishedAt", "error"}) {
    if (status.contains(key)) os << " " << key << "=" << status[key].dump();
  }
  if (status.contains("pid")) os << " pid=" << status["pid"].dump();
  return os.str();
}

std::string DagRunsDirName(const std::string& dag_name) {
  std::string safe;
  for (char c : dag_name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    safe.push_back(ok ? c : '_');
  }
  if (safe.size() > 100) safe.resize(100);
  if (safe != dag_name) safe += "-" + Sha256Hex(dag_name).substr(0, 4);
  return safe;
}

std::vector<RunRecord> ReadRunRecords(const std::string& data_dir, const std::string& dag_name) {
  std::vector<RunRecord> runs;
  fs::path root = fs::path(data_dir) / "dag-runs" / DagRunsDirName(dag_name) / "dag-runs";
  for (const auto& year : SortedChildren(root)) {
    if (!year.filename().string().starts_with("2")) continue;  // skips .dagu_lock and friends
    for (const auto& month : SortedChildren(year)) {
      for (const auto& day : SortedChildren(month)) {
        for (const auto& run : SortedChildren(day)) {
          if (run.filename().string().starts_with("dag-run_")) runs.push_back(ReadRun(run));
        }
      }
    }
  }
  return runs;
}

std::vector<RunRecord> RunsWithId(const std::vector<RunRecord>& runs, const std::string& run_id) {
  std::vector<RunRecord> out;
  for (const auto& r : runs) {
    if (r.run_id == run_id) out.push_back(r);
  }
  return out;
}

std::vector<std::string> ListQueueItems(const std::string& data_dir) {
  std::vector<std::string> out;
  for (const auto& queue : SortedChildren(fs::path(data_dir) / "queue")) {
    for (const auto& item : SortedChildren(queue)) {
      std::string n = item.filename().string();
      if (n.starts_with("item_high_") || n.starts_with("item_low_")) out.push_back(item.string());
    }
  }
  return out;
}

SysTime FloorMinute(SysTime t) { return std::chrono::floor<std::chrono::minutes>(t); }

std::string SlotStamp(SysTime t) {
  time_t secs = std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(t));
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &tm);
  return buf;
}

std::string SlotRunId(const std::string& data_dir, const std::string& dag_name, SysTime slot) {
  std::string dir = fs::absolute(data_dir).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return "sched-" + Sha256Hex(dir + "\n" + dag_name).substr(0, 12) + "-" + SlotStamp(slot);
}

std::string DumpTree(const std::string& dir, size_t max_bytes) {
  std::ostringstream os;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return dir + ": (missing)\n";
  std::vector<fs::path> entries;
  if (fs::is_directory(dir, ec)) {
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(it->path());
    }
  } else {
    entries.push_back(dir);
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& p : entries) {
    if (fs::is_directory(p, ec)) {
      os << p.string() << "/\n";
      continue;
    }
    std::ifstream in(p, std::ios::binary);
    std::string contents(max_bytes, '\0');
    in.read(contents.data(), static_cast<std::streamsize>(max_bytes));
    contents.resize(static_cast<size_t>(in.gcount()));
    os << p.string() << ": " << contents << (contents.size() == max_bytes ? " [...]" : "") << "\n";
  }
  return os.str();
}

bool AgeRun(const std::string& data_dir, const std::string& dag_name, const std::string& run_id, int days,
            std::string* error) {
  namespace fs = std::filesystem;
  std::string root = data_dir + "/dag-runs/" + DagRunsDirName(dag_name) + "/dag-runs";
  fs::path found;
  for (const RunRecord& r : ReadRunRecords(data_dir, dag_name)) {
    if (r.run_id == run_id) found = r.run_dir;
  }
  if (found.empty()) {
    *error = "run " + run_id + " of " + dag_name + " not found under " + root;
    return false;
  }
  auto when = std::chrono::system_clock::now() - std::chrono::hours(24 * days);
  time_t secs = std::chrono::system_clock::to_time_t(when);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char day[16], stamp[32];
  std::strftime(day, sizeof day, "%Y/%m/%d", &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%SZ", &tm);
  fs::path target = fs::path(root) / day / ("dag-run_" + std::string(stamp) + "_" + run_id);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  fs::rename(found, target, ec);
  if (ec) {
    *error = ec.message();
    return false;
  }
  auto file_time = fs::file_time_type::clock::now() - std::chrono::hours(24 * days);
  for (const auto& e : fs::recursive_directory_iterator(target)) fs::last_write_time(e.path(), file_time, ec);
  fs::last_write_time(target, file_time, ec);
  return true;
}

std::string HostUniqueRunId(const std::string& prefix) { return prefix + "-" + std::to_string(::getpid()); }

}  // namespace dagu::testing
