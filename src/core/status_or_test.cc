#include "core/status_or.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

namespace dagu {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Status Quarter(int x, int* out) {
  DAGU_ASSIGN_OR_RETURN(int half, Half(x));
  DAGU_ASSIGN_OR_RETURN(*out, Half(half));
  return Status::OK();
}

TEST(StatusOrTest, HoldsAValueOrTheError) {
  StatusOr<int> v = Half(8);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 4);
  EXPECT_EQ(v.value_or(-1), 4);
  StatusOr<int> e = Half(3);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(e.status().message(), "odd: 3");
  EXPECT_EQ(e.value_or(-1), -1);
}

TEST(StatusOrTest, AssignOrReturnPassesTheFirstErrorOn) {
  int out = 0;
  ASSERT_TRUE(Quarter(12, &out).ok());
  EXPECT_EQ(out, 3);
  Status s = Quarter(6, &out);  // 6 -> 3 -> odd
  EXPECT_EQ(s.message(), "odd: 3");
  EXPECT_EQ(out, 3);
}

TEST(StatusOrTest, MovesItsValueOut) {
  StatusOr<std::string> s = std::string(100, 'x');
  std::string taken = std::move(s).value();
  EXPECT_EQ(taken.size(), 100u);
  StatusOr<std::string> t(std::string("abc"));
  EXPECT_EQ(t->size(), 3u);
}

TEST(StatusTest, LogIfErrorLogsOnlyAnError) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(8);
  sink->set_pattern("%l %v");
  std::shared_ptr<spdlog::logger> saved = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("status_test", sink));
  Status::OK().LogIfError("nothing to log");
  Status::IOError("disk full").LogIfError("writing x");
  Status::IOError("disk full").IgnoreError();
  spdlog::set_default_logger(saved);
  EXPECT_EQ(sink->last_formatted(), std::vector<std::string>{"warning writing x: I/O error: disk full\n"});
}

}  // namespace
}  // namespace dagu
