// Base58 (the Bitcoin alphabet, no 0/O/I/l), as Dagu 1.30.2 encodes sub-run
// IDs: Base58 of the SHA-256 of "<parent run ID>:<step name>:<params>".
#pragma once

#include <string>
#include <string_view>

namespace dagu {

// `bytes` in Base58; each leading zero byte becomes a leading '1'.
std::string Base58Encode(std::string_view bytes);

// Base58Encode of the 32-byte SHA-256 digest of `data`.
std::string Base58Sha256(std::string_view data);

}  // namespace dagu
