#include "web/log_view.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace dagu::web {
namespace {

ApiJson Read(const std::string& path, LogWindow w) {
  ApiJson out;
  Status s = ReadLogFile(path, w, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TEST(LogViewTest, WindowsOfASmallLog) {
  dagu::testing::TempDir dir;
  std::string path = dir.WriteFile("a.out", "l1\nl2\nl3\nl4\nl5\n");
  ApiJson all = Read(path, {});
  EXPECT_EQ(all["content"], "l1\nl2\nl3\nl4\nl5");
  EXPECT_EQ(all["lineCount"], 5);
  EXPECT_EQ(all["totalLines"], 5);
  EXPECT_EQ(all["hasMore"], false);
  EXPECT_EQ(all["isEstimate"], false);
  ApiJson tail = Read(path, {.tail = 2});
  EXPECT_EQ(tail["content"], "l4\nl5");
  EXPECT_EQ(tail["hasMore"], true);
  ApiJson head = Read(path, {.head = 2});
  EXPECT_EQ(head["content"], "l1\nl2");
  ApiJson mid = Read(path, {.offset = 2, .limit = 2});
  EXPECT_EQ(mid["content"], "l2\nl3");
  EXPECT_EQ(mid["lineCount"], 2);
  ApiJson past = Read(path, {.offset = 9, .limit = 2});
  EXPECT_EQ(past["content"], "");
  EXPECT_EQ(past["lineCount"], 0);
  std::string open_line = dir.WriteFile("b.out", "x\n\ny");  // no final newline, an empty line
  ApiJson b = Read(open_line, {});
  EXPECT_EQ(b["content"], "x\n\ny");
  EXPECT_EQ(b["totalLines"], 3);
  EXPECT_EQ(Read(dir.WriteFile("c.out", ""), {})["totalLines"], 0);
}

TEST(LogViewTest, ABigLogIsScannedNotLoaded) {
  dagu::testing::TempDir dir;
  std::string path = dir.Sub("big.out");
  {
    std::ofstream f(path);
    std::string line(99, 'x');
    for (int i = 0; i < 200000; ++i) f << line << "\n";  // 20 MB, 100-byte lines
  }
  ApiJson tail = Read(path, {.tail = 3});
  EXPECT_EQ(tail["isEstimate"], true) << "only the last 16 MiB are scanned";
  EXPECT_EQ(tail["lineCount"], 3);
  EXPECT_EQ(tail["totalLines"], static_cast<long long>(kMaxLogScanBytes / 100));
  ApiJson many = Read(path, {.tail = 1000000});
  EXPECT_LE(many["content"].get<std::string>().size(), kMaxLogContentBytes) << "the answer is capped";
  EXPECT_EQ(many["hasMore"], true);
  EXPECT_EQ(many["lineCount"].get<long long>(), static_cast<long long>(kMaxLogContentBytes / 100));
  ApiJson head = Read(path, {.head = 1000000});
  EXPECT_LE(head["content"].get<std::string>().size(), kMaxLogContentBytes);
  EXPECT_EQ(head["content"].get<std::string>().substr(0, 100), std::string(99, 'x') + "\n");
}

TEST(LogViewTest, AFifoOrASymlinkIsRefusedAtOnce) {
  dagu::testing::TempDir dir;
  std::string fifo = dir.Sub("step.out");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  ApiJson out;
  Status s = ReadLogFile(fifo, {}, &out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "never blocks on a FIFO";
  EXPECT_EQ(s.code(), Status::Code::kPermissionDenied) << s.ToString();
  EXPECT_EQ(s.message(), "log file step.out is not a regular file; not served") << "no server path";

  std::string secret = dir.WriteFile("secret", "root:x:0:0\n");
  std::string link = dir.Sub("link.out");
  ASSERT_EQ(::symlink(secret.c_str(), link.c_str()), 0);
  s = ReadLogFile(link, {}, &out);
  EXPECT_EQ(s.code(), Status::Code::kPermissionDenied) << s.ToString();
  EXPECT_EQ(s.message().find("root"), std::string::npos);

  s = ReadLogFile(dir.Sub("missing.out"), {}, &out);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.message(), "log file missing.out does not exist");
}

}  // namespace
}  // namespace dagu::web
