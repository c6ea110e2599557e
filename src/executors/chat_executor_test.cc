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

TEST(ChatRequestTest, AnthropicBodySeparatesSystemAndAlwaysSendsMaxTokens) {
  LlmConfig c = Config("anthropic");
  std::vector<chat::Message> m = {{"system", "be <brief>", {}, {}, {}}, {"system", "really", {}, {}, {}},
                                  {"user", "q", {}, {}, {}}, {"assistant", "a", {}, {}, {}}, {"tool", "t", {}, {}, {}}};
  EXPECT_EQ(chat::RequestBody("anthropic", c, m, true),
            R"({"model":"gpt-test","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"},)"
            R"({"role":"user","content":"t"}],"system":"be \u003cbrief\u003e\n\nreally","max_tokens":4096,"stream":true})");
  c.temperature = 0.25;
  c.top_p = 0.5;
  c.max_tokens = 100;
  c.thinking = LlmThinking{true, "low", std::nullopt, false};
  EXPECT_EQ(chat::RequestBody("anthropic", c, {{"user", "q", {}, {}, {}}}, false),
            R"({"model":"gpt-test","messages":[{"role":"user","content":"q"}],"max_tokens":5120,"temperature":0.25,)"
            R"("top_p":0.5,"thinking":{"type":"enabled","budget_tokens":1024}})");
  c.max_tokens = 40000;
  c.thinking->budget_tokens = 2000;
  EXPECT_EQ(chat::RequestBody("anthropic", c, {}, false),
            R"({"model":"gpt-test","messages":[],"max_tokens":40000,"temperature":0.25,"top_p":0.5,)"
            R"("thinking":{"type":"enabled","budget_tokens":2000}})");
  EXPECT_EQ(chat::RequestError("anthropic", {{"system", "s", {}, {}, {}}}), "at least one user message is required");
  EXPECT_EQ(chat::RequestError("anthropic", m), "");
  EXPECT_EQ(chat::RequestError("openai", {}), "");
}

TEST(ChatRequestTest, GeminiBodyUsesContentsPartsAndGenerationConfig) {
  LlmConfig c = Config("gemini");
  std::vector<chat::Message> m = {{"system", "s", {}, {}, {}}, {"user", "q", {}, {}, {}},
                                  {"assistant", "", {}, {}, {}}, {"tool", "t", {}, {}, {}}};
  EXPECT_EQ(chat::RequestBody("gemini", c, m, true),
            R"({"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{}]},)"
            R"({"role":"user","parts":[{"text":"t"}]}],"systemInstruction":{"parts":[{"text":"s"}]}})");
  c.temperature = 1;
  c.thinking = LlmThinking{true, "xhigh", std::nullopt, false};
  EXPECT_EQ(chat::RequestBody("gemini", c, {}, false),
            R"({"contents":[],"generationConfig":{"temperature":1,"maxOutputTokens":20480,"thinkingLevel":"high"}})");
  c.thinking->budget_tokens = 0;
  c.max_tokens = 10;
  c.top_p = 0.9;
  EXPECT_EQ(chat::RequestBody("gemini", c, {}, false),
            R"({"contents":[],"generationConfig":{"temperature":1,"maxOutputTokens":10,"topP":0.9,"thinkingBudget":0}})");
  EXPECT_EQ(chat::RequestUrl("gemini", "http://h/v1beta", "g-1", true),
            "http://h/v1beta/models/g-1:streamGenerateContent?alt=sse");
  EXPECT_EQ(chat::RequestUrl("gemini", "http://h/v1beta", "g-1", false), "http://h/v1beta/models/g-1:generateContent");
  EXPECT_EQ(chat::RequestUrl("anthropic", "http://h", "m", true), "http://h/v1/messages");
}

TEST(ChatResponseTest, AnthropicAndGeminiShapes) {
  std::string content, error;
  chat::Usage u;
  ASSERT_TRUE(chat::ParseResponse(R"({"content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"},)"
                                  R"({"type":"text","text":"b"}],"usage":{"input_tokens":4,"output_tokens":2}})",
                                  &content, &u, &error, "anthropic"));
  EXPECT_EQ(content, "ab");
  EXPECT_EQ(u.prompt_tokens, 4);
  EXPECT_EQ(u.completion_tokens, 2);
  EXPECT_EQ(u.total_tokens, 6);
  ASSERT_TRUE(chat::ParseResponse(R"({"candidates":[{"content":{"parts":[{"text":"c"},{"text":"d"}]}},)"
                                  R"({"content":{"parts":[{"text":"no"}]}}],"usageMetadata":{"totalTokenCount":9}})",
                                  &content, &u, &error, "gemini"));
  EXPECT_EQ(content, "cd");
  EXPECT_EQ(u.total_tokens, 9);
  ASSERT_TRUE(chat::ParseResponse(R"({"candidates":[]})", &content, &u, &error, "gemini"));
  EXPECT_EQ(content, "");
  EXPECT_EQ(u.total_tokens, 0);
  EXPECT_FALSE(chat::ParseResponse("[1]", &content, &u, &error, "gemini"));
  EXPECT_EQ(error, "failed to decode response: json: cannot unmarshal array into Go value of type "
                   "gemini.generateContentResponse");
}

