#include "executors/jq_executor.h"

extern "C" {
#include <jq.h>
}

#include <signal.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "dag/dag.h"
#include "dynlib/lazy_library.h"
#include "executors/executor_support.h"
#include "executors/go_json.h"

namespace dagu {
namespace {

nlohmann::json FromJv(jv v) {  // consumes v
  nlohmann::json out;
  switch (jv_get_kind(v)) {
    case JV_KIND_NULL: out = nullptr; break;
    case JV_KIND_FALSE: out = false; break;
    case JV_KIND_TRUE: out = true; break;
    case JV_KIND_NUMBER: out = jv_number_value(v); break;
    case JV_KIND_STRING:
      out = std::string(jv_string_value(v), static_cast<size_t>(jv_string_length_bytes(jv_copy(v))));
      break;
    case JV_KIND_ARRAY: {
      out = nlohmann::json::array();
      int n = jv_array_length(jv_copy(v));
      for (int i = 0; i < n; ++i) out.push_back(FromJv(jv_array_get(jv_copy(v), i)));
      break;
    }
    case JV_KIND_OBJECT: {
      out = nlohmann::json::object();
      for (int i = jv_object_iter(v); jv_object_iter_valid(v, i); i = jv_object_iter_next(v, i)) {
        jv key = jv_object_iter_key(v, i);
        std::string k(jv_string_value(key), static_cast<size_t>(jv_string_length_bytes(jv_copy(key))));
        jv_free(key);
        out[k] = FromJv(jv_object_iter_value(v, i));
      }
      break;
    }
    default: break;
  }
  jv_free(v);
  return out;
}

// One result as 1.30.2 prints it.
std::string FormatResult(const nlohmann::json& v, bool raw) {
  if (!raw) return GoJsonMarshal(v, "    ") + "\n";
  switch (v.type()) {
    case nlohmann::json::value_t::string: return v.get<std::string>() + "\n";
    case nlohmann::json::value_t::null: return "\n";
    case nlohmann::json::value_t::boolean: return v.get<bool>() ? "true\n" : "false\n";
    case nlohmann::json::value_t::number_float:
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return GoFormatFloatV(v.get<double>()) + "\n";
    default: return GoJsonMarshal(v) + "\n";
  }
}

// libjq's compile message ("jq: error: syntax error, unexpected $end
// (Unix shell quoting issues?) at <top-level>, line 1:") as gojq words it.
std::string CompileMessage(const std::string& text, bool* runtime) {
  *runtime = false;
  std::string msg = text;
  if (msg.rfind("jq: error: ", 0) == 0) msg.erase(0, 11);
  size_t at = msg.find(" at <top-level>");
  if (at != std::string::npos) msg.erase(at);
  size_t quoting = msg.find(" (Unix shell quoting issues?)");
  if (quoting != std::string::npos) msg.erase(quoting, 29);
  const std::string undefined = " is not defined";
  if (size_t p = msg.find(undefined); p != std::string::npos) {
    *runtime = true;  // gojq reports unknown names when the query runs
    std::string name = msg.substr(0, p);
    return (name.rfind('$', 0) == 0 ? "variable not defined: " : "function not defined: ") + name;
  }
  const std::string syntax = "syntax error, ";
  if (msg.rfind(syntax, 0) == 0) msg.erase(0, syntax.size());
  if (msg.rfind("unexpected $end", 0) == 0) return "unexpected EOF";
  if (msg.rfind("unexpected ", 0) == 0) {
    std::string token = msg.substr(11);
    size_t comma = token.find(", expecting");
    if (comma != std::string::npos) token.erase(comma);
    if (token.size() >= 3 && token.front() == '\'' && token.back() == '\'') token = token.substr(1, token.size() - 2);
    return "unexpected token \"" + token + "\"";
  }
  return msg;
}

struct Outcome {
  std::string out;
  std::string err;
  std::string error;  // fails the step
};

void CollectMessage(void* data, jv msg) {
  auto* messages = static_cast<std::string*>(data);
  if (jv_get_kind(msg) == JV_KIND_STRING) {
    if (messages->empty()) *messages = jv_string_value(msg);
  } else if (jv_get_kind(msg) == JV_KIND_INVALID && jv_invalid_has_msg(jv_copy(msg))) {
    jv inner = jv_invalid_get_msg(jv_copy(msg));
    if (jv_get_kind(inner) == JV_KIND_STRING && messages->empty()) *messages = jv_string_value(inner);
    jv_free(inner);
  }
  jv_free(msg);
}

std::string RuntimeMessage(jv msg) {  // consumes msg
  std::string text;
  if (jv_get_kind(msg) == JV_KIND_STRING) {
    text = jv_string_value(msg);
  } else {
    text = GoJsonMarshal(FromJv(jv_copy(msg)));
  }
  jv_free(msg);
  return text;
}

Outcome Evaluate(const std::string& query, const std::string& input_text, bool raw,
                 const std::atomic<bool>& cancelled) {
  Outcome o;
  nlohmann::json input;
  if (!GoJsonParse(input_text, &input, &o.error)) return o;
  if (Status loaded = LoadLazyLibrary(LazyLibrary::kJq); !loaded.ok()) {
    o.error = loaded.message();
    return o;
  }
  jq_state* jq = jq_init();
  if (jq == nullptr) {
    o.error = "cannot initialise jq";
    return o;
  }
  std::string compile_error;
  jq_set_error_cb(jq, CollectMessage, &compile_error);
  if (!jq_compile(jq, query.c_str())) {
    bool runtime = false;
    std::string msg = CompileMessage(compile_error.empty() ? "syntax error" : compile_error, &runtime);
    if (runtime) o.err = "failed to run jq query: " + msg;
    else o.error = msg;
    jq_teardown(&jq);
    return o;
  }
  std::string text = input.dump();
  jv value = jv_parse_sized(text.c_str(), static_cast<int>(text.size()));
  jq_start(jq, value, 0);
  for (;;) {
    if (cancelled) break;
    jv result = jq_next(jq);
    if (jv_is_valid(result)) {
      o.out += FormatResult(FromJv(result), raw);
      continue;
    }
    if (jv_invalid_has_msg(jv_copy(result))) {
      o.err += "failed to run jq query: " + RuntimeMessage(jv_invalid_get_msg(result));
    } else {
      jv_free(result);
    }
    break;
  }
  jq_teardown(&jq);
  return o;
}

// The filter runs on a thread of its own so that Signal() returns at once
// even from a filter that never yields (libjq cannot be interrupted); an
// abandoned filter finishes in the background and only touches `shared`.
struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Outcome outcome;
  std::atomic<bool> cancelled{false};
};

class JqStep final : public RunningStep {
 public:
  explicit JqStep(StepInvocation inv) : inv_(std::move(inv)), shared_(std::make_shared<Shared>()) {}

