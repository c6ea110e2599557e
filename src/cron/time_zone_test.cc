#include "cron/time_zone.h"

#include <cstdlib>
#include <optional>
#include <string>

#include <date/tz.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cron/cron_schedule.h"
#include "cron/cron_test_util.h"

namespace dagu {
namespace {

using ::dagu::testing::FormatUtc;
using ::dagu::testing::Utc;
using ::testing::AnyOf;
using ::testing::HasSubstr;

// Sets (or unsets, with nullopt) $TZ for one test and restores it after.
class ScopedTz {
 public:
  explicit ScopedTz(std::optional<std::string> value) {
    if (const char* old = std::getenv("TZ")) saved_ = old;
    Set(value);
  }
  ~ScopedTz() { Set(saved_); }
  ScopedTz(const ScopedTz&) = delete;
  ScopedTz& operator=(const ScopedTz&) = delete;

 private:
  static void Set(const std::optional<std::string>& value) {
    if (value) {
      setenv("TZ", value->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
  }
  std::optional<std::string> saved_;
};

std::string ZoneName(const date::time_zone* zone) { return zone == nullptr ? "(null)" : std::string(zone->name()); }

TEST(LocateZoneTest, FindsIanaNamesAndLinks) {
  const date::time_zone* zone = nullptr;
  ASSERT_TRUE(LocateZone("Europe/Berlin", &zone).ok());
  EXPECT_EQ(ZoneName(zone), "Europe/Berlin");
  ASSERT_TRUE(LocateZone("US/Eastern", &zone).ok());
  EXPECT_NE(zone, nullptr);
}

TEST(LocateZoneTest, EmptyAndUtcAreUtcLikeGo) {
  const date::time_zone* zone = nullptr;
  ASSERT_TRUE(LocateZone("", &zone).ok());
  EXPECT_THAT(ZoneName(zone), AnyOf("UTC", "Etc/UTC"));
  ASSERT_TRUE(LocateZone("UTC", &zone).ok());
  EXPECT_THAT(ZoneName(zone), AnyOf("UTC", "Etc/UTC"));
}

TEST(LocateZoneTest, LocalIsTheProcessZone) {
  ScopedTz tz("Asia/Tokyo");
  const date::time_zone* zone = nullptr;
  ASSERT_TRUE(LocateZone("Local", &zone).ok());
  EXPECT_EQ(ZoneName(zone), "Asia/Tokyo");
}

TEST(LocateZoneTest, UnknownZoneIsNamed) {
  const date::time_zone* zone = nullptr;
  Status status = LocateZone("Europe/Atlantis", &zone);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("unknown time zone \"Europe/Atlantis\""));
  EXPECT_EQ(zone, nullptr);
  EXPECT_FALSE(LocateZone("../../etc/passwd", &zone).ok());
  EXPECT_FALSE(LocateZone("europe/berlin", &zone).ok());  // case matters, as in Go on Linux
}

TEST(LocalZoneTest, FollowsTheTzVariableLikeGo) {
  {
    ScopedTz tz("America/New_York");
    EXPECT_EQ(ZoneName(LocalZone()), "America/New_York");
  }
  {
    ScopedTz tz(":Europe/Berlin");
    EXPECT_EQ(ZoneName(LocalZone()), "Europe/Berlin");
  }
  {
    ScopedTz tz("/usr/share/zoneinfo/Asia/Kolkata");
    EXPECT_EQ(ZoneName(LocalZone()), "Asia/Kolkata");
  }
  {
    ScopedTz tz("");
    EXPECT_THAT(ZoneName(LocalZone()), AnyOf("UTC", "Etc/UTC"));
  }
  {
    ScopedTz tz("No/Such_Zone");  // Go falls back to UTC
    EXPECT_THAT(ZoneName(LocalZone()), AnyOf("UTC", "Etc/UTC"));
  }
  {
    ScopedTz tz(std::nullopt);  // /etc/localtime
    EXPECT_NE(LocalZone(), nullptr);
  }
}

TEST(LocalZoneTest, ParseWithoutADefaultZoneUsesTheLocalZone) {
  ScopedTz tz("Asia/Tokyo");
  CronSchedule schedule;
  ASSERT_TRUE(CronSchedule::Parse("0 9 * * *", nullptr, &schedule).ok());
  EXPECT_EQ(ZoneName(schedule.zone()), "Asia/Tokyo");
  EXPECT_EQ(FormatUtc(*schedule.Next(Utc(2025, 1, 1, 1, 0))), "2025-01-02 00:00");
}

}  // namespace
}  // namespace dagu
