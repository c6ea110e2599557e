#include "executors/chat_executor.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "dag/dag.h"
#include "dynlib/lazy_library.h"
#include "executors/executor_support.h"
#include "executors/go_json.h"
#include "executors/http_executor.h"
#include "executors/masking_runner.h"
#include "secrets/secrets.h"

namespace dagu {
namespace chat {
namespace {

constexpr const char kUserAgent[] = "go-resty/2.16.5 (https://github.com/go-resty/resty)";
constexpr int kMaxRetries = 3;
constexpr long kTimeoutSeconds = 300;
constexpr size_t kMaxLine = 64 * 1024;  // bufio.Scanner's limit

std::string Str(const std::string& s) { return GoJsonMarshal(nlohmann::json(s)); }
std::string Num(double d) { return GoJsonMarshal(nlohmann::json(d)); }

std::optional<Usage> ReadUsage(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto num = [&](const char* k) -> int64_t {
    auto it = j.find(k);
    return it != j.end() && it->is_number() ? it->get<int64_t>() : 0;
  };
  return Usage{num("prompt_tokens"), num("completion_tokens"), num("total_tokens")};
}

int64_t Int(const nlohmann::json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_number() ? it->get<int64_t>() : 0;
}

// Anthropic's usage: input and output tokens, the total their sum.
Usage AnthropicUsage(const nlohmann::json& u) {
  if (!u.is_object()) return Usage{};
  int64_t in = Int(u, "input_tokens"), out = Int(u, "output_tokens");
  return Usage{in, out, in + out};
}

Usage GeminiUsage(const nlohmann::json& u) {
  return Usage{Int(u, "promptTokenCount"), Int(u, "candidatesTokenCount"), Int(u, "totalTokenCount")};
}

// The first candidate's text parts appended to `text`; its finishReason.
void GeminiCandidate(const nlohmann::json& j, std::string* text, std::string* finish) {
  auto candidates = j.find("candidates");
  if (candidates == j.end() || !candidates->is_array() || candidates->empty() || !(*candidates)[0].is_object()) return;
  const nlohmann::json& c = (*candidates)[0];
  if (auto cont = c.find("content"); cont != c.end() && cont->is_object()) {
    if (auto parts = cont->find("parts"); parts != cont->end() && parts->is_array()) {
      for (const auto& p : *parts) {
        if (p.is_object() && p.contains("text") && p["text"].is_string()) *text += p["text"].get<std::string>();
      }
    }
  }
  if (finish != nullptr && c.contains("finishReason") && c["finishReason"].is_string()) {
    *finish = c["finishReason"].get<std::string>();
  }
}

}  // namespace

std::string CanonicalProvider(const std::string& name) {
  if (name == "openai" || name == "anthropic" || name == "openrouter") return name;
  if (name == "gemini" || name == "google") return "gemini";
  if (name == "local" || name == "ollama" || name == "vllm" || name == "llama") return "local";
  return "";
}

std::string DefaultBaseUrl(const std::string& provider) {
  if (provider == "openai") return "https://api.openai.com/v1";
  if (provider == "anthropic") return "https://api.anthropic.com";
  if (provider == "gemini") return "https://generativelanguage.googleapis.com/v1beta";
  if (provider == "openrouter") return "https://openrouter.ai/api/v1";
  if (provider == "local") return "http://localhost:11434/v1";
  return "";
}

std::string DefaultApiKeyVar(const std::string& provider) {
  if (provider == "openai") return "OPENAI_API_KEY";
  if (provider == "anthropic") return "ANTHROPIC_API_KEY";
  if (provider == "gemini") return "GOOGLE_API_KEY";
  if (provider == "openrouter") return "OPENROUTER_API_KEY";
  return "";
}

std::string ApiKeyExpression(const LlmConfig& config) {
  std::string name = config.api_key_name.empty() ? DefaultApiKeyVar(CanonicalProvider(config.provider))
                                                 : config.api_key_name;
  if (name.empty() || name.rfind("${", 0) == 0) return name;
  return "${" + (name[0] == '$' ? name.substr(1) : name) + "}";
}

std::vector<Message> DeduplicateSystemMessages(const std::vector<Message>& messages) {
  std::vector<Message> out;
  bool seen = false;
  for (const auto& m : messages) {
    if (m.role == "system") {
      if (seen) continue;
      seen = true;
    }
    out.push_back(m);
  }
  return out;
}

std::vector<Message> BuildMessageList(const std::vector<Message>& step, const std::vector<Message>& context) {
  const Message* system = nullptr;
  std::vector<Message> others;
  for (const auto& m : step) {
    if (m.role == "system") {
      system = &m;
    } else {
      others.push_back(m);
    }
  }
  std::vector<Message> out;
  if (system != nullptr) out.push_back(*system);
  out.insert(out.end(), context.begin(), context.end());
  out.insert(out.end(), others.begin(), others.end());
  return DeduplicateSystemMessages(out);
}

namespace {

// Anthropic's Messages API (POST <base>/v1/messages): system messages joined
// into "system", tool results sent as user messages, max_tokens required
// (4096 when not set), thinking as a token budget.
std::string AnthropicBody(const LlmConfig& c, const std::vector<Message>& messages, bool stream) {
  std::string system, list;
  for (const auto& m : messages) {
    if (m.role == "system") {
      if (!system.empty()) system += "\n\n";
      system += m.content;
    } else if (m.role == "user" || m.role == "assistant" || m.role == "tool") {
      if (!list.empty()) list += ",";
      list += "{\"role\":" + Str(m.role == "tool" ? "user" : m.role) + ",\"content\":" + Str(m.content) + "}";
    }
  }
  int64_t budget = 0;
  if (c.thinking && c.thinking->enabled) budget = AnthropicThinkingBudget(*c.thinking);
  int64_t max_tokens = c.max_tokens.value_or(4096);
  if (budget > 0 && max_tokens <= budget) max_tokens = budget + 4096;
  std::string b = "{\"model\":" + Str(c.model) + ",\"messages\":[" + list + "]";
  if (!system.empty()) b += ",\"system\":" + Str(system);
  b += ",\"max_tokens\":" + std::to_string(max_tokens);
  if (c.temperature) b += ",\"temperature\":" + Num(*c.temperature);
  if (c.top_p) b += ",\"top_p\":" + Num(*c.top_p);
  if (stream) b += ",\"stream\":true";
  if (c.thinking && c.thinking->enabled) {
    b += ",\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":" + std::to_string(budget) + "}";
  }
  return b + "}";
}

// Gemini's generateContent API: system messages become systemInstruction
// parts, "assistant" is "model", tool results are user contents; options in
// generationConfig (left out when none is set). Streamed or not, the body is
// the same.
std::string GeminiBody(const LlmConfig& c, const std::vector<Message>& messages) {
  auto part = [](const std::string& text) { return text.empty() ? std::string("{}") : "{\"text\":" + Str(text) + "}"; };
  std::string system, list;
  bool has_system = false;
  for (const auto& m : messages) {
    if (m.role == "system") {
      system += (has_system ? "," : "") + part(m.content);
      has_system = true;
    } else if (m.role == "user" || m.role == "assistant" || m.role == "tool") {
      if (!list.empty()) list += ",";
      list += "{\"role\":" + Str(m.role == "assistant" ? "model" : "user") + ",\"parts\":[" + part(m.content) + "]}";
    }
  }
  std::vector<std::string> config;
  if (c.temperature) config.push_back("\"temperature\":" + Num(*c.temperature));
  std::optional<int64_t> max_output = c.max_tokens;
  std::string level;
  std::optional<int64_t> thinking_budget;
  int64_t budget = 0;
  const bool thinking = c.thinking && c.thinking->enabled;
  if (thinking) {
    if (c.thinking->budget_tokens) {
      thinking_budget = *c.thinking->budget_tokens;
      budget = *thinking_budget;
    } else {
      const std::string& e = c.thinking->effort;
      level = e == "low" ? "low" : (e == "high" || e == "xhigh") ? "high" : "medium";
      budget = e == "low" ? 1024 : e == "high" ? 8192 : e == "xhigh" ? 16384 : 4096;
    }
  }
  if (budget > 0 && max_output.value_or(0) <= budget) max_output = budget + 4096;
  if (max_output) config.push_back("\"maxOutputTokens\":" + std::to_string(*max_output));
  if (c.top_p) config.push_back("\"topP\":" + Num(*c.top_p));
  if (!level.empty()) config.push_back("\"thinkingLevel\":" + Str(level));
  if (thinking_budget) config.push_back("\"thinkingBudget\":" + std::to_string(*thinking_budget));
  std::string b = "{\"contents\":[" + list + "]";
  if (has_system) b += ",\"systemInstruction\":{\"parts\":[" + system + "]}";
  // generationConfig is sent when an option is set, even if it marshals empty.
  if (c.temperature || c.top_p || c.max_tokens || thinking) {
    b += ",\"generationConfig\":{";
    for (size_t i = 0; i < config.size(); ++i) b += (i ? "," : "") + config[i];
    b += "}";
  }
  return b + "}";
}

}  // namespace

int64_t AnthropicThinkingBudget(const LlmThinking& t) {
  if (t.budget_tokens && *t.budget_tokens > 0) return *t.budget_tokens;
  if (t.effort == "low") return 1024;
  if (t.effort == "high") return 16384;
  if (t.effort == "xhigh") return 32768;
  return 4096;
}

std::string RequestUrl(const std::string& provider, const std::string& base, const std::string& model, bool stream) {
  if (provider == "anthropic") return base + "/v1/messages";
  if (provider == "gemini") {
    return base + "/models/" + model + (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
  }
  return base + "/chat/completions";
}

std::string RequestError(const std::string& provider, const std::vector<Message>& messages) {
  if (provider != "anthropic") return "";
  for (const auto& m : messages) {
    if (m.role == "user" || m.role == "assistant" || m.role == "tool") return "";
  }
  return "at least one user message is required";
}

std::string RequestBody(const std::string& provider, const LlmConfig& c, const std::vector<Message>& messages,
                        bool stream) {
  if (provider == "anthropic") return AnthropicBody(c, messages, stream);
  if (provider == "gemini") return GeminiBody(c, messages);
  // Plain values and flags (GCC's -Wmaybe-uninitialized misreads copied optionals).
  bool has_temperature = c.temperature.has_value(), has_top_p = c.top_p.has_value();
  const double temperature = c.temperature.value_or(0), top_p = c.top_p.value_or(0);
  bool has_max_tokens = c.max_tokens.has_value(), has_max_completion_tokens = false;
  int64_t max_tokens = c.max_tokens.value_or(0), max_completion_tokens = 0;
  std::string reasoning;
  const bool thinking = c.thinking && c.thinking->enabled;
  const std::string effort = thinking && !c.thinking->effort.empty() ? c.thinking->effort : "medium";
  if (thinking && provider == "openai") {
    reasoning = "{\"effort\":" + Str(effort) + "}";
    if (has_max_tokens) {
      has_max_completion_tokens = true;
      max_completion_tokens = max_tokens;
      has_max_tokens = false;
    }
    has_temperature = false;
    has_top_p = false;
  } else if (thinking && provider == "openrouter") {
    reasoning = "{\"effort\":" + Str(effort);
    int64_t budget = 0;
    if (c.thinking->budget_tokens) {
      budget = *c.thinking->budget_tokens;
      reasoning += ",\"max_tokens\":" + std::to_string(budget);
    }
    reasoning += "}";
    if (budget > 0 && (has_max_tokens ? max_tokens : 0) <= budget) {
      has_max_tokens = true;
      max_tokens = budget + 4096;
    }
  }
  std::string b = "{\"model\":" + Str(c.model) + ",\"messages\":[";
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) b += ",";
    b += "{\"role\":" + Str(messages[i].role) + ",\"content\":" + Str(messages[i].content) + "}";
  }
  b += "]";
  if (has_temperature) b += ",\"temperature\":" + Num(temperature);
  if (has_max_tokens) b += ",\"max_tokens\":" + std::to_string(max_tokens);
  if (has_max_completion_tokens) b += ",\"max_completion_tokens\":" + std::to_string(max_completion_tokens);
  if (has_top_p) b += ",\"top_p\":" + Num(top_p);
  if (stream) b += ",\"stream\":true";
  if (stream && provider == "openai") b += ",\"stream_options\":{\"include_usage\":true}";
  if (!reasoning.empty()) b += ",\"reasoning\":" + reasoning;
  return b + "}";
}