  StepResult Wait() override {
    StepResult result;
    result.started = true;
    ExecutorConfig config;
    std::string error;
    if (!config.Parse(inv_, &error)) {
      result.exit_code = 1;
      result.error = error;
      return result;
    }
    // The filter as written (1.30.2 does not expand it: `$x` is jq's); the
    // input expanded as config values are.
    const std::vector<std::string>& commands = inv_.step != nullptr ? inv_.step->commands : inv_.commands;
    std::string query = commands.empty() ? "" : commands.front();
    std::string input = ExpandConfigString(inv_, inv_.step != nullptr ? inv_.step->script : inv_.script);
    bool raw = config.Bool("raw");
    std::shared_ptr<Shared> shared = shared_;
    std::thread([shared, query, input, raw] {
      Outcome o = Evaluate(query, input, raw, shared->cancelled);
      std::lock_guard<std::mutex> l(shared->mu);
      shared->outcome = std::move(o);
      shared->done = true;
      shared->cv.notify_all();
    }).detach();
    Outcome o;
    {
      std::unique_lock<std::mutex> l(shared->mu);
      shared->cv.wait(l, [&] { return shared->done || shared->cancelled; });
      // A signalled step ends signalled, also when the filter noticed the
      // cancellation itself and finished first.
      if (shared->cancelled) {
        result.term_signal = SIGKILL;
        result.exit_code = -1;
        return result;
      }
      o = std::move(shared->outcome);
    }
    StepOutput output(inv_);
    output.Out(o.out);
    output.Err(o.err);
    output.Finish(&result);
    if (!o.error.empty()) {
      result.exit_code = 1;
      result.error = o.error;
    }
    return result;
  }

  void Signal(int /*sig*/) override {
    std::lock_guard<std::mutex> l(shared_->mu);
    shared_->cancelled = true;
    shared_->cv.notify_all();
  }

 private:
  StepInvocation inv_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace

std::unique_ptr<RunningStep> JqRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<JqStep>(invocation);
}


}  // namespace dagu
