#include "agent/node_rules.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

namespace dagu {

Readiness DependencyReadiness(const std::vector<DependencyView>& deps) {
  for (const DependencyView& d : deps) {
    switch (d.status) {
      case NodeStatus::kSucceeded:
      case NodeStatus::kPartiallySucceeded:
        continue;
      case NodeStatus::kFailed:
        if (d.should_continue) continue;
        return {Readiness::kAbort, "upstream failed"};
      case NodeStatus::kSkipped:
        if (d.should_continue) continue;
        return {Readiness::kSkip, "upstream skipped"};
      case NodeStatus::kAborted:
        return {Readiness::kAbort, ""};
      case NodeStatus::kRejected:
        return {Readiness::kAbort, "upstream rejected"};
      default:
        return {Readiness::kWait, ""};
    }
  }
  return {Readiness::kReady, ""};
}

bool ShouldContinue(const ContinueOn& c, NodeStatus status, int exit_code, bool output_matches) {
  switch (status) {
    case NodeStatus::kSucceeded:
    case NodeStatus::kPartiallySucceeded:
      return true;
    case NodeStatus::kSkipped:
      return c.skipped;
    case NodeStatus::kFailed:
      if (c.failure) return true;
      if (std::find(c.exit_codes.begin(), c.exit_codes.end(), exit_code) != c.exit_codes.end()) return true;
      return !c.output.empty() && output_matches;
    default:
      return false;
  }
}

bool RecordsContinueDecision(const ContinueOn& c) { return !c.failure; }

std::string ContinueOnVariable(const std::string& step_name) { return "DAGU_CONTINUE_ON." + step_name; }

bool OutputMatches(const std::vector<std::string>& patterns, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    for (const auto& p : patterns) {
      if (p.rfind("re:", 0) == 0) {
        try {
          if (std::regex_search(line, std::regex(p.substr(3)))) return true;
        } catch (const std::regex_error&) {
        }
      } else if (line.find(p) != std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

bool MatchesExpected(const std::string& value, const std::string& expected) {
  if (expected.rfind("re:", 0) == 0) {
    try {
      return std::regex_search(value, std::regex(expected.substr(3)));
    } catch (const std::regex_error&) {
      return false;
    }
  }
  return value == expected;
}

Duration BackoffInterval(Duration interval, double backoff, Duration max_interval, int attempt) {
  if (backoff <= 0) return interval;
  double d = static_cast<double>(interval.count()) * std::pow(backoff, attempt);
  if (max_interval.count() > 0 && d > static_cast<double>(max_interval.count())) return max_interval;
  return Duration(static_cast<int64_t>(d));
}

bool ShouldRetry(const RetryPolicy& policy, int retries_so_far, int exit_code) {
  if (retries_so_far >= policy.limit) return false;
  return policy.exit_codes.empty() ||
         std::find(policy.exit_codes.begin(), policy.exit_codes.end(), exit_code) != policy.exit_codes.end();
}

bool ShouldRepeat(const RepeatPolicy& policy, const RepeatInput& in) {
  if (!policy.enabled) return false;
  if (policy.limit > 0 && in.done_count >= policy.limit) return false;
  const bool has_codes = !policy.exit_codes.empty();
  const bool in_codes =
      has_codes && std::find(policy.exit_codes.begin(), policy.exit_codes.end(), in.exit_code) != policy.exit_codes.end();
  if (policy.mode == "until") {
    if (policy.condition) return !in.condition_met.value_or(false);
    if (has_codes) return !in_codes;
    return in.failed;
  }
  // "while", and the legacy `repeat: true`.
  if (policy.condition) return in.condition_met.value_or(false);
  if (has_codes) return in_codes;
  return !in.failed;
}

RunStatus FinalRunStatus(const std::vector<NodeView>& nodes, bool cancelled, bool has_error) {
  if (cancelled) {
    bool all_fine = std::all_of(nodes.begin(), nodes.end(), [](const NodeView& n) {
      return n.status == NodeStatus::kSucceeded || n.status == NodeStatus::kSkipped ||
             n.status == NodeStatus::kPartiallySucceeded;
    });
    if (!all_fine) return RunStatus::kAborted;
  }
  // A rejected approval step, then one still waiting, decide before the rest.
  auto any = [&](NodeStatus s) {
    return std::any_of(nodes.begin(), nodes.end(), [s](const NodeView& n) { return n.status == s; });
  };
  if (any(NodeStatus::kRejected)) return RunStatus::kRejected;
  if (any(NodeStatus::kWaiting)) return RunStatus::kWaiting;
  bool blocked = false, succeeded = false, continued = false;
  for (const NodeView& n : nodes) {
    if (n.status == NodeStatus::kFailed && !n.should_continue) blocked = true;
    if (n.status == NodeStatus::kSucceeded) succeeded = true;
    if (n.status == NodeStatus::kFailed && n.should_continue && !n.mark_success) continued = true;
    if (n.status == NodeStatus::kPartiallySucceeded) succeeded = continued = true;
  }
  if (!blocked && succeeded && continued) return RunStatus::kPartiallySucceeded;
  return has_error ? RunStatus::kFailed : RunStatus::kSucceeded;
}

int SignalNumber(const std::string& name) {
  static const std::pair<const char*, int> kSignals[] = {
      {"SIGHUP", SIGHUP},   {"SIGINT", SIGINT},     {"SIGQUIT", SIGQUIT}, {"SIGILL", SIGILL},
      {"SIGTRAP", SIGTRAP}, {"SIGABRT", SIGABRT},   {"SIGBUS", SIGBUS},   {"SIGFPE", SIGFPE},
      {"SIGKILL", SIGKILL}, {"SIGUSR1", SIGUSR1},   {"SIGSEGV", SIGSEGV}, {"SIGUSR2", SIGUSR2},
      {"SIGPIPE", SIGPIPE}, {"SIGALRM", SIGALRM},   {"SIGTERM", SIGTERM}, {"SIGCHLD", SIGCHLD},
      {"SIGCONT", SIGCONT}, {"SIGSTOP", SIGSTOP},   {"SIGTSTP", SIGTSTP}, {"SIGTTIN", SIGTTIN},
      {"SIGTTOU", SIGTTOU}, {"SIGURG", SIGURG},     {"SIGXCPU", SIGXCPU}, {"SIGXFSZ", SIGXFSZ},
      {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF}, {"SIGWINCH", SIGWINCH}, {"SIGIO", SIGIO},
      {"SIGPWR", SIGPWR},   {"SIGSYS", SIGSYS}};
  for (const auto& [n, v] : kSignals) {
    if (name == n) return v;
  }
  return 0;
}

}  // namespace dagu
