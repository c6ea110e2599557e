// ChatRunner: request building and answer parsing, and whole steps against
// the local chat-completions server the test starts (tests/support
// counterparts.h: /<mode>/v1/chat/completions answers "reply <n> to <last>").
// Expected bodies and outputs are what Dagu 1.30.2 sent and printed against
// the same server.
#include "executors/chat_executor.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <thread>

#include "executors/executor_test_util.h"
#include "support/counterparts.h"

namespace dagu {
namespace {

using testing::HttpTestServer;
using testing::StepFixture;

LlmConfig Config(const std::string& provider = "openai") {
  LlmConfig c;
  c.provider = provider;
  c.model = "gpt-test";
  return c;
}

TEST(ChatRequestTest, OpenAiStreamBodyInGoFieldOrder) {
  LlmConfig c = Config();
  c.temperature = 0.7;
  std::vector<chat::Message> m = {{"system", "You are terse.", {}, {}, {}}, {"user", "What is 42?", {}, {}, {}}};
  EXPECT_EQ(chat::RequestBody("openai", c, m, true),
            R"({"model":"gpt-test","messages":[{"role":"system","content":"You are terse."},)"
            R"({"role":"user","content":"What is 42?"}],"temperature":0.7,"stream":true,)"
            R"("stream_options":{"include_usage":true}})");
}

TEST(ChatRequestTest, OptionsAndHtmlEscapingAsGoMarshals) {
  LlmConfig c = Config("local");
  c.temperature = 0;
  c.max_tokens = 50;
  c.top_p = 1;
  std::vector<chat::Message> m = {{"user", "a<b> & \"c\"", {}, {}, {}}};
  EXPECT_EQ(chat::RequestBody("local", c, m, false),
            R"({"model":"gpt-test","messages":[{"role":"user","content":"a\u003cb\u003e \u0026 \"c\""}],)"
            R"("temperature":0,"max_tokens":50,"top_p":1})");
  // local never sends stream_options.
  EXPECT_EQ(chat::RequestBody("local", Config("local"), {}, true), R"({"model":"gpt-test","messages":[],"stream":true})");
}

TEST(ChatRequestTest, ThinkingOnOpenAiUsesMaxCompletionTokensAndDropsSampling) {
  LlmConfig c = Config();
  c.temperature = 0.5;
  c.max_tokens = 100;
  c.thinking = LlmThinking{true, "", std::nullopt, false};
  EXPECT_EQ(chat::RequestBody("openai", c, {}, false),
            R"({"model":"gpt-test","messages":[],"max_completion_tokens":100,"reasoning":{"effort":"medium"}})");
  c.thinking->budget_tokens = 2000;
  c.thinking->effort = "high";
  EXPECT_EQ(chat::RequestBody("openrouter", c, {}, false),
            R"({"model":"gpt-test","messages":[],"temperature":0.5,"max_tokens":6096,)"
            R"("reasoning":{"effort":"high","max_tokens":2000}})");
}

TEST(ChatRequestTest, MessageListPutsTheStepSystemFirstThenContext) {
  std::vector<chat::Message> step = {{"system", "s1", {}, {}, {}}, {"user", "hi", {}, {}, {}},
                                     {"system", "s2", {}, {}, {}}, {"user", "more", {}, {}, {}}};
  std::vector<chat::Message> context = {{"system", "old", {}, {}, {}}, {"user", "q", {}, {}, {}},
                                        {"assistant", "a", {}, {}, {}}};
  std::vector<std::string> got;
  for (const auto& m : chat::BuildMessageList(step, context)) got.push_back(m.role + ":" + m.content);
  EXPECT_EQ(got, (std::vector<std::string>{"system:s2", "user:q", "assistant:a", "user:hi", "user:more"}));
}

TEST(ChatResponseTest, ParsesContentAndUsageOrSaysWhyNotAsGo) {
  std::string content, error;
  chat::Usage u;
  ASSERT_TRUE(chat::ParseResponse(
      R"({"choices":[{"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":1,"total_tokens":3}})",
      &content, &u, &error));
  EXPECT_EQ(content, "hi");
  EXPECT_EQ(u.prompt_tokens, 1);
  EXPECT_EQ(u.total_tokens, 3);
  EXPECT_FALSE(chat::ParseResponse("not json", &content, &u, &error));
  EXPECT_EQ(error, "failed to decode response: invalid character 'o' in literal null (expecting 'u')");
  EXPECT_FALSE(chat::ParseResponse(R"({"choices":[]})", &content, &u, &error));
  EXPECT_EQ(error, "no choices in response");
  EXPECT_FALSE(chat::ParseResponse("", &content, &u, &error));
  EXPECT_EQ(error, "failed to decode response: EOF");
}

TEST(ChatStreamTest, DeltasAcrossChunksUsageAndDone) {
  chat::StreamReader r;
  std::string out = r.Feed("data: {\"choices\":[{\"delta\":{\"content\":\"he\"}}]}\n\n: comment\ndata: {\"cho");
  out += r.Feed("ices\":[{\"delta\":{\"content\":\"llo\"}}]}\n\ndata: not json\n");
  out += r.Feed("data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n");
  EXPECT_EQ(out, "hello");
  EXPECT_TRUE(r.done());
  ASSERT_TRUE(r.usage().has_value());
  EXPECT_EQ(r.usage()->completion_tokens, 2);
}

