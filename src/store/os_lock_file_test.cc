#include "store/os_lock_file.h"

#include <gtest/gtest.h>

#include "core/file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

constexpr int64_t kExt4 = 0xEF53, kTmpfs = 0x01021994, kNfs = 0x6969, kFuse = 0x65735546, kCifs = 0xFF534D42;

TEST(OsLockFileTest, TwoOpenFileDescriptionsConflictAndAProbeNeverTakesTheLock) {
  TempDir dir;
  std::string path = dir.Sub("lockfile");
  OsLockFile holder(path), standby(path);
  ASSERT_TRUE(holder.Open().ok());
  ASSERT_TRUE(standby.Open().ok());
  OsLockProbe probe;
  ASSERT_TRUE(standby.Probe(&probe).ok());
  EXPECT_TRUE(probe.same_file);
  EXPECT_FALSE(probe.held);
  bool locked = false;
  ASSERT_TRUE(holder.TryLock(&locked).ok());
  ASSERT_TRUE(locked);
  ASSERT_TRUE(standby.Probe(&probe).ok());
  EXPECT_TRUE(probe.held);
  ASSERT_TRUE(standby.TryLock(&locked).ok());
  EXPECT_FALSE(locked);
  holder.Unlock();
  ASSERT_TRUE(standby.Probe(&probe).ok());
  EXPECT_FALSE(probe.held);
  ASSERT_TRUE(holder.TryLock(&locked).ok());
  EXPECT_TRUE(locked) << "the standby's probes left the lock free";
}

TEST(OsLockFileTest, ClosingTheHoldersDescriptionReleasesTheLock) {
  TempDir dir;
  std::string path = dir.Sub("lockfile");
  auto holder = std::make_unique<OsLockFile>(path);
  OsLockFile standby(path);
  ASSERT_TRUE(standby.Open().ok());
  bool locked = false;
  ASSERT_TRUE(holder->TryLock(&locked).ok());
  ASSERT_TRUE(locked);
  OsLockProbe probe;
  ASSERT_TRUE(standby.Probe(&probe).ok());
  EXPECT_TRUE(probe.held);
  holder.reset();  // as the kernel does when the process dies
  ASSERT_TRUE(standby.Probe(&probe).ok());
  EXPECT_FALSE(probe.held);
}

TEST(OsLockFileTest, AReplacedFileIsReportedAsNotTheSameAndReopened) {
  TempDir dir;
  std::string path = dir.Sub("lockfile");
  OsLockFile holder(path), standby(path);
  bool locked = false;
  ASSERT_TRUE(holder.TryLock(&locked).ok());
  ASSERT_TRUE(standby.Open().ok());
  ASSERT_TRUE(PosixFileSystem()->RemoveFile(path).ok());  // an operator removes it
  OsLockProbe probe;
  ASSERT_TRUE(standby.Probe(&probe).ok());
  EXPECT_FALSE(probe.same_file) << "what the standby saw says nothing about the new file";
  ASSERT_TRUE(standby.Probe(&probe).ok());
  EXPECT_TRUE(probe.same_file);
  EXPECT_FALSE(probe.held) << "the holder's lock is on the removed file";
}

TEST(OsLockSupportTest, LocalFileSystemsAndNfs4AreAllowed) {
  EXPECT_TRUE(ClassifyOsLockSupport(kExt4, "ext4", "rw", "/d").ok());
  EXPECT_TRUE(ClassifyOsLockSupport(kTmpfs, "tmpfs", "rw", "/d").ok());
  EXPECT_TRUE(ClassifyOsLockSupport(kNfs, "nfs4", "rw,vers=4.2,rsize=1048576,local_lock=none", "/d").ok());
  EXPECT_TRUE(ClassifyOsLockSupport(kNfs, "nfs", "rw,vers=4.1", "/d").ok()) << "an older kernel's v4 entry";
}

TEST(OsLockSupportTest, NfsVersion3FuseAndOthersAreRefusedSayingWhy) {
  Status s = ClassifyOsLockSupport(kNfs, "nfs", "rw,vers=3,proto=tcp,local_lock=none", "/data/scheduler/locks");
  EXPECT_TRUE(s.code() == Status::Code::kNotSupported) << s.ToString();
  EXPECT_NE(s.message().find("NFS versions 2 and 3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("scheduler.fast_takeover"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("/data/scheduler/locks"), std::string::npos) << s.message();
  EXPECT_TRUE(ClassifyOsLockSupport(kNfs, "", "", "/d").code() == Status::Code::kNotSupported) << "version unknown";
  s = ClassifyOsLockSupport(kFuse, "fuse.sshfs", "rw", "/d");
  EXPECT_TRUE(s.code() == Status::Code::kNotSupported);
  EXPECT_NE(s.message().find("FUSE"), std::string::npos) << s.message();
  EXPECT_TRUE(ClassifyOsLockSupport(kCifs, "cifs", "rw", "/d").code() == Status::Code::kNotSupported);
  EXPECT_TRUE(ClassifyOsLockSupport(0x12345678, "weirdfs", "rw", "/d").code() == Status::Code::kNotSupported);
}

TEST(OsLockSupportTest, FindMountTakesTheLongestMatchingMountPoint) {
  const char* mountinfo =
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
      "40 22 0:38 / /mnt/nfs rw,relatime shared:20 - nfs4 srv:/export rw,vers=4.2,local_lock=none\n"
      "41 22 0:39 / /mnt/nfs3 rw,relatime shared:21 - nfs srv:/old rw,vers=3,local_lock=none\n"
      "42 22 0:40 / /mnt/with\\040space rw - fuse.faultfs faultfs rw,user_id=0\n";
  MountEntry e;
  ASSERT_TRUE(FindMount(mountinfo, "/mnt/nfs/data/scheduler/locks", &e));
  EXPECT_EQ(e.mount_point, "/mnt/nfs");
  EXPECT_EQ(e.fstype, "nfs4");
  EXPECT_EQ(e.super_options, "rw,vers=4.2,local_lock=none");
  ASSERT_TRUE(FindMount(mountinfo, "/mnt/nfs3/x", &e));
  EXPECT_EQ(e.fstype, "nfs");
  ASSERT_TRUE(FindMount(mountinfo, "/mnt/nfs35/x", &e));
  EXPECT_EQ(e.fstype, "ext4") << "a mount point matches whole path components only";
  ASSERT_TRUE(FindMount(mountinfo, "/mnt/with space/d", &e));
  EXPECT_EQ(e.fstype, "fuse.faultfs");
}

TEST(OsLockSupportTest, ThisMachinesTemporaryDirectoryIsJudged) {
  TempDir dir;
  // The tests run on ext4 or tmpfs here; on anything else the check must
  // at least name the setting.
  Status s = CheckOsLockSupport(dir.path());
  EXPECT_TRUE(s.ok() || s.message().find("scheduler.fast_takeover") != std::string::npos) << s.ToString();
  EXPECT_FALSE(CheckOsLockSupport(dir.Sub("missing")).ok());
}

}  // namespace
}  // namespace dagu