bool ParseResponse(const std::string& body, std::string* content, Usage* usage, std::string* error,
                   const std::string& provider) {
  // json.Decoder reads the first value: an empty body is EOF.
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    *error = "failed to decode response: EOF";
    return false;
  }
  nlohmann::json j;
  std::string why;
  if (!GoJsonParse(body, &j, &why)) {
    *error = "failed to decode response: " + why;
    return false;
  }
  if (!j.is_object()) {
    const char* type = provider == "anthropic" ? "anthropic.messagesResponse"
                       : provider == "gemini"  ? "gemini.generateContentResponse"
                                               : "openai.chatCompletionResponse";
    *error = "failed to decode response: json: cannot unmarshal " + std::string(j.is_array() ? "array" : j.type_name()) +
             " into Go value of type " + type;
    return false;
  }
  content->clear();
  if (provider == "anthropic") {
    // The text blocks, joined; usage input + output.
    if (auto blocks = j.find("content"); blocks != j.end() && blocks->is_array()) {
      for (const auto& b : *blocks) {
        if (b.is_object() && b.value("type", nlohmann::json()) == "text" && b.contains("text") && b["text"].is_string()) {
          *content += b["text"].get<std::string>();
        }
      }
    }
    *usage = AnthropicUsage(j.value("usage", nlohmann::json()));
    return true;
  }
  if (provider == "gemini") {
    // The first candidate's parts, joined; no candidates is an empty answer.
    *usage = Usage{};
    GeminiCandidate(j, content, nullptr);
    if (auto u = j.find("usageMetadata"); u != j.end() && u->is_object()) *usage = GeminiUsage(*u);
    return true;
  }
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) {
    *error = "no choices in response";
    return false;
  }
  const nlohmann::json& first = (*choices)[0];
  if (first.is_object() && first.contains("message") && first["message"].is_object()) {
    const auto& m = first["message"];
    if (m.contains("content") && m["content"].is_string()) *content = m["content"].get<std::string>();
  }
  if (auto u = j.find("usage"); u != j.end()) *usage = ReadUsage(*u).value_or(Usage{});
  return true;
}