TEST(ChatMessagesFileTest, MarshalIndentRoundTrip) {
  std::vector<chat::Message> m = {{"user", "q", {}, {}, {}},
                                  {"assistant", "a", std::string("openai"), std::string("m"), chat::Usage{7, 3, 10}}};
  const std::string text = chat::MessagesJson(m);
  EXPECT_EQ(text,
            "[\n  {\n    \"role\": \"user\",\n    \"content\": \"q\"\n  },\n  {\n    \"role\": \"assistant\",\n"
            "    \"content\": \"a\",\n    \"metadata\": {\n      \"provider\": \"openai\",\n      \"model\": \"m\",\n"
            "      \"promptTokens\": 7,\n      \"completionTokens\": 3,\n      \"totalTokens\": 10\n    }\n  }\n]");
  std::vector<chat::Message> back;
  ASSERT_TRUE(chat::ParseMessagesJson(text, &back));
  EXPECT_EQ(chat::MessagesJson(back), text);
}

class ChatRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start(server_dir_.path())); }
  void Prepare(StepFixture& f, const std::string& mode, bool stream) {
    f.step.name = "ask";
    f.step.executor_type = "chat";
    LlmConfig c = Config();
    c.base_url = server_.url("/" + mode + "/v1");
    c.stream = stream;
    f.step.llm = c;
    f.step.messages = {{"user", "hi ${WHO}", }};
  }
  StepResult Run(const StepFixture& f, std::vector<std::string> env = {"OPENAI_API_KEY=sk-secret-1"}) {
    StepInvocation inv = f.Inv();
    inv.env.insert(inv.env.end(), env.begin(), env.end());
    inv.env.push_back("WHO=you");
    inv.messages_dir = f.dir.Sub("messages");
    ChatRunner runner;
    return runner.Start(inv)->Wait();
  }
  testing::TempDir server_dir_;
  HttpTestServer server_;
};

TEST_F(ChatRunnerTest, StreamsTheAnswerToStdoutAndSavesTheConversation) {
  StepFixture f;
  Prepare(f, "x", true);
  StepResult r = Run(f);
  EXPECT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), "reply 1 to hi you\n");
  EXPECT_EQ(r.captured_stdout, "reply 1 to hi you\n");
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["p"], "/x/v1/chat/completions");
  EXPECT_EQ(requests[0]["h"]["Authorization"], "Bearer sk-secret-1");
  EXPECT_EQ(requests[0]["h"]["Content-Type"], "text/plain; charset=utf-8");
  EXPECT_FALSE(requests[0]["h"].contains("Accept"));
  EXPECT_EQ(requests[0]["b"],
            R"({"model":"gpt-test","messages":[{"role":"user","content":"hi you"}],"stream":true,)"
            R"("stream_options":{"include_usage":true}})");
  std::vector<chat::Message> saved;
  ASSERT_TRUE(chat::ParseMessagesJson(testing::ReadFile(f.dir.Sub("messages/ask.json")), &saved));
  ASSERT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved[1].content, "reply 1 to hi you");
  EXPECT_EQ(saved[1].usage->total_tokens, 10);
}

TEST_F(ChatRunnerTest, ADependentStepCarriesTheConversation) {
  StepFixture f;
  Prepare(f, "x", false);
  ASSERT_EQ(Run(f).exit_code, 0);
  std::remove(f.dir.Sub("s.out").c_str());  // the fixture's log file is shared by both steps
  f.step.name = "follow";
  f.step.depends = {"ask"};
  f.step.messages = {{"user", "again"}};
  StepResult r = Run(f);
  EXPECT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), "reply 3 to again\n");
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1]["b"], R"({"model":"gpt-test","messages":[{"role":"user","content":"hi you"},)"
                              R"({"role":"assistant","content":"reply 1 to hi you"},)"
                              R"({"role":"user","content":"again"}]})");
}

TEST_F(ChatRunnerTest, ErrorsReadAsDagus) {
  StepFixture f;
  Prepare(f, "err400", true);
  StepResult r = Run(f);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, R"(chat stream request failed: llm API error (status 400): {"error":{"message":"rejected by the test server"}})");
  Prepare(f, "notjson", false);
  r = Run(f);
  EXPECT_EQ(r.error,
            "chat request failed: openai API error (status 0): failed to decode response: invalid character 'o' in "
            "literal null (expecting 'u'): failed to decode response: invalid character 'o' in literal null "
            "(expecting 'u')");
  Prepare(f, "x", true);
  r = Run(f, {});
  EXPECT_EQ(r.error, "failed to create LLM provider: no API key provided");
  f.step.llm.reset();
  r = Run(f);
  EXPECT_EQ(r.error, "llm configuration is required for chat executor");
}

TEST_F(ChatRunnerTest, TheKeyIsMaskedInWhatTheStepWrites) {
  StepFixture f;
  Prepare(f, "x", true);
  f.step.messages = {{"user", "${OPENAI_API_KEY}"}};
  StepResult r = Run(f);
  EXPECT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), "reply 1 to *******\n");
  EXPECT_EQ(testing::ReadFile(f.dir.Sub("messages/ask.json")).find("reply 1 to sk-secret-1"), std::string::npos);
}

TEST_F(ChatRunnerTest, SignalAbortsARequestAtOnce) {
  StepFixture f;
  Prepare(f, "slowchat", false);
  StepInvocation inv = f.Inv();
  inv.env.push_back("OPENAI_API_KEY=k");
  ChatRunner runner;
  auto step = runner.Start(inv);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    step->Signal(SIGTERM);
  });
  auto start = std::chrono::steady_clock::now();
  StepResult r = step->Wait();
  stopper.join();
  EXPECT_EQ(r.exit_code, -1);
  // The server answers after 5 s: returning well before proves the abort.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
}

}  // namespace
}  // namespace dagu
