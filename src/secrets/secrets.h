// Secrets (Dagu 1.30.2 `secrets:`): resolving each entry's value from its
// provider when a run starts, and masking every resolved value wherever run
// output is written.
//
// Providers (as Dagu 1.30.2 resolves them):
//   env   the value of environment variable `key` (the process environment,
//         the DAG's env and its dotenv files); a variable set to "" gives
//         "" (an empty secret masks nothing), an unset one is an error
//   file  the contents of file `key`, as is (a trailing newline is part of
//         the value). An absolute path is read as it is; a relative one is
//         looked up in each base directory in order (the DAG's working
//         directory, then the DAG file's directory) and the first that
//         exists is read; when none has it, the error names the key as
//         written. No "~" expansion (1.30.2 has none).
// Errors name the secret and the provider, never a value:
//   failed to resolve secret "DB" from provider "env": environment variable "DB_PASS" is not set
//   failed to resolve secret "F" from provider "file": secret file not found: /run/f
//   unknown secret provider: vault
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "dag/dag.h"

namespace dagu {

struct ResolvedSecret {
  std::string name;
  std::string value;
};

struct SecretSources {
  // A variable of the run's environment (DAG env over the process env).
  std::function<std::optional<std::string>(const std::string& name)> env;
  std::vector<std::string> base_dirs;  // for relative file keys, in order
};

// Resolves every entry in order; stops at the first that fails.
Status ResolveSecrets(const std::vector<SecretRef>& refs, const SecretSources& sources,
                      std::vector<ResolvedSecret>* out);

// Replaces every occurrence of a secret value by "*******" (1.30.2's mask),
// longest values first so that a value containing another is masked whole.
// Empty values are never masked. Immutable once built: thread-safe.
class Masker {
 public:
  static constexpr const char kMask[] = "*******";

  Masker() = default;
  explicit Masker(const std::vector<ResolvedSecret>& secrets);

  bool empty() const { return values_.empty(); }
  std::string Mask(std::string_view text) const;
  // The length of the value that starts at text[pos] (the longest one), or 0.
  size_t MatchAt(std::string_view text, size_t pos) const;
  // The length of the longest value (a streaming masker holds back one byte
  // less than this, so a value split across writes is still masked).
  size_t longest() const { return values_.empty() ? 0 : values_.front().size(); }

 private:
  std::vector<std::string> values_;  // longest first
};

}  // namespace dagu
