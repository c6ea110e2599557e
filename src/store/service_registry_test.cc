#include "store/service_registry.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

ServiceEntry Sample() {
  ServiceEntry e;
  e.id = "vm.example-21148-1796228818";
  e.host = "vm.example";
  e.port = 18101;
  e.pid = 21148;
  e.status = kServiceStatusActive;
  e.started_at = WallTime(std::chrono::seconds(1796228818));
  e.role = "active";
  e.state = "active";
  e.role_since = WallTime(std::chrono::seconds(1796228820));
  e.lock_holder = e.id;
  e.last_renewal_seen_seconds = 1.5;
  e.version = "0.1.0";
  return e;
}

TEST(SafeServiceNameTest, MatchesDagu) {
  EXPECT_EQ(SafeServiceName("vm-21148-1796228818"), "vm-21148-1796228818");
  EXPECT_EQ(SafeServiceName("host.example.com-1-2"), "host_example_com-1-2");
  EXPECT_EQ(SafeServiceName(std::string(150, 'a')).size(), 100u);
}

TEST(ServiceEntryTest, DaguKeysComeFirstInDaguShapes) {
  std::string text = EncodeServiceEntry(Sample());
  EXPECT_EQ(text.rfind("{\n  \"id\": \"vm.example-21148-1796228818\",\n  \"host\": \"vm.example\",\n  \"port\": 18101,\n"
                       "  \"pid\": 21148,\n  \"status\": 1,\n  \"startedAt\": \"2026-12-02T",
                       0),
            0u)
      << text;
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["role"], "active");
  EXPECT_EQ(j["last_renewal_seen_seconds"], 1.5);
}

TEST(ServiceEntryTest, ReadsADaguWrittenEntry) {
  ServiceEntry e;
  ASSERT_TRUE(DecodeServiceEntry(R"({
  "id": "vm-21148-1796228818",
  "host": "vm",
  "port": 18101,
  "pid": 21148,
  "status": 2,
  "startedAt": "2026-12-02T16:26:58.766638585Z"
})",
                                 &e)
                  .ok());
  EXPECT_EQ(e.status, kServiceStatusInactive);
  EXPECT_EQ(e.pid, 21148);
  EXPECT_TRUE(e.role.empty());
  EXPECT_FALSE(e.role_since.has_value());
  EXPECT_TRUE(DecodeServiceEntry("[]", &e).IsCorruption());
}

TEST(ServiceRegistryTest, WritesListsAndRemoves) {
  TempDir dir;
  ServiceRegistry reg(PosixFileSystem(), dir.Sub("data/service-registry"));
  ServiceEntry e = Sample();
  ASSERT_TRUE(reg.Write("scheduler", e).ok());
  EXPECT_EQ(reg.EntryPath("scheduler", e.id),
            dir.Sub("data/service-registry/scheduler/vm_example-21148-1796228818.json"));
  dir.WriteFile("data/service-registry/scheduler/garbage.json", "nope");
  std::vector<ServiceEntry> live;
  int skipped = 0;
  ASSERT_TRUE(reg.List("scheduler", std::chrono::system_clock::now(), kServiceEntryStaleAfter, &live, &skipped).ok());
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(live[0].role, "active");
  // An entry whose mtime is older than 30 s is not live.
  ASSERT_TRUE(reg.List("scheduler", std::chrono::system_clock::now() + std::chrono::seconds(31),
                       kServiceEntryStaleAfter, &live)
                  .ok());
  EXPECT_TRUE(live.empty());
  ASSERT_TRUE(reg.Remove("scheduler", e.id).ok());
  ASSERT_TRUE(reg.Remove("scheduler", e.id).ok());
  ASSERT_TRUE(reg.List("scheduler", std::chrono::system_clock::now(), kServiceEntryStaleAfter, &live).ok());
  EXPECT_TRUE(live.empty());
}

TEST(ServiceRegistryTest, AMissingDirectoryIsAnEmptyList) {
  TempDir dir;
  ServiceRegistry reg(PosixFileSystem(), dir.Sub("nothing"));
  std::vector<ServiceEntry> live{Sample()};
  ASSERT_TRUE(reg.List("scheduler", std::chrono::system_clock::now(), kServiceEntryStaleAfter, &live).ok());
  EXPECT_TRUE(live.empty());
}

TEST(ServiceRegistryTest, WriteErrorsAreReturned) {
  TempDir dir;
  testing::FaultyFileSystem fs(PosixFileSystem());
  fs.FailWith("WriteFileAtomic", "scheduler", Status::NoSpace("ENOSPC"));
  ServiceRegistry reg(&fs, dir.Sub("data/service-registry"));
  EXPECT_EQ(reg.Write("scheduler", Sample()).code(), Status::Code::kNoSpace);
}

}  // namespace
}  // namespace dagu
