// `dagu cleanup [--retention-days N] [--dry-run] [-y] <DAG name>`: deletes
// a DAG's runs (records and log files) older than N days (0: all), never an
// active one, after a confirmation prompt on stdin (skipped by -y or -q).
// The rule and the crash-safe deletion are HistoryRetention's
// (src/retention/history_retention.h); the messages and exit statuses are
// Dagu 1.30.2's.
#include <iostream>
#include <string>

#include "agent/dag_ref.h"
#include "cli/help.h"
#include "cli/run_support.h"
#include "core/exit_codes.h"
#include "retention/history_retention.h"

namespace dagu::cli {
namespace {

struct CleanupArgs {
  CommonFlags flags;
  std::string retention_days = "0";
  bool dry_run = false;
  bool yes = false;
  std::string dag;
};

// Go's %q for the names Dagu prints.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// As Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
bool ParseDays(const std::string& text, int* out) {
  size_t i = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (i == text.size() || text.size() - i > 9) return false;
  for (size_t j = i; j < text.size(); ++j) {
    if (text[j] < '0' || text[j] > '9') return false;
  }
  *out = std::stoi(text);
  return true;
}

// Asks on stdout, reads one line from stdin. False (with *error set) when
// stdin ends before a newline.
bool Confirm(const std::string& what, bool* yes, std::string* error) {
  std::cout << "This will delete " << what << ".\n"
            << "Active runs will be preserved.\n"
            << "Continue? [y/N]: " << std::flush;
  std::string line;
  if (!std::getline(std::cin, line) || std::cin.eof()) {
    *error = "failed to read user input: EOF";
    return false;
  }
  size_t b = line.find_first_not_of(" \t\r");
  size_t e = line.find_last_not_of(" \t\r");
  std::string answer = b == std::string::npos ? "" : line.substr(b, e - b + 1);
  for (char& c : answer) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  *yes = answer == "y" || answer == "yes";
  return true;
}

int RunCleanup(const CleanupArgs& a) {
  int days = 0;
  if (!ParseDays(a.retention_days, &days)) {
    return CommandError("invalid retention-days value " + Quoted(a.retention_days) +
                        ": must be a non-negative integer");
  }
  if (days < 0) return CommandError("retention-days cannot be negative (got " + std::to_string(days) + ")");
  RunContext ctx;
  if (int rc = Setup(a.flags, "cleanup", &ctx); rc != kExitOk) return rc;
  std::string name = DagNameFromArg(a.dag, ctx.config.paths.dags_dir, ctx.dag_options);
  RunStore runs = ctx.Runs();
  HistoryRetention retention(PosixFileSystem(), Clock::Real(), &runs);
  std::vector<RunDir> expired;
  if (a.dry_run) {
    Status s = retention.Expired(name, days, &expired);
    if (!s.ok()) return CommandError("failed to check history for " + Quoted(name) + ": " + s.message());
    if (expired.empty()) {
      std::cout << "Dry run: No runs to delete for DAG " << Quoted(name) << "\n";
    } else {
      std::cout << "Dry run: Would delete " << expired.size() << " run(s) for DAG " << Quoted(name) << ":\n";
      for (const RunDir& r : expired) std::cout << "  - " << r.run_id << "\n";
    }
    return kExitOk;
  }
  if (!a.yes && !a.flags.quiet) {
    std::string what = days == 0 ? "all history for DAG " + Quoted(name)
                                  : "history older than " + std::to_string(days) + " days for DAG " + Quoted(name);
    bool go = false;
    std::string error;
    if (!Confirm(what, &go, &error)) return CommandError(error);
    if (!go) {
      std::cout << "Cancelled.\n";
      return kExitOk;
    }
  }
  std::vector<std::string> removed;
  Status s = retention.Expired(name, days, &expired);
  if (s.ok()) s = retention.Remove(name, days, expired, &removed);
  if (!s.ok()) return CommandError("failed to cleanup history for " + Quoted(name) + ": " + s.message());
  if (!a.flags.quiet) {
    if (removed.empty()) {
      std::cout << "No runs to delete for DAG " << Quoted(name) << "\n";
    } else {
      std::cout << "Successfully removed " << removed.size() << " run(s) for DAG " << Quoted(name) << "\n";
    }
  }
  return kExitOk;
}

}  // namespace

void AddCleanupCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<CleanupArgs>();
  auto* cmd = app.add_subcommand("cleanup", "Remove old DAG run history");
  SetCommandDoc(cmd, {"cleanup [flags] <DAG name>",
                      "Delete the run history (records and log files) of one DAG. Without\n"
                      "--retention-days every run goes; with it, runs of the last N days stay.\n"
                      "Active runs (running, queued, waiting) are never deleted. The command asks\n"
                      "for confirmation on stdin unless -y or -q is given.\n\n"
                      "Examples:\n"
                      "  dagu cleanup my-workflow                      # Delete all history (with confirmation)\n"
                      "  dagu cleanup --retention-days 30 my-workflow  # Keep last 30 days\n"
                      "  dagu cleanup --dry-run my-workflow            # Preview what would be deleted\n"
                      "  dagu cleanup -y my-workflow                   # Skip confirmation"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("--retention-days", a->retention_days,
                  "Number of days to retain history (0 = delete all, except active runs)")
      ->default_str("0");
  cmd->add_flag("--dry-run", a->dry_run, "Preview what would be deleted without actually deleting");
  cmd->add_flag("-y,--yes", a->yes, "Skip confirmation prompt");
  cmd->add_option("dag", a->dag, "DAG name")->required();
  cmd->callback([a, exit_code] { *exit_code = RunCleanup(*a); });
}

}  // namespace dagu::cli
