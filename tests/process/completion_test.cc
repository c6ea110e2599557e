// `dagu completion <shell>` scripts run in the real shells: bash (its
// completion function called as bash would), fish (`complete -C`, which
// prints what the user would be offered) and zsh (the script parses). Every
// candidate comes from the built binary's `__complete`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

class CompletionTest : public ::testing::Test {
 protected:
  CompletionTest() {
    home_ = dir_.Sub("home");
    std::filesystem::create_directories(home_ + "/dags");
    std::ofstream(home_ + "/dags/hello.yaml") << "steps:\n  - name: a\n    command: echo a\n";
    std::ofstream(home_ + "/dags/etl-daily.yml") << "steps:\n  - name: a\n    command: echo a\n";
    std::string bin_dir = std::filesystem::path(DAGU_BINARY).parent_path().string();
    const char* path = ::getenv("PATH");
    env_["PATH"] = bin_dir + ":" + (path != nullptr ? path : "/usr/bin:/bin");
    env_["DAGU_HOME"] = home_;
    env_["HOME"] = dir_.Sub("user");
    env_["XDG_CONFIG_HOME"] = dir_.Sub("user/.config");
    env_["XDG_DATA_HOME"] = dir_.Sub("user/.local/share");
  }

  // Runs `program -c script`; returns what it printed.
  std::string Shell(const std::string& program, const std::string& script, int* status = nullptr) {
    Subprocess proc;
    std::string log = dir_.Sub("shell-" + std::to_string(runs_++) + ".log");
    EXPECT_TRUE(proc.Start({program, "-c", script}, env_, log));
    auto rc = proc.Wait(30000ms);
    EXPECT_TRUE(rc.has_value()) << program << " did not exit";
    if (status != nullptr) *status = rc.value_or(-1);
    return proc.Output();
  }

  // What bash's completion function offers for the words of `line`.
  std::string BashComplete(const std::string& line) {
    return Shell("/bin/bash", "source <(dagu completion bash)\n"
                              "read -ra COMP_WORDS <<< \"" + line + "\"\n"
                              "[[ \"" + line + "\" == *' ' ]] && COMP_WORDS+=('')\n"
                              "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
                              "__dagu_complete\n"
                              "printf '%s\\n' \"${COMPREPLY[@]}\"\n");
  }

  TempDir dir_;
  std::string home_;
  std::map<std::string, std::string> env_;
  int runs_ = 0;
};

TEST_F(CompletionTest, BashCompletesCommandsFlagsAndDagNames) {
  EXPECT_EQ(BashComplete("dagu st"), "start\nstart-all\nstatus\nstop\n");
  EXPECT_EQ(BashComplete("dagu status "), "etl-daily\nhello\n");
  EXPECT_EQ(BashComplete("dagu start he"), "hello\n");
  EXPECT_EQ(BashComplete("dagu cleanup --retention-days 3 e"), "etl-daily\n");
  EXPECT_EQ(BashComplete("dagu completion "), "bash\nfish\npowershell\nzsh\n");
  std::string flags = BashComplete("dagu exec --");
  EXPECT_THAT(flags, HasSubstr("--dotenv\n"));
  EXPECT_THAT(flags, HasSubstr("--worker-label\n"));
  EXPECT_THAT(flags, Not(HasSubstr("--retention-days")));
  // The DAG folder of the line's --dagu-home, not the environment's.
  std::string other = dir_.Sub("other");
  std::filesystem::create_directories(other + "/dags");
  std::ofstream(other + "/dags/zeta.yaml") << "steps:\n  - name: a\n    command: echo a\n";
  EXPECT_EQ(BashComplete("dagu status --dagu-home " + other + " "), "zeta\n");
}

TEST_F(CompletionTest, FishOffersTheSameCandidates) {
  std::string out = Shell("/usr/bin/fish", "dagu completion fish | source\n"
                                           "complete -C 'dagu st'\n"
                                           "echo ---\n"
                                           "complete -C 'dagu dry '\n"
                                           "echo ---\n"
                                           "complete -C 'dagu start --from'\n");
  EXPECT_THAT(out, HasSubstr("start\tExecute a DAG from a DAG definition\n"));
  EXPECT_THAT(out, HasSubstr("status\tDisplay the current status of a DAG-run\n"));
  EXPECT_THAT(out, HasSubstr("---\netl-daily\nhello\n---\n"));
  EXPECT_THAT(out, HasSubstr("--from-run-id\t"));
}

TEST_F(CompletionTest, ZshAndPowershellScriptsAreWellFormed) {
  int status = -1;
  std::string script = dir_.Sub("_dagu");
  std::string out = Shell("/usr/bin/zsh", "dagu completion zsh > " + script + " && zsh -n " + script + " && echo parsed",
                          &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_THAT(out, HasSubstr("parsed"));
  out = Shell("/bin/bash", "dagu completion powershell --no-descriptions");
  EXPECT_THAT(out, HasSubstr("Register-ArgumentCompleter -CommandName 'dagu' -Native"));
  EXPECT_THAT(out, HasSubstr("__completeNoDesc"));
}

}  // namespace
}  // namespace dagu::testing
