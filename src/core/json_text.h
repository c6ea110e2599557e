// JsonText: the text of a JSON value as Go's encoding/json writes it, for
// every JSON file and answer this binary produces. Strings come from users
// (step output, params, DAG files, host names) and may hold bytes that are
// not UTF-8; Go writes each invalid byte as U+FFFD, where nlohmann's dump()
// would throw. Never throws.
#pragma once

#include <string>

namespace dagu {

// `indent` < 0: one line; otherwise pretty-printed with that many spaces.
template <class JsonValue>
std::string JsonText(const JsonValue& value, int indent = -1) {
  return value.dump(indent, ' ', false, JsonValue::error_handler_t::replace);
}

}  // namespace dagu
