#include "distributed/coordinator_dispatcher.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/file_system.h"
#include "distributed/coordinator_registration.h"
#include "distributed/coordinator_workers.h"
#include "support/fake_clock.h"

namespace dagu::distributed {
namespace {

// The registry is real (files written as our and 1.30.2's coordinators
// write them); the gRPC call is replaced (its module is exercised by
// tests/process/dispatch_interop_test.cc against real coordinators).
class CoordinatorDispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("coord_dispatch_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    registry_ = std::make_unique<ServiceRegistry>(PosixFileSystem(), dir_.string());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void WriteEntry(const std::string& hostname, int port) {
    CoordinatorRegistration reg(registry_.get(), CoordinatorAddressFor(hostname, "", "127.0.0.1", port, port), 1,
                                clock_.Now());
    ASSERT_TRUE(reg.Write().ok());
    ASSERT_TRUE(PosixFileSystem()
                    ->SetMtime(registry_->EntryPath("coordinator", hostname + "@" + std::to_string(port)), clock_.Now())
                    .ok());
  }

  // Answers per target; records the calls.
  DispatchCallFn Call() {
    return [this](const std::string& target, const DispatchTask& task, std::chrono::milliseconds,
                  std::string* error) {
      calls.push_back(target);
      last_task = task;
      auto it = answers.find(target);
      DispatchCallResult r = it == answers.end() ? DispatchCallResult::kFailed : it->second;
      if (r == DispatchCallResult::kNoWorker) *error = "no workers match the required selector";
      if (r == DispatchCallResult::kFailed) *error = "connection refused";
      return r;
    };
  }

  std::filesystem::path dir_;
  std::unique_ptr<ServiceRegistry> registry_;
  testing::FakeClock clock_;
  std::vector<std::string> calls;
  DispatchTask last_task;
  std::map<std::string, DispatchCallResult> answers;
};

TEST_F(CoordinatorDispatcherTest, NoCoordinatorIsNotFoundWithoutACall) {
  CoordinatorDiscovery discovery(registry_.get(), &clock_);
  CoordinatorDispatcher d(&discovery, Call());
  Status s = d.Dispatch(DispatchTask{});
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(calls.empty());
}

TEST_F(CoordinatorDispatcherTest, TriesEachCoordinatorUntilOneAccepts) {
  WriteEntry("a-host", 50055);
  WriteEntry("b-host", 50056);
  answers["b-host:50056"] = DispatchCallResult::kAccepted;
  CoordinatorDiscovery discovery(registry_.get(), &clock_);
  CoordinatorDispatcher d(&discovery, Call());
  DispatchTask task;
  task.run_id = "r1";
  EXPECT_TRUE(d.Dispatch(task).ok());
  EXPECT_EQ(calls, (std::vector<std::string>{"a-host:50055", "b-host:50056"}));
  EXPECT_EQ(last_task.run_id, "r1");
}

TEST_F(CoordinatorDispatcherTest, NoMatchingWorkerIsBusyOtherFailuresAreIOErrors) {
  WriteEntry("a-host", 50055);
  CoordinatorDiscovery discovery(registry_.get(), &clock_);
  CoordinatorDispatcher d(&discovery, Call());
  Status failed = d.Dispatch(DispatchTask{});
  EXPECT_EQ(failed.code(), Status::Code::kIOError) << failed.ToString();
  EXPECT_NE(failed.ToString().find("a-host:50055: connection refused"), std::string::npos) << failed.ToString();
  answers["a-host:50055"] = DispatchCallResult::kNoWorker;
  Status busy = d.Dispatch(DispatchTask{});
  EXPECT_EQ(busy.code(), Status::Code::kBusy) << busy.ToString();
  EXPECT_NE(busy.ToString().find("no workers match the required selector"), std::string::npos) << busy.ToString();
}

// /api/v2/workers' collection, as 1.30.2's client does it.
TEST_F(CoordinatorDispatcherTest, WorkersOfEveryCoordinatorAndTheLastFailureWhenNoneAnswered) {
  CoordinatorDiscovery discovery(registry_.get(), &clock_);
  std::map<std::string, int> codes;
  auto call = [&](const std::string& target, std::chrono::milliseconds, std::vector<WorkerInfoData>* out,
                  std::string* error) {
    int code = codes[target];
    if (code == 0) {
      WorkerInfoData w;
      w.worker_id = "w-" + target;
      out->push_back(w);
    }
    if (code == 14) *error = "rpc error: code = Unavailable desc = connection refused";
    if (code == 12) *error = "rpc error: code = Unimplemented desc = unknown method";
    return code;
  };
  WorkersAnswer none = CollectWorkers(&discovery, call);  // no coordinator: no call, no error
  EXPECT_TRUE(none.workers.empty() && none.errors.empty() && !none.unavailable);

  WriteEntry("a-host", 50055);
  WriteEntry("b-host", 50056);
  discovery.Invalidate();
  codes["a-host:50055"] = 14;  // workers from b: a's failure is left out
  WorkersAnswer some = CollectWorkers(&discovery, call);
  ASSERT_EQ(some.workers.size(), 1u);
  EXPECT_EQ(some.workers[0].worker_id, "w-b-host:50056");
  EXPECT_TRUE(some.errors.empty());
  EXPECT_FALSE(some.unavailable);

  codes["b-host:50056"] = 14;  // all unreachable: 1.30.2's 503
  EXPECT_TRUE(CollectWorkers(&discovery, call).unavailable);
  codes["b-host:50056"] = 12;  // the last failure is another one: an error entry
  WorkersAnswer failed = CollectWorkers(&discovery, call);
  EXPECT_FALSE(failed.unavailable);
  EXPECT_EQ(failed.errors, std::vector<std::string>{
                               "failed to get workers from any coordinator: rpc error: code = Unimplemented desc = "
                               "unknown method"});
}

}  // namespace
}  // namespace dagu::distributed
