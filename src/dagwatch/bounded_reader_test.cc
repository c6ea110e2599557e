// Issue 19 item 6 / issue 10 item 2: a FIFO, a hung file or a symlink
// leading out of the DAG folder never holds up the DAG catalog (and so never
// the ticker's rescan or activation); each is skipped and reported.
#include "dagwatch/bounded_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <future>

#include "dagwatch/dag_catalog.h"
#include "dagwatch/dag_file_loader.h"
#include "support/faulty_file_system.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FaultyFileSystem;
using testing::TempDir;

constexpr char kGoodDag[] = "schedule: \"* * * * *\"\nsteps:\n  - name: one\n    run: echo hi\n";

std::vector<std::string> Names(const DagCatalog& catalog) {
  std::vector<std::string> out;
  for (const DagPtr& d : catalog.Snapshot()) out.push_back(d->name);
  return out;
}

// Runs a rescan on another thread; fails (instead of hanging) when it does
// not return within `limit`, then calls `unstick` so that it can end.
void RescanWithin(DagCatalog* catalog, std::chrono::seconds limit, const std::function<void()>& unstick) {
  auto done = std::async(std::launch::async, [catalog] { return catalog->Rescan(); });
  if (done.wait_for(limit) != std::future_status::ready) {
    ADD_FAILURE() << "the rescan is held up by one file";
    unstick();
  }
  EXPECT_TRUE(done.get().ok());
}

// Opens the FIFO for writing and closes it: a reader blocked in open() on
// it gets end-of-file.
void Unstick(const std::string& fifo) {
  int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
}

TEST(BoundedReaderTest, RefusesAFifoAtOnce) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.Sub("pipe.yaml").c_str(), 0600), 0);
  BoundedReader reader(PosixFileSystem(), 5s);
  std::string text;
  auto start = std::chrono::steady_clock::now();
  Status s = reader.Read(dir.Sub("pipe.yaml"), dir.path(), &text);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("FIFO"), std::string::npos) << s.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s) << "waited for a writer";
}

TEST(BoundedReaderTest, RefusesASymlinkLeadingOutOfTheFolderAndFollowsOneInside) {
  TempDir dir;
  dir.WriteFile("outside/secret", "root:x:0:0\n");
  dir.WriteFile("dags/real.yaml", kGoodDag);
  std::filesystem::create_symlink(dir.Sub("outside/secret"), dir.Sub("dags/leak.yaml"));
  std::filesystem::create_symlink("real.yaml", dir.Sub("dags/alias.yaml"));
  BoundedReader reader(PosixFileSystem(), 5s);
  std::string text;
  Status s = reader.Read(dir.Sub("dags/leak.yaml"), dir.Sub("dags"), &text);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_EQ(text.find("root:"), std::string::npos);
  ASSERT_TRUE(reader.Read(dir.Sub("dags/alias.yaml"), dir.Sub("dags"), &text).ok());
  EXPECT_EQ(text, kGoodDag);
}

TEST(BoundedReaderTest, RefusesAnOversizedFile) {
  TempDir dir;
  dir.WriteFile("big.yaml", std::string(2048, 'x'));
  BoundedReader reader(PosixFileSystem(), 5s, 1024);
  std::string text;
  EXPECT_EQ(reader.Read(dir.Sub("big.yaml"), "", &text).code(), Status::Code::kInvalidArgument);
}

TEST(BoundedReaderTest, AHungReadTimesOutOnceThenAnswersAtOnceUntilItReturns) {
  TempDir dir;
  dir.WriteFile("hung.yaml", kGoodDag);
  FaultyFileSystem fs(PosixFileSystem());
  fs.Block("ReadRegularFile", "hung.yaml");
  BoundedReader reader(&fs, 100ms);
  std::string text;
  EXPECT_TRUE(reader.Read(dir.Sub("hung.yaml"), "", &text).IsTimedOut());
  EXPECT_EQ(fs.blocked_calls(), 1);
  EXPECT_TRUE(reader.Read(dir.Sub("hung.yaml"), "", &text).IsTimedOut());
  EXPECT_EQ(fs.blocked_calls(), 1) << "a second read piled up behind the stuck one";
  fs.Unblock();
  ASSERT_TRUE(testing::PollUntil([&] { return reader.Read(dir.Sub("hung.yaml"), "", &text).ok(); }, 5s, 10ms));
  EXPECT_EQ(text, kGoodDag);
}

TEST(DagCatalogBoundedTest, AFifoInTheDagFolderIsSkippedAndTheOthersLoad) {
  TempDir dir;
  dir.WriteFile("good.yaml", kGoodDag);
  ASSERT_EQ(::mkfifo(dir.Sub("blocked.yaml").c_str(), 0600), 0);
  DagCatalog catalog(PosixFileSystem(), dir.path(), MakeDagFileLoader(LoadDagOptions{}, dir.path(), 5s));
  RescanWithin(&catalog, 10s, [&] { Unstick(dir.Sub("blocked.yaml")); });
  EXPECT_EQ(Names(catalog), std::vector<std::string>{"good"});
}

TEST(DagCatalogBoundedTest, AHungDagFileIsSkippedWithinTheBoundAndLoadedOnceItAnswers) {
  TempDir dir;
  dir.WriteFile("good.yaml", kGoodDag);
  dir.WriteFile("hung.yaml", kGoodDag);
  FaultyFileSystem fs(PosixFileSystem());
  fs.Block("ReadFile", "hung.yaml");
  LoadDagOptions options;
  options.fs = &fs;
  DagCatalog catalog(&fs, dir.path(), MakeDagFileLoader(options, dir.path(), 200ms));
  RescanWithin(&catalog, 10s, [&] { fs.Unblock(); });
  EXPECT_EQ(Names(catalog), std::vector<std::string>{"good"});
  RescanWithin(&catalog, 10s, [&] { fs.Unblock(); });  // still stuck: answered at once, still skipped
  EXPECT_EQ(Names(catalog), std::vector<std::string>{"good"});
  fs.Unblock();
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        (void)catalog.Rescan();
        return Names(catalog).size() == 2;
      },
      5s, 20ms))
      << "a file that answers again must be loaded at a later rescan";
}

}  // namespace
}  // namespace dagu