std::string StreamReader::Feed(std::string_view data) {
  std::string deltas;
  if (done_ || !error_.empty()) return deltas;
  pending_.append(data);
  size_t start = 0;
  for (size_t nl = pending_.find('\n', start); nl != std::string::npos; nl = pending_.find('\n', start)) {
    std::string line = pending_.substr(start, nl - start);
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > kMaxLine) {
      error_ = "bufio.Scanner: token too long";
      break;
    }
    deltas += Line(line);
    if (done_ || !error_.empty()) break;
  }
  pending_.erase(0, start);
  if (error_.empty() && !done_ && pending_.size() > kMaxLine) error_ = "bufio.Scanner: token too long";
  return deltas;
}

std::string StreamReader::Line(const std::string& line) {
  static constexpr std::string_view kPrefix = "data: ";
  if (line.rfind(kPrefix, 0) != 0) return "";
  std::string data = line.substr(kPrefix.size());
  if (data == "[DONE]") {
    done_ = true;
    return "";
  }
  nlohmann::json chunk = nlohmann::json::parse(data, nullptr, false);
  if (chunk.is_discarded() || !chunk.is_object()) return "";
  if (provider_ == "anthropic") return AnthropicEvent(chunk);
  if (provider_ == "gemini") {
    if (auto u = chunk.find("usageMetadata"); u != chunk.end() && u->is_object()) usage_ = GeminiUsage(*u);
    std::string text, finish;
    GeminiCandidate(chunk, &text, &finish);
    if (!finish.empty() && finish != "UNSPECIFIED") done_ = true;
    return text;
  }
  if (auto u = chunk.find("usage"); u != chunk.end() && u->is_object()) usage_ = ReadUsage(*u);
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty()) return "";
  const nlohmann::json& c = (*choices)[0];
  if (!c.is_object() || !c.contains("delta") || !c["delta"].is_object()) return "";
  const auto& d = c["delta"];
  return d.contains("content") && d["content"].is_string() ? d["content"].get<std::string>() : "";
}

