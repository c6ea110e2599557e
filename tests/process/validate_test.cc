// Process-level tests of `dagu validate`: every file of
// tests/fixtures/broken-dags has one problem, announced by its first line
// "# expect: LINE:COL: text"; validate must report it at that position and
// exit 1. The good fixtures and the example home's DAGs must pass.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;

const std::string kSource = DAGU_SOURCE_DIR;
const std::string kBroken = kSource + "/tests/fixtures/broken-dags";

struct Expectation {
  std::string file;      // path of the fixture
  std::string position;  // "LINE:COL"
  std::string text;
};

std::vector<Expectation> BrokenFixtures() {
  std::vector<Expectation> out;
  for (const auto& entry : std::filesystem::directory_iterator(kBroken)) {
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    const std::string prefix = "# expect: ";
    EXPECT_EQ(first.rfind(prefix, 0), 0u) << entry.path() << " lacks an expect line";
    std::string rest = first.substr(prefix.size());
    size_t colon = rest.find(':', rest.find(':') + 1);
    out.push_back({entry.path().string(), rest.substr(0, colon), rest.substr(colon + 2)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  return out;
}

class ValidateTest : public ::testing::Test {
 protected:
  ValidateTest() {
    // A home without a config file: validate must not need one.
    env_["HOME"] = dir_.Sub("user");
    env_["DAGU_HOME"] = dir_.Sub("home");
    env_["DAGU_TZ"] = "";
  }

  // Runs `dagu validate <args>`; returns the exit status and fills *output.
  int Validate(const std::vector<std::string>& args, std::string* output) {
    std::vector<std::string> argv{DAGU_BINARY, "validate"};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess proc;
    EXPECT_TRUE(proc.Start(argv, env_, dir_.Sub("run-" + std::to_string(runs_++) + ".log")));
    std::optional<int> status = proc.Wait(std::chrono::seconds(30));
    EXPECT_TRUE(status.has_value()) << "dagu validate did not exit";
    *output = proc.Output();
    return status.value_or(-1);
  }

  TempDir dir_;
  std::map<std::string, std::string> env_;
  int runs_ = 0;
};

// The line of `output` that reports `e`, or "".
std::string ReportLine(const std::string& output, const Expectation& e) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(e.file + ":" + e.position + ": ", 0) == 0 && line.find(e.text) != std::string::npos) return line;
  }
  return "";
}

TEST_F(ValidateTest, TheBrokenFolderReportsEveryProblemAtItsPosition) {
  std::vector<Expectation> fixtures = BrokenFixtures();
  ASSERT_GE(fixtures.size(), 40u);
  std::string output;
  EXPECT_EQ(Validate({kBroken}, &output), 1);
  for (const Expectation& e : fixtures) {
    EXPECT_NE(ReportLine(output, e), "") << "no \"" << e.file << ":" << e.position << ": ..." << e.text
                                         << "\" in:\n" << output;
    EXPECT_THAT(output, ::testing::Not(HasSubstr("OK " + e.file)));
  }
  EXPECT_THAT(output, HasSubstr(std::to_string(fixtures.size()) + " of " + std::to_string(fixtures.size()) +
                                " files failed validation"));
}

TEST_F(ValidateTest, EachBrokenFileFailsOnItsOwn) {
  for (const Expectation& e : BrokenFixtures()) {
    std::string output;
    EXPECT_EQ(Validate({e.file}, &output), 1) << output;
    EXPECT_NE(ReportLine(output, e), "") << e.text << " not in:\n" << output;
  }
}

TEST_F(ValidateTest, GoodFixturesPass) {
  std::string output;
  EXPECT_EQ(Validate({kSource + "/tests/fixtures/good-dags"}, &output), 0) << output;
  EXPECT_THAT(output, HasSubstr("OK " + kSource + "/tests/fixtures/good-dags/legacy-etl.yaml (DAG \"legacy-etl\")"));
  EXPECT_THAT(output, HasSubstr("good-dags/hello.yaml (DAG \"hello\")"));
  EXPECT_THAT(output, ::testing::Not(HasSubstr("error")));
}

TEST_F(ValidateTest, ExampleHomeDagsPass) {
  const std::string dags = kSource + "/examples/home/dags";
  ASSERT_TRUE(std::filesystem::is_directory(dags)) << dags;
  std::string output;
  EXPECT_EQ(Validate({dags}, &output), 0) << output;
  EXPECT_THAT(output, HasSubstr("OK " + dags + "/"));
}

TEST_F(ValidateTest, MixedFilesFailButReportTheGoodOnes) {
  std::string good = kSource + "/tests/fixtures/good-dags/hello.yaml";
  std::string bad = kBroken + "/bad-type.yaml";
  std::string output;
  EXPECT_EQ(Validate({good, bad}, &output), 1);
  EXPECT_THAT(output, HasSubstr("OK " + good));
  EXPECT_THAT(output, HasSubstr(bad + ":2:7: type: invalid type \"parallel\""));
  EXPECT_THAT(output, HasSubstr("1 of 2 files failed validation"));
}

TEST_F(ValidateTest, MissingFileIsAnError) {
  std::string output;
  EXPECT_EQ(Validate({dir_.Sub("nope.yaml")}, &output), 1);
  EXPECT_THAT(output, HasSubstr(dir_.Sub("nope.yaml") + ":1:1: cannot read the DAG file"));
}

TEST_F(ValidateTest, QuietPrintsOnlyErrors) {
  std::string path = dir_.WriteFile("warn.yaml", "otel: {enabled: true}\nsteps: [{run: echo hi}]\n");
  std::string output;
  EXPECT_EQ(Validate({path}, &output), 0);
  EXPECT_THAT(output, HasSubstr(path + ":1:1: warning: otel: ignored"));
  EXPECT_THAT(output, HasSubstr("OK " + path));
  EXPECT_EQ(Validate({"-q", path}, &output), 0);
  EXPECT_THAT(output, ::testing::Not(HasSubstr("warning")));
  EXPECT_THAT(output, ::testing::Not(HasSubstr("OK")));
}

TEST_F(ValidateTest, ConfigTzIsTheDefaultZoneAndBadTzIsAConfigError) {
  std::string path = dir_.WriteFile("daily.yaml", "schedule: \"0 9 * * *\"\nsteps: [{run: echo hi}]\n");
  std::string output;
  env_["DAGU_TZ"] = "Asia/Tokyo";
  EXPECT_EQ(Validate({path}, &output), 0) << output;
  env_["DAGU_TZ"] = "Mars/Olympus";
  EXPECT_EQ(Validate({path}, &output), 78) << output;
  EXPECT_THAT(output, HasSubstr("Mars/Olympus"));
}

TEST_F(ValidateTest, BaseConfigFromTheHomeIsApplied) {
  // A base config with a bad value fails every DAG: it is part of each.
  dir_.WriteFile("home/base.yaml", "timeout_sec: soon\n");
  std::string path = dir_.WriteFile("ok.yaml", "steps: [{run: echo hi}]\n");
  std::string output;
  EXPECT_EQ(Validate({path}, &output), 1) << output;
  EXPECT_THAT(output, HasSubstr(dir_.Sub("home/base.yaml") + ":1:14: timeout_sec: expected an integer"));
}

}  // namespace
}  // namespace dagu::testing
