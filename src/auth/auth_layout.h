// How the builtin auth mode names its records, the home of these names: one
// "<id>.json" per user or API key, files 0600 in directories 0750, as Dagu
// 1.30.2's file stores write them. The directories themselves are the
// config's (Paths::users_dir, Paths::api_keys_dir: <data>/users and
// <data>/apikeys by default, as 1.30.2).
#pragma once

#include <string>
#include <string_view>

namespace dagu::auth {

inline constexpr std::string_view kRecordExtension = ".json";
inline constexpr int kRecordFileMode = 0600;
inline constexpr int kRecordDirMode = 0750;

// "<dir>/<id>.json".
std::string RecordPath(const std::string& dir, std::string_view id);

// Whether `id` may name a record file: not empty, no '/', not "." or "..",
// no NUL. Ids come from URLs, so every lookup checks this first.
bool IsSafeRecordId(std::string_view id);

}  // namespace dagu::auth
