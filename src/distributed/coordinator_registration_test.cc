#include "distributed/coordinator_registration.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_system.h"

namespace dagu::distributed {
namespace {

TEST(CoordinatorAddressTest, FollowsDagus1302Order) {
  CoordinatorAddress a = CoordinatorAddressFor("vm1", "", "0.0.0.0", 50055, 50055);
  EXPECT_EQ(a.id, "vm1@50055");
  EXPECT_EQ(a.host, "vm1");
  EXPECT_EQ(a.port, 50055);
  EXPECT_EQ(CoordinatorAddressFor("vm1", "coord.example", "0.0.0.0", 50055, 50055).host, "coord.example");
  EXPECT_EQ(CoordinatorAddressFor("", "", "10.0.0.5", 7, 7).host, "10.0.0.5");
  // The ID keeps the configured port; the entry the bound one.
  CoordinatorAddress any = CoordinatorAddressFor("vm1", "", "127.0.0.1", 0, 40001);
  EXPECT_EQ(any.id, "vm1@0");
  EXPECT_EQ(any.port, 40001);
}

TEST(CoordinatorRegistrationTest, WritesTheFileDaguReadsAndRemovesIt) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("coord_reg_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                               "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ServiceRegistry registry(PosixFileSystem(), dir.string());
  WallTime started = WallTime(std::chrono::seconds(1'700'000'000));
  CoordinatorRegistration reg(&registry, CoordinatorAddressFor("vm1", "", "127.0.0.1", 50055, 50055), 4242, started);
  ASSERT_TRUE(reg.Write().ok());
  std::filesystem::path file = dir / "coordinator" / "vm1_50055.json";
  ASSERT_TRUE(std::filesystem::exists(file));
  std::vector<ServiceEntry> live;
  ASSERT_TRUE(registry.List("coordinator", std::chrono::system_clock::now(), kServiceEntryStaleAfter, &live).ok());
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, "vm1@50055");
  EXPECT_EQ(live[0].host, "vm1");
  EXPECT_EQ(live[0].port, 50055);
  EXPECT_EQ(live[0].pid, 4242);
  EXPECT_EQ(live[0].status, kServiceStatusActive);
  EXPECT_EQ(live[0].started_at, started);
  ASSERT_TRUE(reg.Remove().ok());
  EXPECT_FALSE(std::filesystem::exists(file));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dagu::distributed
