#include "store/proc_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/time_format.h"
#include "support/fake_clock.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::TempDir;

WallTime T0() { return FromUnixSeconds(1796228129); }

TEST(ProcStoreTest, HeartbeatBytesAreBigEndianSeconds) {
  std::string b = ProcStore::EncodeHeartbeat(T0());
  ASSERT_EQ(b.size(), 8u);
  // Observed from Dagu: 0000 0000 6b10 4421 = 1796228129.
  EXPECT_EQ(b, std::string("\x00\x00\x00\x00\x6b\x10\x44\x21", 8));
  WallTime t;
  ASSERT_TRUE(ProcStore::DecodeHeartbeat(b, &t));
  EXPECT_EQ(t, T0());
  EXPECT_FALSE(ProcStore::DecodeHeartbeat("1234567", &t));
}

TEST(ProcStoreTest, AcquireHeartbeatRelease) {
  TempDir dir;
  FakeClock clock(T0());
  ProcStore procs(PosixFileSystem(), &clock, dir.Sub("proc"));
  ProcEntry e;
  ASSERT_TRUE(procs.Acquire("slow", "slow", "slow-001", &e).ok());
  EXPECT_EQ(e.path, dir.Sub("proc/slow/slow/proc_20261202_161529Z_slow-001.proc"));
  EXPECT_EQ(std::filesystem::file_size(e.path), 8u);
  EXPECT_TRUE(procs.Acquire("slow", "slow", "slow-001", &e).IsAlreadyExists());
  EXPECT_EQ(procs.CountAlive("slow").value_or(-1), 1);
  StatusOr<bool> alive = procs.IsRunAlive("slow", "slow", "slow-001");
  ASSERT_TRUE(alive.ok());
  EXPECT_TRUE(*alive);
  alive = procs.IsRunAlive("slow", "slow", "other");
  ASSERT_TRUE(alive.ok());
  EXPECT_FALSE(*alive);
  ASSERT_TRUE(procs.Release(e).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("proc/slow/slow")));
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("proc/slow")));
  EXPECT_EQ(procs.CountAlive("slow").value_or(-1), 0);
}

// The file's mtime is real time, so move the fake clock far from it to test
// the content rule, as a reader on a host whose files are old would see.
TEST(ProcStoreTest, AliveByContentWhenMtimeIsOld) {
  TempDir dir;
  FakeClock clock(FromUnixSeconds(UnixSeconds(std::chrono::system_clock::now())) + 10min);
  ProcStore procs(PosixFileSystem(), &clock, dir.Sub("proc"));
  ProcEntry e;
  ASSERT_TRUE(procs.Acquire("g", "d", "r1", &e).ok());  // content = clock now
  EXPECT_TRUE(procs.IsAliveFile(e.path));               // mtime old, content fresh
  clock.Advance(44s);
  EXPECT_TRUE(procs.IsAliveFile(e.path));
  clock.Advance(2s);
  EXPECT_FALSE(procs.IsAliveFile(e.path));
  ASSERT_TRUE(procs.Heartbeat(e).ok());
  EXPECT_TRUE(procs.IsAliveFile(e.path));
  // Content far in the future is stale.
  ASSERT_TRUE(PosixFileSystem()->WriteFile(e.path, ProcStore::EncodeHeartbeat(clock.Now() + 6min), 0600).ok());
  EXPECT_FALSE(procs.IsAliveFile(e.path));
  // Short content is stale.
  ASSERT_TRUE(PosixFileSystem()->WriteFile(e.path, "abc", 0600).ok());
  EXPECT_FALSE(procs.IsAliveFile(e.path));
}

TEST(ProcStoreTest, FreshMtimeIsAliveWhateverTheContent) {
  TempDir dir;
  FakeClock clock(FromUnixSeconds(UnixSeconds(std::chrono::system_clock::now())));
  ProcStore procs(PosixFileSystem(), &clock, dir.Sub("proc"));
  std::string path = dir.WriteFile("proc/g/d/proc_20261202_161529Z_r9.proc", "x");
  EXPECT_TRUE(procs.IsAliveFile(path));
  std::vector<ProcEntry> alive;
  ASSERT_TRUE(procs.ListAlive("g", &alive).ok());
  ASSERT_EQ(alive.size(), 1u);
  EXPECT_EQ(alive[0].run_id, "r9");
  EXPECT_EQ(alive[0].dag_name, "d");
  dir.WriteFile("proc/g/d/not-a-proc-file", "x");
  ASSERT_TRUE(procs.ListAlive("g", &alive).ok());
  EXPECT_EQ(alive.size(), 1u);
}

}  // namespace
}  // namespace dagu
