// What a webhook trigger hands the run: Dagu 1.30.2 passes the request's
// `payload` object as the param WEBHOOK_PAYLOAD (json.Marshal of the object:
// keys sorted, <, >, & and U+2028/9 escaped; "{}" when absent), which the
// run sees as the env variable of that name.
//
// Beyond 1.30.2, the text is made inert before it becomes a param: a param's
// value is evaluated (`command` runs, $NAME expands) and 1.30.2 evaluates the
// payload, so whoever holds a webhook token could run commands on the server
// (`{"x": "`id`"}`) or read its environment (`"$HOME"`). Here the backtick,
// $, the double quote and the backslash inside strings are written as JSON escapes (\u0060, \u0024, \u0022,
// \u005c): the text is still JSON that decodes to the same values, and
// nothing in it is evaluated. (1.30.2 also leaves `\"` in strings with a
// doubled backslash, which is not valid JSON; here it is.)
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dagu::web {

// The JSON text of `payload` with the escapes above (any JSON value; object
// keys sorted by bytes, as Go's encoder sorts a map's keys).
std::string WebhookPayloadText(const nlohmann::ordered_json& payload);

// The params argument of the run: WEBHOOK_PAYLOAD="<text>", the text's
// quotes escaped as the params parser unescapes them (agent/params.h).
std::string WebhookParams(const std::string& payload_text);

}  // namespace dagu::web