// Anthropic's events: text deltas; usage from message_start (input tokens)
// replaced by message_delta's; message_stop ends; an error event fails.
std::string StreamReader::AnthropicEvent(const nlohmann::json& e) {
  const nlohmann::json type = e.value("type", nlohmann::json());
  if (type == "content_block_delta") {
    auto d = e.find("delta");
    if (d != e.end() && d->is_object() && d->value("type", nlohmann::json()) == "text_delta" && d->contains("text") &&
        (*d)["text"].is_string()) {
      return (*d)["text"].get<std::string>();
    }
  } else if (type == "message_delta") {
    if (auto u = e.find("usage"); u != e.end() && u->is_object()) usage_ = AnthropicUsage(*u);
  } else if (type == "message_start") {
    auto m = e.find("message");
    if (m != e.end() && m->is_object()) {
      if (auto u = m->find("usage"); u != m->end() && u->is_object()) usage_ = Usage{Int(*u, "input_tokens"), 0, 0};
    }
  } else if (type == "message_stop") {
    done_ = true;
  } else if (type == "error") {
    error_ = "unknown streaming error";
    auto err = e.find("error");
    if (err != e.end() && err->is_object()) {
      auto msg = err->find("message");
      error_ = msg != err->end() && msg->is_string() ? msg->get<std::string>() : "";
    }
  }
  return "";
}

