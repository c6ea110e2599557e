#include "store/queue_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "core/time_format.h"
#include "store/run_status.h"
#include "support/fake_clock.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::TempDir;

WallTime T0() { return FromUnixSeconds(1796228680) + 472371856ns; }

TEST(QueueStoreTest, ItemNamesMatchDagu) {
  EXPECT_EQ(QueueStore::ItemFileName(QueuePriority::kLow, T0(), "demo-q"),
            "item_low_20261202_162440_472371856Z_demo-q.json");
  QueuePriority p;
  WallTime t;
  std::string id;
  ASSERT_TRUE(QueueStore::ParseItemFileName("item_high_20261202_162440_000000001Z_a_b.json", &p, &t, &id));
  EXPECT_EQ(p, QueuePriority::kHigh);
  EXPECT_EQ(id, "a_b");
  EXPECT_EQ(t, FromUnixSeconds(1796228680) + 1ns);
  EXPECT_FALSE(QueueStore::ParseItemFileName("item_low_20261202_162440_47237185Z_x.json", &p, &t, &id));
  EXPECT_FALSE(QueueStore::ParseItemFileName("item_mid_20261202_162440_472371856Z_x.json", &p, &t, &id));
  EXPECT_FALSE(QueueStore::ParseItemFileName("queue_123", &p, &t, &id));
  EXPECT_FALSE(QueueStore::ParseItemFileName(".claim_item_low_20261202_162440_472371856Z_x.json", &p, &t, &id));
}

TEST(QueueStoreTest, EnqueueWritesDaguContent) {
  TempDir dir;
  FakeClock clock(T0());
  QueueStore q(PosixFileSystem(), &clock, dir.Sub("queue"));
  QueueItem item;
  dir.WriteFile("queue/hello/.queue-index.json", "{\"version\":1}");
  ASSERT_TRUE(q.Enqueue("hello", QueuePriority::kLow, "hello", "demo-q", &item).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("queue/hello/.queue-index.json")));
  EXPECT_EQ(item.path, dir.Sub("queue/hello/item_low_20261202_162440_472371856Z_demo-q.json"));
  std::string text;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(item.path, &text).ok());
  EXPECT_EQ(text,
            R"({"fileName":"item_low_20261202_162440_472371856Z_demo-q.json","dagRun":{"name":"hello","id":"demo-q"},"queuedAt":"2026-12-02T16:24:40.472371856Z"})");
  // No temp files left.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Sub("queue/hello"))) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
}

TEST(QueueStoreTest, ListsHighBeforeLowOldestFirst) {
  TempDir dir;
  FakeClock clock(T0());
  QueueStore q(PosixFileSystem(), &clock, dir.Sub("queue"));
  QueueItem item;
  ASSERT_TRUE(q.Enqueue("q", QueuePriority::kLow, "d", "low-1", &item).ok());
  clock.Advance(1s);
  ASSERT_TRUE(q.Enqueue("q", QueuePriority::kHigh, "d", "high-2", &item).ok());
  clock.Advance(1s);
  ASSERT_TRUE(q.Enqueue("q", QueuePriority::kLow, "d", "low-3", &item).ok());
  clock.Advance(1s);
  ASSERT_TRUE(q.Enqueue("q", QueuePriority::kHigh, "d", "high-4", &item).ok());
  dir.WriteFile("queue/q/queue_12345", "partial");  // a temp file of Dagu's
  std::vector<QueueItem> items;
  ASSERT_TRUE(q.List("q", &items).ok());
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].run_id, "high-2");
  EXPECT_EQ(items[1].run_id, "high-4");
  EXPECT_EQ(items[2].run_id, "low-1");
  EXPECT_EQ(items[3].run_id, "low-3");
  EXPECT_EQ(items[0].dag_name, "d");
  std::vector<std::string> queues;
  ASSERT_TRUE(q.ListQueues(&queues).ok());
  EXPECT_EQ(queues, std::vector<std::string>{"q"});
  ASSERT_TRUE(q.List("missing", &items).ok());
  EXPECT_TRUE(items.empty());
}

TEST(QueueStoreTest, RemoveItemRemovesClaimAndEmptyDir) {
  TempDir dir;
  FakeClock clock(T0());
  QueueStore q(PosixFileSystem(), &clock, dir.Sub("queue"));
  QueueItem item;
  ASSERT_TRUE(q.Enqueue("q", QueuePriority::kLow, "d", "r1", &item).ok());
  ASSERT_TRUE(q.ClaimItem(item, "me").ok());
  std::vector<QueueItem> found;
  ASSERT_TRUE(q.FindRunItems("q", "r1", &found).ok());
  ASSERT_EQ(found.size(), 1u);
  ASSERT_TRUE(q.RemoveItem(found[0]).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("queue/q")));
  EXPECT_TRUE(q.RemoveItem(found[0]).ok());  // already gone
}

TEST(QueueStoreTest, ClaimIsExclusiveReleasableAndBreakable) {
  TempDir dir;
  FakeClock clock(T0());
  QueueStore q(PosixFileSystem(), &clock, dir.Sub("queue"));
  QueueItem item;
  ASSERT_TRUE(q.Enqueue("q", QueuePriority::kLow, "d", "r1", &item).ok());
  ASSERT_TRUE(q.ClaimItem(item, "A").ok());
  EXPECT_TRUE(q.ClaimItem(item, "B").IsAlreadyExists());
  QueueClaim claim;
  ASSERT_TRUE(q.ReadClaim(item, &claim).ok());
  EXPECT_EQ(claim.owner, "A");
  ASSERT_TRUE(q.ReleaseClaim(item).ok());
  EXPECT_TRUE(q.ReadClaim(item, &claim).IsNotFound());
  ASSERT_TRUE(q.ClaimItem(item, "B").ok());
  // Breaking with a stale observation of someone else's claim does nothing.
  QueueClaim stale{"A", claim.mtime};
  EXPECT_EQ(q.BreakClaim(item, stale).code(), Status::Code::kAborted);
  ASSERT_TRUE(q.ReadClaim(item, &claim).ok());
  EXPECT_EQ(claim.owner, "B");
  ASSERT_TRUE(q.BreakClaim(item, claim).ok());
  EXPECT_TRUE(q.ClaimItem(item, "C").ok());
  // Claims are invisible to listings.
  std::vector<QueueItem> items;
  ASSERT_TRUE(q.List("q", &items).ok());
  EXPECT_EQ(items.size(), 1u);
  // A gone item cannot be claimed.
  ASSERT_TRUE(q.RemoveItem(item).ok());
  EXPECT_TRUE(q.ClaimItem(item, "D").IsNotFound());
}

TEST(QueueStoreTest, ManyProcessesClaimOneItemOnce) {
  TempDir dir;
  FakeClock clock(T0());
  QueueStore q(PosixFileSystem(), &clock, dir.Sub("queue"));
  QueueItem item;
  ASSERT_TRUE(q.Enqueue("q", QueuePriority::kLow, "d", "r1", &item).ok());
  std::vector<pid_t> pids;
  for (int i = 0; i < 16; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Status s = q.ClaimItem(item, "owner-" + std::to_string(i));
      ::_exit(s.ok() ? 0 : 1);
    }
    pids.push_back(pid);
  }
  int winners = 0;
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    winners += WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  EXPECT_EQ(winners, 1);
}

}  // namespace
}  // namespace dagu
