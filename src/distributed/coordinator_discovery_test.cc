#include "distributed/coordinator_discovery.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/file_system.h"
#include "distributed/coordinator_registration.h"
#include "support/fake_clock.h"

namespace dagu::distributed {
namespace {

using std::chrono::seconds;

class CoordinatorDiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("coord_disc_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    registry_ = std::make_unique<ServiceRegistry>(PosixFileSystem(), dir_.string());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes an entry as 1.30.2's coordinator does, with its mtime at `mtime`.
  void WriteEntry(const std::string& hostname, int port, WallTime mtime) {
    CoordinatorRegistration reg(registry_.get(), CoordinatorAddressFor(hostname, "", "127.0.0.1", port, port), 1,
                                mtime);
    ASSERT_TRUE(reg.Write().ok());
    ASSERT_TRUE(PosixFileSystem()->SetMtime(registry_->EntryPath("coordinator", hostname + "@" + std::to_string(port)),
                                            mtime).ok());
  }

  std::vector<CoordinatorEndpoint> Find(CoordinatorDiscovery* d) {
    std::vector<CoordinatorEndpoint> out;
    EXPECT_TRUE(d->Find(&out).ok());
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<ServiceRegistry> registry_;
  testing::FakeClock clock_;
};

TEST_F(CoordinatorDiscoveryTest, MissingDirectoryIsNoCoordinator) {
  CoordinatorDiscovery d(registry_.get(), &clock_);
  EXPECT_TRUE(Find(&d).empty());
}

TEST_F(CoordinatorDiscoveryTest, ListsLiveEntriesAndSkipsStaleOnes) {
  WriteEntry("b-host", 50055, clock_.Now() - seconds(29));
  WriteEntry("a-host", 50056, clock_.Now() - seconds(31));  // older than 30 s
  CoordinatorDiscovery d(registry_.get(), &clock_);
  std::vector<CoordinatorEndpoint> got = Find(&d);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (CoordinatorEndpoint{"b-host@50055", "b-host", 50055}));
  EXPECT_EQ(got[0].Target(), "b-host:50055");
}

TEST_F(CoordinatorDiscoveryTest, ReadsTheFileDagu1302Writes) {
  // As 1.30.2's fileserviceregistry writes it (json.MarshalIndent, Go's
  // RFC 3339 with nanoseconds and a zone offset).
  std::filesystem::create_directories(dir_ / "coordinator");
  std::ofstream(dir_ / "coordinator" / "vm1_50055.json")
      << "{\n  \"id\": \"vm1@50055\",\n  \"host\": \"10.1.2.3\",\n  \"port\": 50055,\n  \"pid\": 77,\n"
         "  \"status\": 1,\n  \"startedAt\": \"2026-12-05T18:01:02.123456789+09:00\"\n}";
  ASSERT_TRUE(PosixFileSystem()->SetMtime((dir_ / "coordinator" / "vm1_50055.json").string(), clock_.Now()).ok());
  CoordinatorDiscovery d(registry_.get(), &clock_);
  std::vector<CoordinatorEndpoint> got = Find(&d);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (CoordinatorEndpoint{"vm1@50055", "10.1.2.3", 50055}));
}

TEST_F(CoordinatorDiscoveryTest, SkipsEntriesWithoutAddress) {
  std::filesystem::create_directories(dir_ / "coordinator");
  std::ofstream(dir_ / "coordinator" / "x.json")
      << R"({"id":"x","host":"","port":50055,"pid":1,"status":1,"startedAt":"2026-12-05T18:01:02Z"})";
  std::ofstream(dir_ / "coordinator" / "y.json")
      << R"({"id":"y","host":"h","port":0,"pid":1,"status":1,"startedAt":"2026-12-05T18:01:02Z"})";
  for (const char* f : {"x.json", "y.json"})
    ASSERT_TRUE(PosixFileSystem()->SetMtime((dir_ / "coordinator" / f).string(), clock_.Now()).ok());
  CoordinatorDiscovery d(registry_.get(), &clock_);
  EXPECT_TRUE(Find(&d).empty());
}

TEST_F(CoordinatorDiscoveryTest, CachesANonEmptyResultForThreeSeconds) {
  WriteEntry("a-host", 50055, clock_.Now());
  CoordinatorDiscovery d(registry_.get(), &clock_);
  ASSERT_EQ(Find(&d).size(), 1u);
  WriteEntry("b-host", 50055, clock_.Now());
  EXPECT_EQ(Find(&d).size(), 1u);  // cached
  clock_.Advance(kCoordinatorDiscoveryCacheFor);
  EXPECT_EQ(Find(&d).size(), 2u);
  // Invalidate drops the cache at once.
  std::filesystem::remove(registry_->EntryPath("coordinator", "a-host@50055"));
  EXPECT_EQ(Find(&d).size(), 2u);
  d.Invalidate();
  EXPECT_EQ(Find(&d).size(), 1u);
}

TEST_F(CoordinatorDiscoveryTest, DoesNotCacheAnEmptyResult) {
  CoordinatorDiscovery d(registry_.get(), &clock_);
  EXPECT_TRUE(Find(&d).empty());
  WriteEntry("a-host", 50055, clock_.Now());
  EXPECT_EQ(Find(&d).size(), 1u);  // seen at once, without waiting 3 s
}

TEST(CoordinatorEndpointTest, TargetBracketsIpv6Literals) {
  EXPECT_EQ((CoordinatorEndpoint{"i", "::1", 50055}).Target(), "[::1]:50055");
  EXPECT_EQ((CoordinatorEndpoint{"i", "[::1]", 50055}).Target(), "[::1]:50055");
  EXPECT_EQ((CoordinatorEndpoint{"i", "10.0.0.1", 1}).Target(), "10.0.0.1:1");
}

}  // namespace
}  // namespace dagu::distributed
