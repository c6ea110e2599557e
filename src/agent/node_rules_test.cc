#include "agent/node_rules.h"
#include "core/go_format.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace dagu {
namespace {

using namespace std::chrono_literals;
using NS = NodeStatus;

TEST(DependencyReadiness, Table) {
  struct Row {
    std::vector<DependencyView> deps;
    Readiness::Kind kind;
    std::string error;
  };
  const Row rows[] = {
      {{}, Readiness::kReady, ""},
      {{{NS::kSucceeded, true}, {NS::kPartiallySucceeded, true}}, Readiness::kReady, ""},
      {{{NS::kSucceeded, true}, {NS::kRunning, false}}, Readiness::kWait, ""},
      {{{NS::kNotStarted, false}}, Readiness::kWait, ""},
      {{{NS::kFailed, false}}, Readiness::kAbort, "upstream failed"},
      {{{NS::kFailed, true}}, Readiness::kReady, ""},
      {{{NS::kSkipped, false}}, Readiness::kSkip, "upstream skipped"},
      {{{NS::kSkipped, true}}, Readiness::kReady, ""},
      {{{NS::kAborted, false}}, Readiness::kAbort, ""},
      {{{NS::kRejected, false}}, Readiness::kAbort, "upstream rejected"},
      // The first dependency that is not through decides.
      {{{NS::kRunning, false}, {NS::kFailed, false}}, Readiness::kWait, ""},
      {{{NS::kSkipped, false}, {NS::kFailed, false}}, Readiness::kSkip, "upstream skipped"},
  };
  for (size_t i = 0; i < std::size(rows); ++i) {
    Readiness r = DependencyReadiness(rows[i].deps);
    EXPECT_EQ(r.kind, rows[i].kind) << "row " << i;
    EXPECT_EQ(r.error, rows[i].error) << "row " << i;
  }
}

TEST(ShouldContinue, Table) {
  ContinueOn none, failure, codes, output, skipped;
  failure.failure = true;
  codes.exit_codes = {3, 7};
  output.output = {"WARN"};
  skipped.skipped = true;
  struct Row {
    ContinueOn c;
    NS status;
    int exit_code;
    bool output_matches;
    bool want;
  };
  const Row rows[] = {
      {none, NS::kSucceeded, 0, false, true},      {none, NS::kPartiallySucceeded, 0, false, true},
      {none, NS::kFailed, 1, false, false},        {failure, NS::kFailed, 1, false, true},
      {codes, NS::kFailed, 7, false, true},        {codes, NS::kFailed, 1, false, false},
      {output, NS::kFailed, 1, true, true},        {output, NS::kFailed, 1, false, false},
      {none, NS::kFailed, 1, true, false},         {none, NS::kSkipped, 0, false, false},
      {skipped, NS::kSkipped, 0, false, true},     {failure, NS::kAborted, 0, false, false},
      {failure, NS::kNotStarted, 0, false, false},
  };
  for (size_t i = 0; i < std::size(rows); ++i) {
    const Row& r = rows[i];
    EXPECT_EQ(ShouldContinue(r.c, r.status, r.exit_code, r.output_matches), r.want) << "row " << i;
  }
  EXPECT_TRUE(RecordsContinueDecision(none));
  EXPECT_FALSE(RecordsContinueDecision(failure));
  EXPECT_EQ(ContinueOnVariable("build"), "DAGU_CONTINUE_ON.build");
}

TEST(OutputMatches, LinesSubstringsAndRegexes) {
  EXPECT_TRUE(OutputMatches({"WARN"}, "ok\nsome WARNING here\n"));
  EXPECT_FALSE(OutputMatches({"WARN"}, "ok\n"));
  EXPECT_TRUE(OutputMatches({"re:^W.*N$"}, "x\nWARN\n"));
  EXPECT_FALSE(OutputMatches({"re:^WARN$"}, "a WARN\n"));
  EXPECT_FALSE(OutputMatches({"re:("}, "(\n"));  // a bad regex matches nothing
}

TEST(MatchesExpected, ExactOrRegex) {
  EXPECT_TRUE(MatchesExpected("prod", "prod"));
  EXPECT_FALSE(MatchesExpected("prod ", "prod"));
  EXPECT_TRUE(MatchesExpected("3", "re:^[1-5]$"));
  EXPECT_TRUE(MatchesExpected("abc", "re:b"));  // found anywhere
  EXPECT_FALSE(MatchesExpected("6", "re:^[1-5]$"));
  EXPECT_FALSE(MatchesExpected("x", "re:("));
}

TEST(BackoffInterval, ConstantExponentialAndCapped) {
  EXPECT_EQ(BackoffInterval(10s, 0, 0s, 0), 10s);
  EXPECT_EQ(BackoffInterval(10s, 0, 0s, 5), 10s);
  EXPECT_EQ(BackoffInterval(10s, 2.0, 0s, 0), 10s);
  EXPECT_EQ(BackoffInterval(10s, 2.0, 0s, 1), 20s);
  EXPECT_EQ(BackoffInterval(10s, 2.0, 0s, 2), 40s);
  EXPECT_EQ(BackoffInterval(10s, 2.0, 30s, 2), 30s);
  EXPECT_EQ(BackoffInterval(1s, 1.5, 0s, 2), 2250ms);
}

TEST(ShouldRetry, LimitAndExitCodes) {
  RetryPolicy p;
  p.limit = 2;
  EXPECT_TRUE(ShouldRetry(p, 0, 1));
  EXPECT_TRUE(ShouldRetry(p, 1, 1));
  EXPECT_FALSE(ShouldRetry(p, 2, 1));
  p.exit_codes = {75};
  EXPECT_TRUE(ShouldRetry(p, 0, 75));
  EXPECT_FALSE(ShouldRetry(p, 0, 1));
  EXPECT_FALSE(ShouldRetry(RetryPolicy(), 0, 1));
}

TEST(ShouldRepeat, Table) {
  RepeatPolicy off;
  RepeatPolicy legacy;  // repeat: true
  legacy.enabled = true;
  RepeatPolicy limited = legacy;
  limited.limit = 3;
  RepeatPolicy while_codes = legacy;
  while_codes.mode = "while";
  while_codes.exit_codes = {1};
  RepeatPolicy until_codes = while_codes;
  until_codes.mode = "until";
  RepeatPolicy while_cond = legacy;
  while_cond.mode = "while";
  while_cond.condition = Condition{"x", "", false};
  RepeatPolicy until_cond = while_cond;
  until_cond.mode = "until";
  RepeatPolicy until_plain = legacy;
  until_plain.mode = "until";
  struct Row {
    RepeatPolicy p;
    RepeatInput in;
    bool want;
  };
  const Row rows[] = {
      {off, {1, false, 0, {}}, false},
      {legacy, {1, false, 0, {}}, true},
      {legacy, {1, true, 1, {}}, false},
      {limited, {2, false, 0, {}}, true},
      {limited, {3, false, 0, {}}, false},
      {while_codes, {1, true, 1, {}}, true},
      {while_codes, {1, false, 0, {}}, false},
      {until_codes, {1, true, 1, {}}, false},
      {until_codes, {1, false, 0, {}}, true},
      {while_cond, {1, false, 0, true}, true},
      {while_cond, {1, false, 0, false}, false},
      {until_cond, {1, false, 0, false}, true},
      {until_cond, {1, false, 0, true}, false},
      {until_plain, {1, true, 1, {}}, true},
      {until_plain, {1, false, 0, {}}, false},
  };
  for (size_t i = 0; i < std::size(rows); ++i) {
    EXPECT_EQ(ShouldRepeat(rows[i].p, rows[i].in), rows[i].want) << "row " << i;
  }
}

TEST(FinalRunStatus, Table) {
  struct Row {
    std::vector<NodeView> nodes;
    bool cancelled;
    bool has_error;
    RunStatus want;
  };
  const Row rows[] = {
      {{{NS::kSucceeded, true, false}}, false, false, RunStatus::kSucceeded},
      {{{NS::kSucceeded, true, false}, {NS::kSkipped, false, false}}, false, false, RunStatus::kSucceeded},
      {{{NS::kFailed, false, false}}, false, true, RunStatus::kFailed},
      // A continued failure next to a success: partial, even with the error.
      {{{NS::kFailed, true, false}, {NS::kSucceeded, true, false}}, false, true, RunStatus::kPartiallySucceeded},
      // ... but a lone continued failure fails.
      {{{NS::kFailed, true, false}}, false, true, RunStatus::kFailed},
      // mark_success: no partial success.
      {{{NS::kFailed, true, true}, {NS::kSucceeded, true, false}}, false, false, RunStatus::kSucceeded},
      // A failure nobody continues spoils partial success.
      {{{NS::kFailed, true, false}, {NS::kFailed, false, false}, {NS::kSucceeded, true, false}},
       false, true, RunStatus::kFailed},
      {{{NS::kSucceeded, true, false}, {NS::kNotStarted, false, false}}, true, false, RunStatus::kAborted},
      // Cancelled after everything succeeded: still succeeded.
      {{{NS::kSucceeded, true, false}}, true, false, RunStatus::kSucceeded},
      {{{NS::kAborted, false, false}, {NS::kSucceeded, true, false}}, false, true, RunStatus::kFailed},
      // An approval step waiting: the run waits, even next to a failure (1.30.2's Status).
      {{{NS::kSucceeded, true, false}, {NS::kWaiting, false, false}}, false, false, RunStatus::kWaiting},
      {{{NS::kFailed, false, false}, {NS::kWaiting, false, false}}, false, true, RunStatus::kWaiting},
      // A rejected step wins over a waiting one; a stop wins over both.
      {{{NS::kRejected, false, false}, {NS::kWaiting, false, false}}, false, false, RunStatus::kRejected},
      {{{NS::kWaiting, false, false}}, true, false, RunStatus::kAborted},
  };
  for (size_t i = 0; i < std::size(rows); ++i) {
    EXPECT_EQ(FinalRunStatus(rows[i].nodes, rows[i].cancelled, rows[i].has_error), rows[i].want) << "row " << i;
  }
}

TEST(Signals, NamesAndTexts) {
  EXPECT_EQ(SignalNumber("SIGINT"), SIGINT);
  EXPECT_EQ(SignalNumber("SIGKILL"), SIGKILL);
  EXPECT_EQ(SignalNumber("TERM"), 0);
  EXPECT_EQ(SignalNumber(""), 0);
  EXPECT_EQ(SignalText(SIGTERM), "signal: terminated");
  EXPECT_EQ(SignalText(SIGKILL), "signal: killed");
}

}  // namespace
}  // namespace dagu
