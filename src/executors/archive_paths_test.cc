// archive_paths: Go's path functions and doublestar's globs, with the
// answers Go 1.25 and doublestar v4.8.0 (Dagu 1.30.2's) give.
#include "executors/archive_paths.h"

#include <gtest/gtest.h>

namespace dagu::archive_paths {
namespace {

TEST(ArchivePathsTest, CleanJoinBaseDirAsGo) {
  EXPECT_EQ(Clean(""), ".");
  EXPECT_EQ(Clean("./a//b/../c/"), "a/c");
  EXPECT_EQ(Clean("../../x"), "../../x");
  EXPECT_EQ(Clean("/../x"), "/x");
  EXPECT_EQ(Join({"s1", "a.txt"}), "s1/a.txt");
  EXPECT_EQ(Join({"", "tmp", "x"}), "tmp/x");
  EXPECT_EQ(Join({"o", "/tmp/x"}), "o/tmp/x");
  EXPECT_EQ(Join({"", ""}), "");
  EXPECT_EQ(Base("data/"), "data");
  EXPECT_EQ(Base(""), ".");
  EXPECT_EQ(Dir("x.zip"), ".");
  EXPECT_EQ(Dir("out/data.tar.gz"), "out");
  EXPECT_EQ(Dir("/x"), "/");
}

TEST(ArchivePathsTest, PathWithin) {
  EXPECT_TRUE(PathWithin("o1", "o1/ok.txt"));
  EXPECT_TRUE(PathWithin("o1", "o1"));
  EXPECT_FALSE(PathWithin("o1", "escape.txt"));
  EXPECT_FALSE(PathWithin("o1", "o1/../o12/x"));
  EXPECT_FALSE(PathWithin(".", "../x"));
  EXPECT_TRUE(PathWithin(".", "x/y"));
  EXPECT_TRUE(PathWithin("/d", "/d/x"));
  EXPECT_FALSE(PathWithin("/d", "/dx"));
}

TEST(ArchivePathsTest, SanitizeStripsAndFlattens) {
  EXPECT_EQ(SanitizeArchivePath("./data/a.txt", 0, true), "data/a.txt");
  EXPECT_EQ(SanitizeArchivePath("data/", 1, true), "");
  EXPECT_EQ(SanitizeArchivePath("data/", 0, true), "data");
  EXPECT_EQ(SanitizeArchivePath("data/sub/b.log", 1, true), "sub/b.log");
  EXPECT_EQ(SanitizeArchivePath("data/sub/b.log", 3, true), "");
  EXPECT_EQ(SanitizeArchivePath("data/sub/b.log", 0, false), "b.log");
  EXPECT_EQ(SanitizeArchivePath("data/", 0, false), "data");
  EXPECT_EQ(SanitizeArchivePath("../escape.txt", 0, true), "../escape.txt");
  EXPECT_EQ(SanitizeArchivePath("/tmp/x", 0, true), "tmp/x");
  EXPECT_EQ(SanitizeArchivePath(".", 0, true), "");
}

TEST(ArchivePathsTest, ValidGlobAsDoublestar) {
  EXPECT_TRUE(ValidGlob("**/*.txt"));
  EXPECT_TRUE(ValidGlob("{a,b}/[!x]"));
  EXPECT_FALSE(ValidGlob("[a"));
  EXPECT_FALSE(ValidGlob("[]"));
  EXPECT_FALSE(ValidGlob("{a"));
  EXPECT_FALSE(ValidGlob("a}"));
  EXPECT_FALSE(ValidGlob("a\\"));
}

// What Dagu 1.30.2 listed for these include/exclude patterns.
TEST(ArchivePathsTest, GlobMatchAsDoublestar) {
  EXPECT_TRUE(GlobMatch("**/*.txt", "data/a.txt"));
  EXPECT_TRUE(GlobMatch("**/*.txt", "data/deep/x/c.txt"));
  EXPECT_TRUE(GlobMatch("**/*.txt", "a.txt"));
  EXPECT_FALSE(GlobMatch("**/*.txt", "data"));
  EXPECT_TRUE(GlobMatch("data/**", "data"));
  EXPECT_TRUE(GlobMatch("data/**", "data/sub/b.log"));
  EXPECT_FALSE(GlobMatch("data/**", "database"));
  EXPECT_FALSE(GlobMatch("*.log", "data/sub/b.log"));
  EXPECT_TRUE(GlobMatch("*.log", "b.log"));
  EXPECT_TRUE(GlobMatch("data/*", "data/deep"));
  EXPECT_FALSE(GlobMatch("data/*", "data/deep/x"));
  EXPECT_TRUE(GlobMatch("{data/a.txt,data/deep}", "data/deep"));
  EXPECT_TRUE(GlobMatch("{data/a.txt,data/deep}", "data/a.txt"));
  EXPECT_FALSE(GlobMatch("{data/a.txt,data/deep}", "data/sub"));
  EXPECT_TRUE(GlobMatch("deep/**", "deep/x/c.txt"));
  EXPECT_TRUE(GlobMatch("a/**/b", "a/b"));
  EXPECT_TRUE(GlobMatch("a/**/b", "a/x/y/b"));
  EXPECT_TRUE(GlobMatch("?.t[a-x]t", "a.txt"));
  EXPECT_FALSE(GlobMatch("?.t[!x]t", "a.txt"));
  EXPECT_TRUE(GlobMatch("a\\*", "a*"));
  EXPECT_FALSE(GlobMatch("a\\*", "ab"));
  EXPECT_TRUE(GlobMatch("  *.txt ", "a.txt"));  // trimmed
  EXPECT_FALSE(GlobMatch("", "a"));
  EXPECT_FALSE(GlobMatch("[a", "a"));
}

TEST(ArchivePathsTest, Filters) {
  EXPECT_TRUE(MatchesFilters("x", {}, {}));
  EXPECT_FALSE(MatchesFilters("data/sub", {"data/**"}, {"data/sub/**"}));
  EXPECT_TRUE(MatchesFilters("data/a.txt", {"data/**"}, {"data/sub/**", "*.log"}));
  EXPECT_FALSE(MatchesFilters("data/a.txt", {"*.txt"}, {}));
}

}  // namespace
}  // namespace dagu::archive_paths
