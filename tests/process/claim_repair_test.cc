// Issue 27 item 4: a run-ID claim left without its run directory (its
// creator died between the claim and the mkdir: an OOM kill, a host crash, an
// EIO) no longer blocks its ID for ever. The claim is left here exactly as
// the store writes it before the mkdir (store/run_claim.h, docs/storage.md
// "Exclusivity"): pending, naming the run directory it stands for. Once
// untouched for kClaimRepairAfter (30 s), a manual
// `dagu start --run-id X` and a scheduled slot both run, once; a claim its
// creator may still be working on is left alone.
#include <sys/time.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "scheduling_fixture.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;

class ClaimRepairTest : public SchedulingFixture {
 protected:
  // <data>/dag-runs/<dag>/dag-runs/.dagu_run_ids/<id>, as a creator that died
  // right after claiming leaves it, dated `age` ago.
  std::string LeaveClaim(const std::string& dag, const std::string& id, SysTime created, std::chrono::seconds age) {
    const std::string root = home_.data_dir() + "/dag-runs/" + dag + "/dag-runs";
    std::time_t secs = std::chrono::system_clock::to_time_t(created);
    std::tm utc{};
    ::gmtime_r(&secs, &utc);
    char day[16], stamp[32];
    std::strftime(day, sizeof day, "%Y/%m/%d", &utc);
    std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &utc);
    const std::string run_dir = root + "/" + day + "/dag-run_" + stamp + "Z_" + id;
    const std::string claim = root + "/.dagu_run_ids/" + id;
    fs::create_directories(root + "/.dagu_run_ids");
    { std::ofstream(claim) << run_dir << "\npending\n"; }
    struct timeval times[2];
    times[0].tv_sec = times[1].tv_sec = std::time(nullptr) - age.count();
    times[0].tv_usec = times[1].tv_usec = 0;
    ::utimes(claim.c_str(), times);
    return run_dir;
  }

  size_t RunDirsOf(const std::string& dag, const std::string& id) {
    size_t n = 0;
    const std::string root = home_.data_dir() + "/dag-runs/" + dag + "/dag-runs";
    if (!fs::exists(root)) return 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const std::string name = e.path().filename().string();
      if (e.is_directory() && name.rfind("dag-run_", 0) == 0 && name.size() > id.size() &&
          name.compare(name.size() - id.size(), std::string::npos, id) == 0) {
        ++n;
      }
    }
    return n;
  }

  static std::vector<std::string> Lines(const std::string& path) {
    std::vector<std::string> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

TEST_F(ClaimRepairTest, AManualRunIdWhoseCreatorDiedBeforeItsDirectoryCanBeStartedAgain) {
  const std::string marker = home_.Scratch("ran");
  const std::string path = home_.WriteDag("claimed", "steps:\n  - name: mark\n    command: sh -c 'echo $DAG_RUN_ID >> " +
                                                         marker + "'\n");
  const SysTime crash = std::chrono::system_clock::now() - std::chrono::minutes(5);
  const std::string left = LeaveClaim("claimed", "manual-1", crash, std::chrono::seconds(300));
  // A claim its creator may still be working on (written a moment ago).
  LeaveClaim("claimed", "manual-2", std::chrono::system_clock::now(), std::chrono::seconds(0));

  ASSERT_EQ(Dagu("start-1", {"start", "--run-id=manual-1", path}), 0) << procs_.back()->Describe();
  EXPECT_EQ(Lines(marker), std::vector<std::string>{"manual-1"});
  EXPECT_EQ(RunDirsOf("claimed", "manual-1"), 1u);
  EXPECT_TRUE(fs::is_directory(left)) << "the adopter makes the directory the claim names";
  auto done = WaitForRun("claimed", "manual-1", Finished, 5s);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status_code(), kRunSucceeded) << done->Describe();
  // Taken now: a second start of the ID is refused, the step does not run again.
  EXPECT_NE(Dagu("start-1-again", {"start", "--run-id=manual-1", path}), 0);
  EXPECT_EQ(Lines(marker).size(), 1u);

  EXPECT_NE(Dagu("start-2", {"start", "--run-id=manual-2", path}), 0) << "a claim in the making was taken over";
  EXPECT_EQ(RunDirsOf("claimed", "manual-2"), 0u);
  EXPECT_EQ(Lines(marker).size(), 1u);

  // Dagu 1.30.2 reads the run where the adopter made it.
  const char* peer = std::getenv("DAGU_PEER_BINARY");
  if (peer != nullptr && *peer != '\0' && fs::exists(peer)) {
    Subprocess p;
    ASSERT_TRUE(p.Start({peer, "status", "--run-id=manual-1", path}, {{"DAGU_HOME", home_.home()}},
                        home_.Scratch("peer-status.log")));
    std::optional<int> st = p.Wait(20s);
    ASSERT_TRUE(st.has_value());
    EXPECT_EQ(*st, 0) << p.Output();
    EXPECT_NE(p.Output().find("Result: Succeeded"), std::string::npos) << p.Output();
  }
}

TEST_F(ClaimRepairTest, ASlotWhoseClaimWasLeftWithoutItsDirectoryRunsOnce) {
  const std::string marker = home_.Scratch("ran");
  home_.WriteDag("slotted", "schedule: \"* * * * *\"\nsteps:\n  - name: mark\n    command: sh -c 'echo $DAG_RUN_ID >> " +
                                marker + "'\n");
  const SysTime slot = EnsureMinuteLeft(15s) + std::chrono::minutes(1);
  const std::string run_id = SlotRunId(home_.data_dir(), "slotted", slot);
  // The slot's run was claimed (by an earlier holder, say) and its creator died.
  LeaveClaim("slotted", run_id, slot, std::chrono::seconds(120));
  StartActiveScheduler("scheduler", {{"DAGU_TZ", "UTC"}});
  auto done = WaitForRun("slotted", run_id, Finished, 100s);
  ASSERT_TRUE(done) << "slot " << SlotStamp(slot) << " never ran";
  EXPECT_EQ(done->status_code(), kRunSucceeded) << done->Describe();
  EXPECT_EQ(RunDirsOf("slotted", run_id), 1u);
  size_t ran = 0;
  for (const std::string& line : Lines(marker)) ran += line == run_id ? 1 : 0;
  EXPECT_EQ(ran, 1u);
}

}  // namespace
}  // namespace dagu::testing
