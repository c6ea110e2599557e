// EventHub: the live-update clients, what they are sent, and the bounds.
#include "web/event_hub.h"

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

std::string Drain(http::BodyStream& s) {
  bool ended = false;
  return s.Take(&ended);
}

TEST(EventHubTest, AClientFirstGetsTheHelloThenEachEventAsOneDataLine) {
  EventHub hub;
  auto s = hub.Subscribe("{\"live\":true}");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Drain(*s), "retry: 3000\nevent: hello\ndata: {\"live\":true}\n\n");
  EXPECT_EQ(hub.Publish({"run", "etl", "r1", ""}), 1u);
  EXPECT_EQ(Drain(*s), "event: run\ndata: {\"kind\":\"run\",\"dag\":\"etl\",\"runId\":\"r1\"}\n\n");
  EXPECT_EQ(hub.Publish({"queue", "", "r2", "q"}), 1u);
  EXPECT_EQ(Drain(*s), "event: queue\ndata: {\"kind\":\"queue\",\"runId\":\"r2\",\"queue\":\"q\"}\n\n");
  EXPECT_EQ(hub.Heartbeat(), 1u);
  EXPECT_EQ(Drain(*s), ": ping\n\n");
}

TEST(EventHubTest, ANameWithANewlineCannotSplitTheEvent) {
  EXPECT_EQ(FormatLiveEvent({"dag", "a\nevent: x", "", ""}),
            "event: dag\ndata: {\"kind\":\"dag\",\"dag\":\"a\\nevent: x\"}\n\n");
}

TEST(EventHubTest, AtMostMaxClientsAndALeftClientFreesItsPlace) {
  EventHub hub(EventHubOptions{2, 1024});
  auto a = hub.Subscribe();
  auto b = hub.Subscribe();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(hub.Subscribe(), nullptr) << "full";
  a->Detach();  // the connection went away
  auto c = hub.Subscribe();
  EXPECT_NE(c, nullptr) << "a closed stream does not count";
  EXPECT_EQ(hub.clients(), 2u);
}

TEST(EventHubTest, AClientThatDoesNotReadIsDroppedAndTheOthersStillGetEverything) {
  EventHub hub(EventHubOptions{8, 512});
  auto slow = hub.Subscribe();
  auto fast = hub.Subscribe();
  Drain(*fast);
  size_t rounds = 0;
  while (!slow->closed() && rounds < 100) {
    EXPECT_GE(hub.Publish({"run", "etl", "r" + std::to_string(rounds), ""}), 1u);
    EXPECT_NE(Drain(*fast).find("\"runId\":\"r" + std::to_string(rounds) + "\""), std::string::npos);
    ++rounds;
  }
  EXPECT_TRUE(slow->closed()) << "512 bytes unread end the slow stream";
  EXPECT_LT(rounds, 100u);
  EXPECT_EQ(hub.Publish({"dag", "d", "", ""}), 1u) << "the fast one only";
  EXPECT_EQ(hub.clients(), 1u);
}

TEST(EventHubTest, CloseEndsEveryStreamAndRefusesNewOnes) {
  EventHub hub;
  auto a = hub.Subscribe();
  hub.Close();
  EXPECT_TRUE(a->closed());
  EXPECT_EQ(hub.Subscribe(), nullptr);
  EXPECT_EQ(hub.Publish({"dag", "d", "", ""}), 0u);
  hub.Close();  // idempotent
}

}  // namespace
}  // namespace dagu::web