std::string MessagesJson(const std::vector<Message>& messages) {
  if (messages.empty()) return "null";
  std::string out = "[";
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    out += i == 0 ? "\n" : ",\n";
    out += "  {\n    \"role\": " + Str(m.role) + ",\n    \"content\": " + Str(m.content);
    std::vector<std::string> meta;
    if (m.provider && !m.provider->empty()) meta.push_back("\"provider\": " + Str(*m.provider));
    if (m.model && !m.model->empty()) meta.push_back("\"model\": " + Str(*m.model));
    if (m.usage) {
      if (m.usage->prompt_tokens != 0) meta.push_back("\"promptTokens\": " + std::to_string(m.usage->prompt_tokens));
      if (m.usage->completion_tokens != 0) {
        meta.push_back("\"completionTokens\": " + std::to_string(m.usage->completion_tokens));
      }
      if (m.usage->total_tokens != 0) meta.push_back("\"totalTokens\": " + std::to_string(m.usage->total_tokens));
    }
    if (m.provider || m.model || m.usage) {
      out += ",\n    \"metadata\": {";
      for (size_t k = 0; k < meta.size(); ++k) out += (k == 0 ? "\n      " : ",\n      ") + meta[k];
      out += meta.empty() ? "}" : "\n    }";
    }
    out += "\n  }";
  }
  return out + "\n]";
}

bool ParseMessagesJson(const std::string& text, std::vector<Message>* out) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !(j.is_array() || j.is_null())) return false;
  out->clear();
  if (j.is_null()) return true;
  for (const auto& item : j) {
    if (!item.is_object()) return false;
    Message m;
    m.role = item.value("role", "");
    m.content = item.value("content", "");
    if (auto meta = item.find("metadata"); meta != item.end() && meta->is_object()) {
      m.provider = meta->value("provider", "");
      m.model = meta->value("model", "");
      m.usage = Usage{meta->value("promptTokens", int64_t{0}), meta->value("completionTokens", int64_t{0}),
                      meta->value("totalTokens", int64_t{0})};
    }
    out->push_back(std::move(m));
  }
  return true;
}

namespace {

// One POST with libcurl. A 2xx body goes to `on_body` as it arrives; any
// other status's body is kept in `error_body`.
struct Exchange {
  long status = 0;
  bool got_status = false;
  std::string error_body;
  std::function<bool(std::string_view)> on_body;  // false: abort
  const std::atomic<bool>* cancelled = nullptr;
};

size_t OnHeader(char* data, size_t size, size_t count, void* userp) {
  auto* x = static_cast<Exchange*>(userp);
  std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    size_t sp = line.find(' ');
    x->status = sp == std::string_view::npos ? 0 : std::strtol(std::string(line.substr(sp + 1, 3)).c_str(), nullptr, 10);
    x->got_status = x->status >= 200;  // not a 100 Continue
  }
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* userp) {
  auto* x = static_cast<Exchange*>(userp);
  std::string_view chunk(data, size * count);
  if (x->cancelled->load()) return 0;
  if (x->status >= 200 && x->status <= 299) {
    if (!x->on_body(chunk)) return 0;
  } else {
    x->error_body.append(chunk);
  }
  return size * count;
}

