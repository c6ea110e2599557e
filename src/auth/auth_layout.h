// AuthLayout: where the builtin auth mode keeps its files, the home of these
// names. Dagu 1.30.2's defaults (internal/common/config/loader.go): users
// under <data>/users, API keys under <data>/apikeys, one "<id>.json" each,
// files 0600 in directories 0750.
#pragma once

#include <string>
#include <string_view>

namespace dagu::auth {

inline constexpr std::string_view kRecordExtension = ".json";
inline constexpr int kRecordFileMode = 0600;
inline constexpr int kRecordDirMode = 0750;

struct AuthLayout {
  std::string users_dir;     // <data>/users
  std::string api_keys_dir;  // <data>/apikeys
};

// The default layout under a data directory.
AuthLayout AuthLayoutFor(const std::string& data_dir);

// "<dir>/<id>.json".
std::string RecordPath(const std::string& dir, std::string_view id);

// Whether `id` may name a record file: not empty, no '/', not "." or "..",
// no NUL. Ids come from URLs, so every lookup checks this first.
bool IsSafeRecordId(std::string_view id);

}  // namespace dagu::auth
