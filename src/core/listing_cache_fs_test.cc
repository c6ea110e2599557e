#include "core/listing_cache_fs.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace dagu {
namespace {

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

class ListingCacheTest : public ::testing::Test {
 protected:
  // Sets the directory's mtime a minute back: old enough to be kept.
  void Age(const std::string& dir) {
    ASSERT_TRUE(PosixFileSystem()->SetMtime(dir, std::chrono::system_clock::now() - std::chrono::minutes(1)).ok());
  }
  std::vector<std::string> List(const std::string& dir) {
    std::vector<std::string> names;
    EXPECT_TRUE(fs_.ListDir(dir, &names).ok());
    return Sorted(names);
  }

  testing::TempDir tmp_;
  ListingCacheFileSystem fs_{PosixFileSystem(), 2};
};

TEST_F(ListingCacheTest, AnUnchangedDirectoryIsListedOnce) {
  const std::string d = tmp_.Sub("d");
  tmp_.WriteFile("d/a", "");
  Age(d);
  EXPECT_EQ(List(d), std::vector<std::string>{"a"});
  EXPECT_EQ(List(d), std::vector<std::string>{"a"});
  EXPECT_EQ(fs_.misses(), 1u);
  EXPECT_EQ(fs_.hits(), 1u);
}

// Another process adds or removes an entry: the directory's mtime changes,
// and the next listing shows it (here the mtime is set back to another old
// time, so only the version check, not the racy rule, can see the change).
TEST_F(ListingCacheTest, AnEntryMadeOrRemovedByAnyoneShowsInTheNextListing) {
  const std::string d = tmp_.Sub("d");
  tmp_.WriteFile("d/a", "");
  Age(d);
  EXPECT_EQ(List(d), std::vector<std::string>{"a"});
  tmp_.WriteFile("d/b", "");
  ASSERT_TRUE(PosixFileSystem()->SetMtime(d, std::chrono::system_clock::now() - std::chrono::minutes(2)).ok());
  EXPECT_EQ(List(d), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(::unlink(tmp_.Sub("d/a").c_str()), 0);
  ASSERT_TRUE(PosixFileSystem()->SetMtime(d, std::chrono::system_clock::now() - std::chrono::minutes(3)).ok());
  EXPECT_EQ(List(d), std::vector<std::string>{"b"});
}

// A listing of a directory changed within kRacyWindow is not kept: a second
// change in the same timestamp tick leaves the same version, and is seen.
TEST_F(ListingCacheTest, AFreshlyChangedDirectoryIsListedEveryTime) {
  const std::string d = tmp_.Sub("d");
  tmp_.WriteFile("d/a", "");
  struct stat before {};
  ASSERT_EQ(::stat(d.c_str(), &before), 0);
  EXPECT_EQ(List(d), std::vector<std::string>{"a"});
  tmp_.WriteFile("d/b", "");
  struct timespec keep[2] = {before.st_atim, before.st_mtim};  // same mtime, as within one tick
  ASSERT_EQ(::utimensat(AT_FDCWD, d.c_str(), keep, 0), 0);
  EXPECT_EQ(List(d), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(fs_.hits(), 0u);
}

TEST_F(ListingCacheTest, KeepsAtMostMaxDirsAndForgetsWhatIsGone) {
  for (const char* n : {"x", "y", "z"}) {
    tmp_.WriteFile(std::string(n) + "/f", "");
    Age(tmp_.Sub(n));
    List(tmp_.Sub(n));
  }
  List(tmp_.Sub("x"));  // evicted (2 kept): listed again
  EXPECT_EQ(fs_.hits(), 0u);
  List(tmp_.Sub("x"));
  EXPECT_EQ(fs_.hits(), 1u);
  ASSERT_TRUE(PosixFileSystem()->RemoveAll(tmp_.Sub("x")).ok());
  std::vector<std::string> names;
  EXPECT_TRUE(fs_.ListDir(tmp_.Sub("x"), &names).IsNotFound());
}

// SECOND SIGHT: a directory listed once is not kept (not even stat'ed);
// from its second listing on it is, and an entry another writer makes shows
// in the next listing at every stage.
TEST_F(ListingCacheTest, WithSightingsADirectoryIsKeptFromItsSecondListingOn) {
  ListingCacheFileSystem fs(PosixFileSystem(), 2, /*sighting_capacity=*/10);
  auto list = [&fs](const std::string& dir) {
    std::vector<std::string> names;
    EXPECT_TRUE(fs.ListDir(dir, &names).ok());
    return Sorted(names);
  };
  const std::string d = tmp_.Sub("d");
  tmp_.WriteFile("d/a", "");
  Age(d);
  EXPECT_EQ(list(d), std::vector<std::string>{"a"});
  tmp_.WriteFile("d/b", "");
  Age(d);
  EXPECT_EQ(list(d), (std::vector<std::string>{"a", "b"}));  // second sight: kept
  EXPECT_EQ(list(d), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(fs.hits(), 1u);
  tmp_.WriteFile("d/c", "");
  ASSERT_TRUE(PosixFileSystem()->SetMtime(d, std::chrono::system_clock::now() - std::chrono::minutes(2)).ok());
  EXPECT_EQ(list(d), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(fs.hits(), 1u);
}

}  // namespace
}  // namespace dagu
