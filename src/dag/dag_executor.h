// The executor types a step may name (Dagu 1.30.2's step `type:`, legacy
// `executor:`), in one place: the loader accepts exactly these, and the CLI
// registers one runner under each (src/cli/builtin_executors.cc; a test
// checks the two agree). Any other type Dagu 1.30.2 knows (gha, k8s,
// ...) is refused at load time with an error naming the
// type, so a DAG never fails with a shell "not found" at run time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dagu {

// The non-shell executor types this binary runs: "archive", "chat", "dag"
// and "parallel" (call steps), "docker" and "container" (one runner),
// "hitl", "http", "jq", "mail", "ssh".
const std::vector<std::string>& BuiltinExecutorTypes();

// Whether `type` (lower case) is "" or one of Dagu's names for the shell
// ("command", "shell").
bool IsShellExecutorType(std::string_view type);

// What a step of each type may hold, as Dagu 1.30.2 registers it (its
// ExecutorCapabilities): the shell takes everything; ssh commands (several)
// and a shell but no script; http and jq one command and a script; mail,
// dag and parallel none of these. A step that holds more is refused at load
// time with 1.30.2's wording, e.g. `executor does not support multiple
// commands: executor type "jq" only supports a single command`.
struct ExecutorCaps {
  bool command = false;
  bool multiple_commands = false;
  bool script = false;
  bool shell = false;
};
ExecutorCaps CapsOf(std::string_view type);

// A step that asks an LLM (`llm:` + `messages:`; src/executors/chat_executor.h).
inline constexpr const char kChatExecutorType[] = "chat";

}  // namespace dagu
