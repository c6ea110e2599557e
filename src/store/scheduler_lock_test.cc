#include "store/scheduler_lock.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::FaultyFileSystem;
using testing::TempDir;

LockOwner SampleOwner() {
  LockOwner o;
  o.instance_id = "host-a-4121-1796228818";
  o.host = "host-a";
  o.pid = 4121;
  o.token = "0123456789abcdef";
  o.counter = 7;
  o.acquired_at = WallTime(std::chrono::seconds(1796228818));
  o.renewed_at = WallTime(std::chrono::seconds(1796228830));
  o.stale_threshold_ms = 30000;
  return o;
}

TEST(LockOwnerTest, RoundTrips) {
  LockOwner back;
  ASSERT_TRUE(DecodeLockOwner(EncodeLockOwner(SampleOwner()), &back).ok());
  EXPECT_EQ(back.instance_id, "host-a-4121-1796228818");
  EXPECT_EQ(back.host, "host-a");
  EXPECT_EQ(back.pid, 4121);
  EXPECT_EQ(back.counter, 7u);
  EXPECT_EQ(back.renewed_at, WallTime(std::chrono::seconds(1796228830)));
  EXPECT_TRUE(back.SameAcquisition(SampleOwner()));
}

TEST(LockOwnerTest, RejectsGarbageAndMissingFields) {
  LockOwner out;
  EXPECT_TRUE(DecodeLockOwner("host-a-4121-9f0c", &out).IsCorruption());  // a Dagu v2.15.1 fence token
  EXPECT_TRUE(DecodeLockOwner("{\"token\":\"x\",\"counter\":1}", &out).IsCorruption());
  EXPECT_TRUE(DecodeLockOwner("{\"instance_id\":\"a\",\"counter\":1}", &out).IsCorruption());
  EXPECT_TRUE(DecodeLockOwner("{\"instance_id\":\"a\",\"token\":\"t\"}", &out).IsCorruption());
}

class SchedulerLockStoreTest : public ::testing::Test {
 protected:
  TempDir dir_;
  FaultyFileSystem fs_{PosixFileSystem()};
  SchedulerLockStore store_{&fs_, dir_.Sub("data/scheduler/locks")};
};

TEST_F(SchedulerLockStoreTest, LooksAtAMissingLock) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  LockSnapshot s;
  ASSERT_TRUE(store_.Look(&s).ok());
  EXPECT_FALSE(s.exists);
  EXPECT_EQ(s.HolderLabel(), "");
  std::vector<std::string> names;
  ASSERT_TRUE(PosixFileSystem()->ListDir(store_.locks_dir(), &names).ok());
  EXPECT_TRUE(names.empty()) << "the write probe must be removed";
}

TEST_F(SchedulerLockStoreTest, CreatesTheLockAsA0700DirectoryWithAnOwnerRecord) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  ASSERT_TRUE(store_.MakeLockDir().ok());
  EXPECT_TRUE(store_.MakeLockDir().IsAlreadyExists());
  WallTime touch(std::chrono::seconds(1796228900));
  ASSERT_TRUE(store_.WriteOwner(SampleOwner(), touch).ok());

  struct stat st {};
  ASSERT_EQ(::stat(store_.lock_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  LockSnapshot s;
  ASSERT_TRUE(store_.Look(&s).ok());
  EXPECT_TRUE(s.exists);
  EXPECT_TRUE(s.owner_present);
  ASSERT_TRUE(s.owner.has_value());
  EXPECT_EQ(s.owner->instance_id, "host-a-4121-1796228818");
  EXPECT_EQ(s.mtime, touch) << "a renewal sets the directory mtime for Dagu 1.30.2 standbys";
  EXPECT_EQ(s.HolderLabel(), "host-a-4121-1796228818");
  std::vector<std::string> names;
  ASSERT_TRUE(PosixFileSystem()->ListDir(store_.lock_path(), &names).ok());
  EXPECT_EQ(names, std::vector<std::string>{"owner"}) << "no temp file may be left in the lock";
}

TEST_F(SchedulerLockStoreTest, ARenewalChangesTheState) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  ASSERT_TRUE(store_.MakeLockDir().ok());
  LockOwner o = SampleOwner();
  WallTime t(std::chrono::seconds(1796228900));
  ASSERT_TRUE(store_.WriteOwner(o, t).ok());
  LockSnapshot a, b, c;
  ASSERT_TRUE(store_.Look(&a).ok());
  ASSERT_TRUE(store_.Look(&b).ok());
  EXPECT_TRUE(a.SameState(b));
  ++o.counter;
  ASSERT_TRUE(store_.WriteOwner(o, t).ok());  // same mtime: the counter alone tells
  ASSERT_TRUE(store_.Look(&c).ok());
  EXPECT_TRUE(a.SameDirectory(c));
  EXPECT_FALSE(a.SameState(c));
}

TEST_F(SchedulerLockStoreTest, ADagu1302LockIsAnEmptyDirectory) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  ASSERT_TRUE(store_.MakeLockDir().ok());
  LockSnapshot s;
  ASSERT_TRUE(store_.Look(&s).ok());
  EXPECT_TRUE(s.exists);
  EXPECT_FALSE(s.owner_present);
  EXPECT_FALSE(s.owner.has_value());
  EXPECT_NE(s.HolderLabel().find("no owner record"), std::string::npos);
}

