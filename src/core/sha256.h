// SHA-256 (FIPS 180-4) of a byte string, as raw bytes or lowercase hex.
// Used for run IDs (docs/decisions.md §2), Dagu's SafeName hash
// suffix for data directories, and anywhere else a stable digest is needed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace dagu {

// The 32-byte digest of `data`.
std::array<uint8_t, 32> Sha256(std::string_view data);

// The digest as 64 lowercase hex characters.
std::string Sha256Hex(std::string_view data);

}  // namespace dagu
