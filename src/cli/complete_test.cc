#include "cli/complete.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace dagu::cli {
namespace {

class CompleteTest : public ::testing::Test {
 protected:
  CompleteTest() {
    auto* start = app_.add_subcommand("start", "Execute a DAG");
    start->add_option("-r,--run-id", value_, "Run ID");
    start->add_option("--root", value_, "Root run");
    start->add_option("-c,--config", value_, "Config file");
    start->add_option("--dagu-home", value_, "Home");
    start->add_flag("-q,--quiet", flag_, "Quiet");
    app_.add_subcommand("status", "Display the status");
    auto* completion = app_.add_subcommand("completion", "Scripts");
    completion->add_subcommand("bash", "For bash");
    completion->add_subcommand("zsh", "For zsh");
  }

  Completion Of(const std::vector<std::string>& words) { return Complete(app_, words); }

  CLI::App app_{"root", "dagu"};
  std::string value_;
  bool flag_ = false;
};

TEST_F(CompleteTest, CommandsThenFlags) {
  Completion c = Of({"st"});
  ASSERT_EQ(c.candidates.size(), 2u);
  EXPECT_EQ(c.candidates[0].first, "start");
  EXPECT_EQ(c.candidates[1].first, "status");
  EXPECT_EQ(c.directive, kCompNoFile);
  EXPECT_EQ(FormatCompletion(c, true), "start\tExecute a DAG\nstatus\tDisplay the status\n:4\n");
  EXPECT_EQ(FormatCompletion(c, false), "start\nstatus\n:4\n");

  c = Of({"start", "--r"});
  EXPECT_EQ(FormatCompletion(c, false), "--root\n--run-id\n:4\n");
  c = Of({"start", "-q", "-"});
  EXPECT_NE(FormatCompletion(c, false).find("-r\n"), std::string::npos);
  EXPECT_EQ(FormatCompletion(Of({"completion", ""}), false), "bash\nzsh\n:4\n");
}

TEST_F(CompleteTest, FlagValues) {
  EXPECT_EQ(Of({"start", "--run-id", ""}).directive, kCompNoFile);   // free text: nothing to offer
  EXPECT_EQ(Of({"start", "-c", ""}).directive, 0);                   // a file
  EXPECT_EQ(Of({"start", "--dagu-home", ""}).directive, kCompDirsOnly);
  EXPECT_EQ(Of({"start", "hello", "--", ""}).directive, 0);          // params: the shell's own
}

TEST_F(CompleteTest, DagNamesFromTheDagFolderOfTheLine) {
  testing::TempDir dir;
  dir.WriteFile("home/dags/hello.yaml", "steps: []\n");
  dir.WriteFile("home/dags/etl.yml", "steps: []\n");
  dir.WriteFile("home/dags/.hidden.yaml", "steps: []\n");
  dir.WriteFile("home/dags/notes.txt", "");
  EXPECT_EQ(DagNamesIn(dir.Sub("home/dags")), (std::vector<std::string>{"etl", "hello"}));
  Completion c = Of({"start", "--dagu-home", dir.Sub("home"), "h"});
  EXPECT_EQ(FormatCompletion(c, true), "hello\n:4\n");
  // Nothing matches: the shell completes a path instead.
  EXPECT_EQ(Of({"start", "--dagu-home", dir.Sub("home"), "./x"}).directive, 0);
}

}  // namespace
}  // namespace dagu::cli
