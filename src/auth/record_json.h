// Field readers shared by the user and API key records (internal to src/auth).
#pragma once

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/status.h"

namespace dagu::auth {

using RecordJson = nlohmann::ordered_json;

// Corruption naming the field when it is missing or not a string.
Status ReadStringField(const RecordJson& j, const char* key, std::string* out);
// An RFC3339(Nano) string field; Corruption when it does not parse.
Status ReadTimeField(const RecordJson& j, const char* key, WallTime* out);

}  // namespace dagu::auth
