// ChatRunner: `type: chat` (also `executor: chat`), Dagu 1.30.2's chat
// step: it sends the step's `messages:` to an LLM over the OpenAI-compatible
// chat-completions API (POST <baseURL>/chat/completions) and writes the
// answer to the step's stdout (so `output:` captures it).
//
// As 1.30.2 does it (internal/runtime/builtin/chat, internal/llm):
//  - providers: openai (https://api.openai.com/v1, key OPENAI_API_KEY,
//    required), openrouter (https://openrouter.ai/api/v1, OPENROUTER_API_KEY,
//    required, plus HTTP-Referer and X-Title), local / ollama / vllm / llama
//    (http://localhost:11434/v1, no key needed; "Authorization" only when a
//    key is set), anthropic (https://api.anthropic.com, ANTHROPIC_API_KEY,
//    required: POST <base>/v1/messages, headers X-Api-Key and
//    Anthropic-Version 2023-06-01), gemini / google
//    (https://generativelanguage.googleapis.com/v1beta, GOOGLE_API_KEY,
//    required: POST <base>/models/<model>:generateContent, streamed
//    :streamGenerateContent?alt=sse, header X-Goog-Api-Key).
//  - the key: the variable `apiKeyName` names (VAR, $VAR or ${VAR}, expanded
//    with the step's variables), else the provider's default variable. It is
//    masked ("*******") in everything the step writes and in its error.
//  - the request (OpenAI's; anthropic's and gemini's below): {"model", "messages", "temperature", "max_tokens",
//    "max_completion_tokens", "top_p", "stream", "stream_options",
//    "reasoning"} in that order, absent ones left out (Go's omitempty);
//    headers User-Agent go-resty, Content-Type text/plain; charset=utf-8,
//    Accept-Encoding gzip, Authorization Bearer <key>.
//  - the messages: llm.system first (a system message of the step's own
//    replaces it), then the conversation of the steps this one depends on
//    (their saved messages, system messages after the first dropped), then
//    the step's other messages; contents expanded with the step's variables.
//  - streaming (the default, `stream: false` turns it off): Server-Sent
//    Events, each "data: {...}" delta written to stdout as it comes, "[DONE]"
//    ends; then "\n". Not streaming: the answer and "\n".
//  - errors: a status other than 2xx fails the step with
//    `llm API error (status 400): <body>`; 429 and 500..504 and transport
//    errors are retried 3 times (waits of 1 s doubling, jittered, at most
//    30 s); a request times out after 5 minutes.
//  - on success the whole conversation (the messages sent and the answer,
//    with provider, model and token usage) is saved as
//    <dag-run dir>/messages/<step>.json, which later chat steps and a retry
//    of the run read.
// Signal() (dagu stop, a step timeout) aborts the request and any retry wait
// at once.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "executors/step_runner.h"

namespace dagu {

struct LlmConfig;
struct LlmThinking;

class ChatRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

namespace chat {

struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
};

struct Message {
  std::string role;
  std::string content;
  // For an answer: the provider (as written in llm:), model and usage.
  std::optional<std::string> provider, model;
  std::optional<Usage> usage;
};

// The provider a name stands for ("openai", "openrouter", "local",
// "anthropic", "gemini"), "" for an unknown name.
std::string CanonicalProvider(const std::string& name);
std::string DefaultBaseUrl(const std::string& provider);
std::string DefaultApiKeyVar(const std::string& provider);
// The expression the step's key is read from: apiKeyName (VAR and $VAR
// written as ${VAR}) or the provider's default variable; "" for none (local).
std::string ApiKeyExpression(const LlmConfig& config);

// The list sent: the step's last system message, the context, the step's
// other messages; only the first system message is kept.
std::vector<Message> BuildMessageList(const std::vector<Message>& step, const std::vector<Message>& context);
std::vector<Message> DeduplicateSystemMessages(const std::vector<Message>& messages);

// The request body, byte for byte as 1.30.2's provider (canonical name)
// marshals it.
std::string RequestBody(const std::string& provider, const LlmConfig& config, const std::vector<Message>& messages,
                        bool stream);
// Why the provider refuses to build a request ("" when it does not):
// anthropic needs a message other than a system one.
std::string RequestError(const std::string& provider, const std::vector<Message>& messages);
// Where the request goes: <base>/chat/completions, anthropic's
// <base>/v1/messages, gemini's <base>/models/<model>:generateContent (or
// :streamGenerateContent?alt=sse).
std::string RequestUrl(const std::string& provider, const std::string& base, const std::string& model, bool stream);
// Anthropic's thinking budget: budgetTokens when > 0, else by effort
// (low 1024, medium or none 4096, high 16384, xhigh 32768).
int64_t AnthropicThinkingBudget(const LlmThinking& thinking);

// A non-streamed answer (the provider's response shape): its content and
// usage, or Go's decoding error.
bool ParseResponse(const std::string& body, std::string* content, Usage* usage, std::string* error,
                   const std::string& provider = "openai");

// Reads Server-Sent Events as they arrive, in the provider's shape: OpenAI's
// chunks ending at "[DONE]", anthropic's typed events ending at
// message_stop (an "error" event fails), gemini's candidates ending at a
// finishReason.
class StreamReader {
 public:
  explicit StreamReader(std::string provider = "openai") : provider_(std::move(provider)) {}
  // Feeds received bytes; returns the content deltas of the complete lines.
  std::string Feed(std::string_view data);
  bool done() const { return done_; }                 // the stream's end seen
  const std::optional<Usage>& usage() const { return usage_; }
  const std::string& error() const { return error_; }  // a line over 64 KiB, an error event

 private:
  std::string Line(const std::string& line);
  std::string AnthropicEvent(const nlohmann::json& event);
  std::string provider_;
  std::string pending_;
  bool done_ = false;
  std::optional<Usage> usage_;
  std::string error_;
};

// messages/<step>.json: Go's MarshalIndent(messages, "", "  ").
std::string MessagesJson(const std::vector<Message>& messages);
bool ParseMessagesJson(const std::string& text, std::vector<Message>* out);

}  // namespace chat
}  // namespace dagu
