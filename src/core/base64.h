// Standard base64 (RFC 4648, with padding), as Go's base64.StdEncoding
// writes it (Dagu's dag.json `yamlData`).
#pragma once

#include <string>
#include <string_view>

namespace dagu {

std::string Base64Encode(std::string_view data);
// False when `text` is not valid padded base64 (whitespace is not allowed).
bool Base64Decode(std::string_view text, std::string* out);

}  // namespace dagu