int OnProgress(void* clientp, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(clientp)->load() ? 1 : 0;
}

// resty's jittered backoff before retry `attempt` (1-based).
std::chrono::milliseconds Backoff(int attempt) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  int64_t cap = std::min<int64_t>(30000, 1000LL << attempt) / 2;
  int64_t wait = std::uniform_int_distribution<int64_t>(1, cap)(rng);
  return std::chrono::milliseconds(std::max<int64_t>(wait, 1000));
}

bool SleepUnlessCancelled(std::chrono::milliseconds d, const std::atomic<bool>& cancelled) {
  auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
    if (cancelled) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !cancelled;
}

std::vector<Message> ReadContext(const StepInvocation& inv) {
  std::vector<Message> out;
  if (inv.messages_dir.empty() || inv.step == nullptr) return out;
  for (const auto& dep : inv.step->depends) {
    std::ifstream in(inv.messages_dir + "/" + dep + ".json");
    if (!in) continue;
    std::stringstream ss;
    ss << in.rdbuf();
    std::vector<Message> msgs;
    if (ParseMessagesJson(ss.str(), &msgs)) out.insert(out.end(), msgs.begin(), msgs.end());
  }
  return DeduplicateSystemMessages(out);
}

void SaveMessages(const StepInvocation& inv, const std::vector<Message>& messages) {
  if (inv.messages_dir.empty() || messages.empty()) return;
  ::mkdir(inv.messages_dir.c_str(), 0750);
  std::string path = inv.messages_dir + "/" + inv.step_name + ".json";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  std::string text = MessagesJson(messages);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}