TEST_F(SchedulerLockStoreTest, ACorruptOwnerRecordIsSeenButNotDecoded) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  ASSERT_TRUE(store_.MakeLockDir().ok());
  dir_.WriteFile("data/scheduler/locks/.dagu_lock/owner", "{not json");
  LockSnapshot s;
  ASSERT_TRUE(store_.Look(&s).ok());
  EXPECT_TRUE(s.owner_present);
  EXPECT_FALSE(s.owner.has_value());
  EXPECT_EQ(s.owner_bytes, "{not json");
  EXPECT_NE(s.HolderLabel().find("unreadable"), std::string::npos);
}

TEST_F(SchedulerLockStoreTest, MovesAsideKeepingIdentityAndBack) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  ASSERT_TRUE(store_.MakeLockDir().ok());
  LockSnapshot before;
  ASSERT_TRUE(store_.Look(&before).ok());
  std::string aside;
  ASSERT_TRUE(store_.MoveAside(&aside).ok());
  EXPECT_NE(aside.find("/.dagu_lock.releasing."), std::string::npos);
  FileInfo info;
  ASSERT_TRUE(store_.StatPath(aside, &info).ok());
  EXPECT_EQ(info.inode, before.inode);
  std::string second;
  EXPECT_TRUE(store_.MoveAside(&second).IsNotFound());
  ASSERT_TRUE(store_.MoveBack(aside).ok());
  LockSnapshot after;
  ASSERT_TRUE(store_.Look(&after).ok());
  EXPECT_TRUE(after.SameDirectory(before));
  ASSERT_TRUE(store_.MoveAside(&aside).ok());
  ASSERT_TRUE(store_.RemoveAside(aside).ok());
  EXPECT_TRUE(store_.StatPath(aside, &info).IsNotFound());
}

TEST_F(SchedulerLockStoreTest, AWrongDataDirectoryFailsNamingThePath) {
  dir_.WriteFile("data", "a file, not a directory");
  Status s = store_.EnsureLocksDir();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir_.Sub("data")), std::string::npos) << s.ToString();
}

TEST_F(SchedulerLockStoreTest, AnUnwritableLocksDirFailsTheProbe) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  fs_.FailWith("CreateFileExclusive", "/locks/", Status::PermissionDenied("open " + store_.locks_dir() + ": EROFS"));
  Status s = store_.EnsureLocksDir();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(store_.locks_dir()), std::string::npos);
}

TEST_F(SchedulerLockStoreTest, StorageErrorsAreReturned) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  ASSERT_TRUE(store_.MakeLockDir().ok());
  fs_.FailWith("ReadFile", "/owner", Status::IOError("EIO"));
  LockSnapshot s;
  EXPECT_EQ(store_.Look(&s).code(), Status::Code::kIOError);
  fs_.Clear();
  fs_.FailWith("WriteFile", "/owner", Status::NoSpace("ENOSPC"));
  EXPECT_EQ(store_.WriteOwner(SampleOwner(), WallTime{}).code(), Status::Code::kNoSpace);
}

// A file where the lock directory should be, or a FIFO or a directory where
// the owner record should be (found by tests/chaos, corrupt files): a lock
// with an unreadable owner record, judged stale after T and taken over like
// Dagu 1.30.2 takes over such a stale lock. Before, the first attempt ended
// startup with 78 and a standby never took it over.
TEST_F(SchedulerLockStoreTest, ALockPathThatIsAFileIsALockWithAnUnreadableOwner) {
  dir_.WriteFile("data/scheduler/locks/.dagu_lock", "x");
  LockSnapshot s;
  ASSERT_TRUE(store_.Look(&s).ok());
  EXPECT_TRUE(s.exists);
  EXPECT_FALSE(s.owner.has_value());
  EXPECT_EQ(s.HolderLabel(), "unknown (unreadable owner record)");
  LockSnapshot again;
  ASSERT_TRUE(store_.Look(&again).ok());
  EXPECT_TRUE(s.SameState(again));
}

TEST_F(SchedulerLockStoreTest, AnOwnerRecordThatIsNotAFileIsUnreadableNotAnError) {
  ASSERT_TRUE(store_.EnsureLocksDir().ok());
  ASSERT_TRUE(store_.MakeLockDir().ok());
  std::string owner = dir_.Sub("data/scheduler/locks/.dagu_lock/owner");
  ASSERT_EQ(::mkfifo(owner.c_str(), 0600), 0);
  LockSnapshot s;
  ASSERT_TRUE(store_.Look(&s).ok());  // at once: a FIFO is never opened for a blocking read
  EXPECT_EQ(s.HolderLabel(), "unknown (unreadable owner record)");
  ASSERT_EQ(::unlink(owner.c_str()), 0);
  ASSERT_EQ(::mkdir(owner.c_str(), 0700), 0);
  ASSERT_TRUE(store_.Look(&s).ok());
  EXPECT_EQ(s.HolderLabel(), "unknown (unreadable owner record)");
}

}  // namespace
}  // namespace dagu
