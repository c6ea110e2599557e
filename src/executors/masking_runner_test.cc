#include "executors/masking_runner.h"

#include <gtest/gtest.h>

#include "executors/executor_test_util.h"
#include "executors/shell_runner.h"

namespace dagu {
namespace {

TEST(StreamMaskerTest, MasksValuesSplitAcrossWrites) {
  Masker masker({{"A", "secret"}, {"B", "sec"}});
  StreamMasker stream(&masker);
  std::string out = stream.Feed("xx se");
  out += stream.Feed("cret yy s");
  out += stream.Feed("ec");
  out += stream.Finish();
  EXPECT_EQ(out, "xx ******* yy *******");
}

TEST(StreamMaskerTest, ByteByByteEqualsMaskingTheWhole) {
  Masker masker({{"A", "abcab"}, {"B", "ca"}});
  const std::string text = "abcabcabcacaabcab-ca";
  StreamMasker stream(&masker);
  std::string out;
  for (char c : text) out += stream.Feed(std::string(1, c));
  out += stream.Finish();
  EXPECT_EQ(out, masker.Mask(text));
}

TEST(MaskingRunnerTest, ShellStepLogsAreMasked) {
  testing::StepFixture f;
  f.step.commands = {"echo \"token=$TOKEN\"; echo \"err $TOKEN\" >&2; printf %s \"$TOKEN\""};
  StepInvocation inv = f.Inv();
  inv.shell = "/bin/sh";
  inv.env.push_back("TOKEN=supersecret123");
  inv.extra_stdout_path = f.dir.Sub("copy.out");
  Masker masker(std::vector<ResolvedSecret>{{"TOKEN", "supersecret123"}});
  ShellRunner shell;
  MaskingRunner runner(&shell, &masker);
  StepResult r = runner.Start(inv)->Wait();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(f.Out(), "token=*******\n*******");
  EXPECT_EQ(f.Err(), "err *******\n");
  EXPECT_EQ(testing::ReadFile(f.dir.Sub("copy.out")), "token=*******\n*******");
  // The captured stdout stays as it was: the agent masks where it stores it.
  EXPECT_EQ(r.captured_stdout, "token=supersecret123\nsupersecret123");
}

TEST(MaskingRunnerTest, FailedStartLeavesNoFifosBehind) {
  testing::StepFixture f;
  f.step.commands = {"true"};
  StepInvocation inv = f.Inv();
  inv.shell = "/nonexistent/shell";
  Masker masker(std::vector<ResolvedSecret>{{"T", "value"}});
  ShellRunner shell;
  MaskingRunner runner(&shell, &masker);
  StepResult r = runner.Start(inv)->Wait();
  EXPECT_TRUE(!r.started || r.exit_code != 0);
  EXPECT_EQ(testing::ReadFile(f.dir.Sub("s.out")), "");
}

}  // namespace
}  // namespace dagu