StepResult RunChat(const StepInvocation& inv, const std::atomic<bool>& cancelled) {
  StepResult result;
  result.started = true;
  auto fail = [&](const std::string& error) {
    result.exit_code = 1;
    result.error = error;
    return result;
  };
  if (inv.step == nullptr || !inv.step->llm) return fail("llm configuration is required for chat executor");
  const LlmConfig& cfg = *inv.step->llm;
  const std::string provider = CanonicalProvider(cfg.provider);
  if (provider.empty()) return fail("invalid provider: invalid provider: " + cfg.provider);
  const std::string key_expr = ApiKeyExpression(cfg);
  std::string key = key_expr.empty() ? "" : ExpandConfigString(inv, key_expr);
  if (key.empty() && !DefaultApiKeyVar(provider).empty()) {
    key = EnvValue(inv.env, DefaultApiKeyVar(provider)).value_or("");
  }
  if (key.empty() && provider != "local") return fail("failed to create LLM provider: no API key provided");
  Masker masker(key.empty() ? std::vector<ResolvedSecret>{} : std::vector<ResolvedSecret>{{"api key", key}});
  std::string base = cfg.base_url.empty() ? "" : ExpandConfigString(inv, cfg.base_url);
  if (base.empty()) base = DefaultBaseUrl(provider);
  const std::string url = RequestUrl(provider, base, cfg.model, cfg.stream_enabled());

  std::vector<Message> step_msgs;
  if (!cfg.system.empty()) step_msgs.push_back({"system", ExpandConfigString(inv, cfg.system), {}, {}, {}});
  for (const auto& m : inv.step->messages) step_msgs.push_back({m.role, ExpandConfigString(inv, m.content), {}, {}, {}});
  std::vector<Message> all = BuildMessageList(step_msgs, ReadContext(inv));
  const bool stream = cfg.stream_enabled();
  const std::string body = RequestBody(provider, cfg, all, stream);
  const std::string label = stream ? "chat stream request failed: " : "chat request failed: ";
  if (std::string why = RequestError(provider, all); !why.empty()) {
    return fail(masker.Mask(label + provider + " API error (status 0): " + why + ": " + why));
  }

  if (Status loaded = LoadLazyLibrary(LazyLibrary::kCurl); !loaded.ok()) return fail(loaded.message());
  StepOutput output(inv);
  StreamMasker stream_masker(&masker);
  StreamReader reader(provider);
  std::string content, raw;
  auto finish = [&](const std::string& error) {
    output.Finish(&result);
    if (cancelled) {
      result.exit_code = -1;
      return result;
    }
    return error.empty() ? result : fail(masker.Mask(error));
  };

  Exchange x;
  x.cancelled = &cancelled;
  x.on_body = [&](std::string_view chunk) {
    if (!stream) {
      raw.append(chunk);
      return true;
    }
    std::string delta = reader.Feed(chunk);
    content += delta;
    if (!delta.empty()) output.Out(stream_masker.Feed(delta));
    return reader.error().empty() && !reader.done();
  };
  for (int attempt = 0;; ++attempt) {
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return finish("cannot initialise libcurl");
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, (std::string("User-Agent: ") + kUserAgent).c_str());
    headers = curl_slist_append(headers, "Content-Type: text/plain; charset=utf-8");
    headers = curl_slist_append(headers, "Accept:");
    headers = curl_slist_append(headers, "Expect:");
    if (provider == "anthropic") {
      headers = curl_slist_append(headers, ("X-Api-Key: " + key).c_str());
      headers = curl_slist_append(headers, "Anthropic-Version: 2023-06-01");
    } else if (provider == "gemini") {
      headers = curl_slist_append(headers, ("X-Goog-Api-Key: " + key).c_str());
    } else if (!key.empty()) {
      headers = curl_slist_append(headers, ("Authorization: Bearer " + key).c_str());
    }
    if (provider == "openrouter") {
      headers = curl_slist_append(headers, "Http-Referer: https://github.com/dagu-org/dagu");
      headers = curl_slist_append(headers, "X-Title: Dagu Workflow Engine");
    }
    x.status = 0;
    x.got_status = false;
    x.error_body.clear();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "gzip");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, kTimeoutSeconds);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &x);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &cancelled);
    CURLcode rc = curl_easy_perform(curl);
    long os_errno = 0;
    curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (cancelled) return finish("");
    const bool success = x.status >= 200 && x.status <= 299;
    if (success) {
      // Stopped by the reader ([DONE] or a line too long) is not an error.
      if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
        std::string why = GoTransportError(rc, os_errno, true, url);
        if (stream) {
          output.Out(stream_masker.Finish());
          return finish("chat stream error: " + provider + " API error (status 0): " + why + ": " + why);
        }
        raw.clear();  // a body cut short: decoded as far as it came
      }
      break;
    }
    const bool retryable =
        rc != CURLE_OK || x.status == 429 || (x.status >= 500 && x.status <= 504);
    if (retryable && attempt < kMaxRetries) {
      if (!SleepUnlessCancelled(Backoff(attempt + 1), cancelled)) return finish("");
      continue;
    }
    if (rc != CURLE_OK) return finish(label + "Post \"" + url + "\": " + GoTransportError(rc, os_errno, x.got_status, url));
    return finish(label + "llm API error (status " + std::to_string(x.status) + "): " + x.error_body);
  }

  std::optional<Usage> usage;
  if (stream) {
    if (!reader.error().empty()) {
      output.Out(stream_masker.Finish());  // what came before the error, held back for masking
      return finish("chat stream error: " + provider + " API error (status 0): " + reader.error() + ": " +
                    reader.error());
    }
    // A last line without its newline still counts, as bufio.Scanner reads it.
    if (!reader.done()) {
      std::string delta = reader.Feed("\n");
      content += delta;
      if (!delta.empty()) output.Out(stream_masker.Feed(delta));
    }
    output.Out(stream_masker.Finish() + "\n");
    usage = reader.usage();
  } else {
    Usage u;
    std::string why;
    if (!ParseResponse(raw, &content, &u, &why, provider)) {
      return finish(label + provider + " API error (status 0): " + why + ": " + why);
    }
    output.Out(masker.Mask(content) + "\n");
    usage = u;
  }
  Message answer{"assistant", masker.Mask(content), cfg.provider, cfg.model, usage};
  if (!usage) answer.usage = Usage{};
  all.push_back(answer);
  SaveMessages(inv, all);
  return finish("");
}

}  // namespace
}  // namespace chat

std::unique_ptr<RunningStep> ChatRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<CallbackStep>(
      [inv = invocation](const std::atomic<bool>& cancelled) { return chat::RunChat(inv, cancelled); });
}

}  // namespace dagu
