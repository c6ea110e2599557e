// GET /api/v2/events (live updates) against the real binary: a run that
// another process (`dagu start`) starts reaches a connected client, behind
// a base path and with auth checked as for the rest of the API.
#include <gtest/gtest.h>

#include "support/raw_client.h"
#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

class WebLiveTest : public WebProcessTest {};

TEST_F(WebLiveTest, ARunStartedByAnotherProcessReachesAConnectedClient) {
  env_["DAGU_BASE_PATH"] = "/dagu";
  env_["DAGU_BASICAUTH_USERNAME"] = "u";
  env_["DAGU_BASICAUTH_PASSWORD"] = "p";
  std::string dag = home_.WriteDag("live_dag", "steps:\n  - name: a\n    command: sleep 1\n  - name: b\n    command: echo done\n    depends: [a]\n");
  DaguProcess* server = Launch("server", "server");
  ASSERT_TRUE(PollUntil([&] { return Call(server, "GET", "/dagu/api/v2/health").status == 200; }, 20s, 50ms));

  EXPECT_EQ(Call(server, "GET", "/dagu/api/v2/events").status, 401) << "auth is checked as for the API";

  RawClient client;
  ASSERT_TRUE(client.Connect(server->web_port));
  ASSERT_TRUE(client.Send("GET /dagu/api/v2/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic dTpw\r\n\r\n"));
  ASSERT_TRUE(client.ReadUntil("event: hello\ndata: {\"live\":true}\n\n", 10s)) << client.TakeReceived();
  std::string head = client.TakeReceived();
  EXPECT_NE(head.find("HTTP/1.1 200"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream"), std::string::npos) << head;

  Subprocess start;
  auto env = env_;
  ASSERT_TRUE(start.Start({DAGU_BINARY, "start", "--run-id=live-1", dag}, env, home_.LogPath("start")));
  EXPECT_TRUE(client.ReadUntil("event: run\ndata: {\"kind\":\"run\",\"dag\":\"live_dag\",\"runId\":\"live-1\"}\n\n", 30s))
      << client.TakeReceived();
  EXPECT_EQ(start.Wait(60s).value_or(-1), 0);
}

}  // namespace
}  // namespace dagu::testing
