// `dagu stop` aborts a chat step's request at once: the run of a chat step
// whose server answers only after 5 s ends aborted as soon as it is
// stopped, and the step's request is never retried (1.30.2 cancels the
// request's context; ours aborts the transfer).
#include <gtest/gtest.h>

#include <chrono>

#include "support/counterparts.h"
#include "support/dagu_process.h"
#include "support/run_records.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

using namespace std::chrono_literals;

TEST(ChatStopTest, StopAbortsTheRequestAtOnce) {
  TempDir server_dir;
  HttpTestServer server;
  ASSERT_TRUE(server.Start(server_dir.path()));
  DaguHome home;
  std::string path = home.WriteDag("chat-stop",
                                   "steps:\n"
                                   "  - name: ask\n"
                                   "    type: chat\n"
                                   "    llm: {provider: openai, model: m, stream: false, baseURL: \"" +
                                       server.url("/slowchat/v1") +
                                       "\"}\n"
                                       "    messages: [{role: user, content: hi}]\n");
  const std::map<std::string, std::string> env = {{"DAGU_HOME", home.home()}, {"OPENAI_API_KEY", "sk-stop"}};
  DaguProcess start("start", home.LogPath("start"));
  ASSERT_TRUE(start.Start(DAGU_BINARY, {"start", path}, env));
  ASSERT_TRUE(PollUntil([&] { return !server.Requests().empty(); }, 20s)) << start.Describe();
  const auto asked = std::chrono::steady_clock::now();
  DaguProcess stop("stop", home.LogPath("stop"));
  ASSERT_TRUE(stop.Start(DAGU_BINARY, {"stop", "chat-stop"}, env));
  EXPECT_EQ(stop.Wait(20s), 0) << stop.Describe();
  EXPECT_TRUE(start.Wait(20s).has_value()) << start.Describe();
  // The server answers 5 s after the request: the run ended before that.
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 4500ms) << start.Describe();
  auto runs = ReadRunRecords(home.data_dir(), "chat-stop");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status_code(), kRunAborted) << runs[0].Describe();
  EXPECT_EQ(server.Requests().size(), 1u);
}

}  // namespace
}  // namespace dagu::testing
