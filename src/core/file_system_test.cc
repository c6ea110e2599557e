#include "core/file_system.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace dagu {
namespace {

// Found by tests/chaos (corrupt files): a FIFO in place of the lock's owner
// record blocked every scheduler's first look at the lock for ever (no
// /health, no standby, SIGTERM ended only by the 10 s watchdog). Every
// reader goes through ReadFile, which now refuses what is not a file.
TEST(PosixFileSystemTest, ReadFileRefusesAFifoAtOnceAndNamesIt) {
  testing::TempDir dir;
  std::string fifo = dir.Sub("owner");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string text = "unchanged";
  Status s = PosixFileSystem()->ReadFile(fifo, &text);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find(fifo), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("not a regular file"), std::string::npos) << s.ToString();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(PosixFileSystemTest, ReadFileOfADirectoryOrAMissingFileNamesIt) {
  testing::TempDir dir;
  std::string text;
  Status d = PosixFileSystem()->ReadFile(dir.path(), &text);
  EXPECT_FALSE(d.ok());
  EXPECT_NE(d.ToString().find(dir.path()), std::string::npos) << d.ToString();
  EXPECT_TRUE(d.IsCorruption()) << d.ToString();
  Status m = PosixFileSystem()->ReadFile(dir.Sub("missing"), &text);
  EXPECT_TRUE(m.IsNotFound()) << m.ToString();
  std::ofstream(dir.Sub("f")) << "contents";
  ASSERT_TRUE(PosixFileSystem()->ReadFile(dir.Sub("f"), &text).ok());
  EXPECT_EQ(text, "contents");
}

}  // namespace
}  // namespace dagu
