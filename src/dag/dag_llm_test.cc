// llm: and messages: and chat steps, as Dagu 1.30.2 loads them (its
// answers to `dagu validate`: tests/compat/cases/run/validate-chat.case).
#include <gtest/gtest.h>

#include "dag/dag_test_util.h"

namespace dagu {
namespace {

using testing::LoadYaml;

TEST(DagLlmTest, AChatStepInheritsTheDagLlmWhole) {
  auto l = LoadYaml(
      "llm:\n  provider: openai\n  model: m\n  system: be terse\n  temperature: 0.5\n  maxTokens: 10\n"
      "  topP: 1\n  baseURL: http://h/v1\n  apiKeyName: K\n  stream: false\n"
      "  thinking: {enabled: true, effort: low, budgetTokens: 5, includeInOutput: true}\n"
      "steps:\n"
      "  - name: a\n    type: chat\n    messages: [{role: user, content: \"hi ${X}\"}, {role: tool, content: t}]\n"
      "  - name: b\n    executor: chat\n    llm: {provider: ollama, model: other}\n"
      "    messages: [{role: system, content: s}]\n"
      "  - name: c\n    command: echo\n    llm: {provider: nope}\n");
  EXPECT_LOADS(l);
  ASSERT_EQ(l.dag.steps.size(), 3u);
  const Step& a = l.dag.steps[0];
  EXPECT_EQ(a.executor_type, "chat");
  ASSERT_TRUE(a.llm.has_value());
  EXPECT_EQ(a.llm->model, "m");
  EXPECT_EQ(a.llm->system, "be terse");
  EXPECT_EQ(a.llm->temperature, 0.5);
  EXPECT_EQ(a.llm->max_tokens, 10);
  EXPECT_EQ(a.llm->top_p, 1.0);
  EXPECT_EQ(a.llm->base_url, "http://h/v1");
  EXPECT_EQ(a.llm->api_key_name, "K");
  EXPECT_FALSE(a.llm->stream_enabled());
  ASSERT_TRUE(a.llm->thinking.has_value());
  EXPECT_EQ(a.llm->thinking->effort, "low");
  EXPECT_EQ(a.llm->thinking->budget_tokens, 5);
  ASSERT_EQ(a.messages.size(), 2u);
  EXPECT_EQ(a.messages[0].content, "hi ${X}");
  EXPECT_EQ(a.messages[1].role, "tool");
  // A step's llm replaces the DAG's: nothing of the DAG's is merged in.
  const Step& b = l.dag.steps[1];
  EXPECT_EQ(b.executor_type, "chat");
  EXPECT_EQ(b.llm->provider, "ollama");
  EXPECT_EQ(b.llm->system, "");
  EXPECT_FALSE(b.llm->temperature.has_value());
  EXPECT_TRUE(b.llm->stream_enabled());
  // Another step's llm is ignored, its values unchecked (as 1.30.2).
  EXPECT_FALSE(l.dag.steps[2].llm.has_value());
}

TEST(DagLlmTest, AChatStepWithoutAnyLlmLoadsAndFailsWhenItRuns) {
  auto l = LoadYaml("steps:\n  - name: a\n    type: chat\n    messages: [{role: user, content: hi}]\n");
  EXPECT_LOADS(l);
  EXPECT_FALSE(l.dag.steps[0].llm.has_value());
}

TEST(DagLlmTest, RefusesWhat1302Refuses) {
  const std::string chat = "steps:\n  - name: a\n    type: chat\n";
  const std::string hi = "    messages: [{role: user, content: hi}]\n";
  struct Case {
    std::string yaml, error;
  } cases[] = {
      {"llm: {provider: openai, model: m}\n" + chat, "messages: at least one message is required"},
      {"steps:\n  - name: a\n    command: echo\n" + hi, "executor type \"\" does not support messages field"},
      {"llm: {provider: openai, model: m}\n" + chat + "    messages: [{role: robot, content: hi}]\n",
       "invalid role \"robot\""},
      {"llm: {provider: openai, model: m}\n" + chat + "    messages: [{content: hi}]\n", "role is required"},
      {"llm: {provider: openai, model: m}\n" + chat + "    messages: [{role: user}]\n", "content is required"},
      {"llm: {provider: openai, model: m, temperature: 2.5}\n" + chat + hi, "temperature must be between 0.0 and 2.0"},
      {chat + "    llm: {provider: openai, model: m, maxTokens: 0}\n" + hi, "maxTokens must be at least 1"},
      {"llm: {provider: openai, model: m, topP: 1.5}\n" + chat + hi, "topP must be between 0.0 and 1.0"},
      {"llm: {provider: openai, model: m}\n" + chat + "    llm: {provider: openai}\n" + hi,
       "model must be specified when llm config is provided"},
      {"llm: {provider: openai}\n" + chat + hi, "model is required (set at DAG or step level)"},
      {"llm: {model: m}\n" + chat + hi, "provider is required (set at DAG or step level)"},
      {chat + "    llm: {provider: foo, model: m}\n" + hi, "invalid provider: foo"},
      {"llm: {provider: google, model: m}\nsteps:\n  - command: echo\n", "invalid provider: must be one of"},
      {"llm: {provider: OpenAI, model: m}\n" + chat + hi, "invalid provider: must be one of"},
      {"llm: {provider: openai, model: m, foo: 1}\n" + chat + hi, "foo"},
      {"llm: {provider: openai, model: m}\n" + chat + "    command: echo hi\n" + hi,
       "executor type \"chat\" does not support command field"},
      {"llm: {provider: openai, model: m, thinking: {enabled: true, effort: max}}\n" + chat + hi,
       "invalid thinking effort \"max\""},
      {"llm: {provider: openai, model: m, stream: yes}\n" + chat + hi, "stream"},
  };
  for (const auto& c : cases) {
    auto l = LoadYaml(c.yaml);
    EXPECT_FALSE(l.status.ok()) << c.yaml;
    EXPECT_NE(l.Find(c.error), nullptr) << c.yaml << "\nwanted: " << c.error << "\n" << l.Dump();
  }
}

TEST(DagLlmTest, AnthropicAndGeminiStepsLoad) {
  for (const std::string provider : {"anthropic", "gemini"}) {
    auto l = LoadYaml("llm: {provider: " + provider +
                      ", model: m}\nsteps:\n  - type: chat\n    messages: [{role: user, content: hi}]\n"
                      "  - type: chat\n    llm: {provider: google, model: g}\n"
                      "    messages: [{role: user, content: hi}]\n");
    EXPECT_LOADS(l);
    ASSERT_EQ(l.dag.steps.size(), 2u);
    ASSERT_TRUE(l.dag.steps[0].llm.has_value());
    EXPECT_EQ(l.dag.steps[0].llm->provider, provider);
    EXPECT_EQ(l.dag.steps[1].llm->provider, "google");
  }
}

TEST(DagLlmTest, AHandlerMayBeAChatStep) {
  auto l = LoadYaml(
      "llm: {provider: openai, model: m}\nhandlerOn:\n  success:\n    type: chat\n"
      "    messages: [{role: user, content: done}]\nsteps:\n  - command: echo\n");
  EXPECT_LOADS(l);
  ASSERT_TRUE(l.dag.handler_on.success.has_value());
  ASSERT_TRUE(l.dag.handler_on.success->llm.has_value());
  EXPECT_EQ(l.dag.handler_on.success->llm->model, "m");
}

}  // namespace
}  // namespace dagu