TEST(ChatStreamTest, AnthropicEventsEndAtMessageStopOrFailAtAnError) {
  chat::StreamReader r("anthropic");
  std::string out = r.Feed(
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\n"
      "data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"he\"}}\n"
      "data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"x\"}}\n");
  EXPECT_EQ(r.usage()->prompt_tokens, 5);
  out += r.Feed(
      "data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"y\"}}\n"
      "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":3}}\ndata: {\"type\":\"message_stop\"}\n"
      "data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"late\"}}\n");
  EXPECT_EQ(out, "hey");
  EXPECT_TRUE(r.done());
  EXPECT_EQ(r.usage()->prompt_tokens, 0);  // message_delta's usage replaces message_start's, as in 1.30.2
  EXPECT_EQ(r.usage()->total_tokens, 3);
  chat::StreamReader e("anthropic");
  e.Feed("data: {\"type\":\"error\",\"error\":{\"message\":\"Overloaded\"}}\n");
  EXPECT_EQ(e.error(), "Overloaded");
  chat::StreamReader g("gemini");
  out = g.Feed("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]},\"finishReason\":\"UNSPECIFIED\"}]}\r\n\r\n");
  EXPECT_FALSE(g.done());
  out += g.Feed("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"b\"}]},\"finishReason\":\"STOP\"}],"
                "\"usageMetadata\":{\"promptTokenCount\":1}}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"c\"}]}}]}\n");
  EXPECT_EQ(out, "ab");
  EXPECT_TRUE(g.done());
  EXPECT_EQ(g.usage()->prompt_tokens, 1);
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

TEST_F(ChatRunnerTest, AnthropicStepsStreamOrNotWithItsHeaders) {
  for (bool stream : {true, false}) {
    StepFixture f;
    Prepare(f, "x", stream);
    f.step.llm->provider = "anthropic";
    f.step.llm->base_url = server_.url("/x");
    f.step.llm->system = "terse";
    StepResult r = Run(f, {"ANTHROPIC_API_KEY=sk-ant-1"});
    EXPECT_EQ(r.exit_code, 0) << r.error;
    EXPECT_EQ(f.Out(), "reply 1 to hi you\n");
    auto requests = server_.Requests();
    ASSERT_FALSE(requests.empty());
    const auto& last = requests.back();
    EXPECT_EQ(last["p"], "/x/v1/messages");
    EXPECT_EQ(last["h"]["X-Api-Key"], "sk-ant-1");
    EXPECT_EQ(last["h"]["Anthropic-Version"], "2023-06-01");
    EXPECT_FALSE(last["h"].contains("Authorization"));
    EXPECT_EQ(last["b"], std::string(R"({"model":"gpt-test","messages":[{"role":"user","content":"hi you"}],)") +
                             R"("system":"terse","max_tokens":4096)" + (stream ? R"(,"stream":true})" : "}"));
    std::vector<chat::Message> saved;
    ASSERT_TRUE(chat::ParseMessagesJson(testing::ReadFile(f.dir.Sub("messages/ask.json")), &saved));
    ASSERT_EQ(saved.size(), 3u);
    EXPECT_EQ(saved[2].content, "reply 1 to hi you");
    EXPECT_EQ(saved[2].usage->total_tokens, stream ? 3 : 10);
  }
}

TEST_F(ChatRunnerTest, GeminiStepsStreamOrNotWithItsHeaders) {
  for (bool stream : {true, false}) {
    StepFixture f;
    Prepare(f, "x", stream);
    f.step.llm->provider = "google";
    f.step.llm->model = "gem-1";
    f.step.llm->base_url = server_.url("/x/v1beta");
    StepResult r = Run(f, {"GOOGLE_API_KEY=g-key-1"});
    EXPECT_EQ(r.exit_code, 0) << r.error;
    EXPECT_EQ(f.Out(), "reply 1 to hi you\n");
    auto requests = server_.Requests();
    ASSERT_FALSE(requests.empty());
    const auto& last = requests.back();
    EXPECT_EQ(last["p"], stream ? "/x/v1beta/models/gem-1:streamGenerateContent?alt=sse"
                                : "/x/v1beta/models/gem-1:generateContent");
    EXPECT_EQ(last["h"]["X-Goog-Api-Key"], "g-key-1");
    EXPECT_FALSE(last["h"].contains("Authorization"));
    EXPECT_EQ(last["b"], R"({"contents":[{"role":"user","parts":[{"text":"hi you"}]}]})");
    std::vector<chat::Message> saved;
    ASSERT_TRUE(chat::ParseMessagesJson(testing::ReadFile(f.dir.Sub("messages/ask.json")), &saved));
    ASSERT_EQ(saved.size(), 2u);
    EXPECT_EQ(*saved[1].provider, "google");
    EXPECT_EQ(saved[1].usage->total_tokens, 10);
  }
}

TEST_F(ChatRunnerTest, AnthropicAndGeminiErrorsReadAsDagus) {
  StepFixture f;
  Prepare(f, "streamerr", true);
  f.step.llm->provider = "anthropic";
  f.step.llm->base_url = server_.url("/streamerr");
  // A long key: the masker holds back as many bytes, which must still be
  // written when the stream fails.
  StepResult r = Run(f, {"ANTHROPIC_API_KEY=sk-ant-a-rather-long-key"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "chat stream error: anthropic API error (status 0): Overloaded: Overloaded");
  EXPECT_EQ(f.Out(), "reply 1 ");  // the text before the error event
  r = Run(f, {});
  EXPECT_EQ(r.error, "failed to create LLM provider: no API key provided");
  f.step.messages = {{"system", "only a system message"}};
  r = Run(f, {"ANTHROPIC_API_KEY=k"});
  EXPECT_EQ(r.error,
            "chat stream request failed: anthropic API error (status 0): at least one user message is required: at "
            "least one user message is required");
  StepFixture g;
  Prepare(g, "err401", false);
  g.step.llm->provider = "gemini";
  g.step.llm->base_url = server_.url("/err401/v1beta");
  r = Run(g, {"GOOGLE_API_KEY=k"});
  EXPECT_EQ(r.error, R"(chat request failed: llm API error (status 401): {"error":{"message":"rejected by the test server"}})");
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
