// The real spawner, with real short-lived processes.
#include "launcher/process_spawner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::PollUntil;
using testing::TempDir;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int WaitExit(ProcessSpawner* sp, pid_t pid) {
  int status = -100;
  EXPECT_TRUE(PollUntil([&] { return sp->TryReap(pid, &status); }, std::chrono::seconds(10),
                        std::chrono::milliseconds(10)));
  return status;
}

TEST(PosixProcessSpawnerTest, ChildRunsInItsOwnSessionWithTheGivenEnvironment) {
  TempDir dir;
  std::string out = dir.Sub("out");
  ProcessSpawner* sp = PosixProcessSpawner();
  pid_t pid = -1;
  ASSERT_TRUE(sp->Spawn({"/bin/sh", "-c", "ps -o sid= -o pgid= -p $$ > " + out + "; echo \"$FOO\" >> " + out},
                        {"FOO=bar", "PATH=/usr/bin:/bin"}, {}, &pid)
                  .ok());
  EXPECT_EQ(WaitExit(sp, pid), 0);
  std::istringstream in(ReadAll(out));
  long sid = 0, pgid = 0;
  std::string foo;
  in >> sid >> pgid >> foo;
  EXPECT_EQ(sid, pid);   // setsid: a session of its own
  EXPECT_EQ(pgid, pid);  // and so its own process group
  EXPECT_NE(sid, ::getsid(0));
  EXPECT_EQ(foo, "bar");
}

TEST(PosixProcessSpawnerTest, APassedDescriptorIsTheChildsThirdAndNothingElseLeaks) {
  TempDir dir;
  const std::string other_file = dir.Sub("other"), passed_file = dir.Sub("passed"), out = dir.Sub("links");
  int other_raw = ::open(other_file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  int other = ::fcntl(other_raw, F_DUPFD, 30);  // without close-on-exec
  ::close(other_raw);
  ASSERT_GE(other, 30);
  int raw = ::open(passed_file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  int passed = ::fcntl(raw, F_DUPFD_CLOEXEC, 20);  // close-on-exec and high, as the lease beacon's
  ::close(raw);
  ASSERT_GE(passed, 20);
  ProcessSpawner* sp = PosixProcessSpawner();
  pid_t pid = -1;
  // readlink opens no descriptor of its own; it prints the targets of those
  // that are open.
  const std::string links = "/proc/self/fd/3 /proc/self/fd/" + std::to_string(other) + " /proc/self/fd/" +
                            std::to_string(passed);
  ASSERT_TRUE(sp->Spawn({"/bin/sh", "-c", "exec readlink " + links + " > " + out}, {"PATH=/usr/bin:/bin"}, {passed},
                        &pid)
                  .ok());
  WaitExit(sp, pid);
  ::close(other);
  ::close(passed);
  EXPECT_EQ(ReadAll(out), passed_file + "\n");
}

// The lease beacon goes to 3 and an armed run's gate to 4; a hole (-1)
// leaves its number closed.
TEST(PosixProcessSpawnerTest, SeveralDescriptorsArePassedInOrder) {
  TempDir dir;
  const std::string a_file = dir.Sub("a"), b_file = dir.Sub("b"), out = dir.Sub("out");
  auto open_high = [](const std::string& path) {
    int raw = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    int fd = ::fcntl(raw, F_DUPFD_CLOEXEC, 20);
    ::close(raw);
    return fd;
  };
  int a = open_high(a_file), b = open_high(b_file);
  ASSERT_GE(a, 20);
  ASSERT_GE(b, 20);
  ProcessSpawner* sp = PosixProcessSpawner();
  const std::string show = "for n in 3 4 5; do readlink /proc/self/fd/$n || echo none; done > " + out;
  pid_t pid = -1;
  ASSERT_TRUE(sp->Spawn({"/bin/sh", "-c", show}, {"PATH=/usr/bin:/bin"}, {a, b}, &pid).ok());
  EXPECT_EQ(WaitExit(sp, pid), 0);
  EXPECT_EQ(ReadAll(out), a_file + "\n" + b_file + "\nnone\n");
  ASSERT_TRUE(sp->Spawn({"/bin/sh", "-c", show}, {"PATH=/usr/bin:/bin"}, {-1, b}, &pid).ok());
  EXPECT_EQ(WaitExit(sp, pid), 0);
  EXPECT_EQ(ReadAll(out), "none\n" + b_file + "\nnone\n");
  ::close(a);
  ::close(b);
}

TEST(PosixProcessSpawnerTest, NoDescriptorLeaksIntoTheChild) {
  TempDir dir;
  int fd = ::dup(2);  // a descriptor without close-on-exec
  ASSERT_GE(fd, 3);
  std::string out = dir.Sub("fds");
  ProcessSpawner* sp = PosixProcessSpawner();
  pid_t pid = -1;
  ASSERT_TRUE(sp->Spawn({"/bin/sh", "-c", "ls /proc/$$/fd > " + out}, {"PATH=/usr/bin:/bin"}, {}, &pid).ok());
  EXPECT_EQ(WaitExit(sp, pid), 0);
  ::close(fd);
  std::istringstream in(ReadAll(out));
  std::set<int> fds;
  for (int n; in >> n;) fds.insert(n);
  EXPECT_EQ(fds.count(fd), 0u) << ReadAll(out);
  EXPECT_EQ(fds.count(0), 1u);
}

TEST(PosixProcessSpawnerTest, SignalsBlockedInTheParentAreNotBlockedInTheChild) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &block, &old), 0);
  ProcessSpawner* sp = PosixProcessSpawner();
  pid_t pid = -1;
  Status s = sp->Spawn({"/bin/sleep", "30"}, {}, {}, &pid);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(sp->Signal(pid, SIGTERM).ok());
  EXPECT_EQ(WaitExit(sp, pid), 128 + SIGTERM);
}

TEST(PosixProcessSpawnerTest, ExitCodesAndMissingPrograms) {
  ProcessSpawner* sp = PosixProcessSpawner();
  pid_t pid = -1;
  ASSERT_TRUE(sp->Spawn({"/bin/sh", "-c", "exit 7"}, {}, {}, &pid).ok());
  int status = 0;
  EXPECT_EQ(WaitExit(sp, pid), 7);
  EXPECT_TRUE(sp->TryReap(pid, &status));  // already reaped: ECHILD counts as gone
  Status missing = sp->Spawn({"/nonexistent/dagu", "start"}, {}, {}, &pid);
  if (missing.ok()) {
    EXPECT_EQ(WaitExit(sp, pid), 127);  // some libcs report exec failure as exit 127
  } else {
    EXPECT_NE(missing.message().find("/nonexistent/dagu"), std::string::npos);
  }
  EXPECT_FALSE(sp->Spawn({}, {}, {}, &pid).ok());
}

}  // namespace
}  // namespace dagu
