#include "secrets/secrets.h"

#include <algorithm>

#include "core/file_system.h"

namespace dagu {
namespace {

Status Resolve(const SecretRef& ref, const SecretSources& sources, std::string* value) {
  if (ref.provider == "env") {
    std::optional<std::string> v = sources.env ? sources.env(ref.key) : std::nullopt;
    if (!v.has_value()) return Status::NotFound("environment variable \"" + ref.key + "\" is not set");
    *value = *v;
    return Status::OK();
  }
  if (ref.provider == "file") {
    std::string path = ref.key;
    if (path.empty() || path[0] != '/') {
      for (const auto& dir : sources.base_dirs) {
        if (dir.empty()) continue;
        std::string candidate = JoinPath(dir, ref.key);
        FileInfo info;
        if (PosixFileSystem()->Stat(candidate, &info).ok()) {  // exists, as 1.30.2 checks
          path = candidate;
          break;
        }
      }
    }
    Status s = PosixFileSystem()->ReadFile(path, value);
    if (s.IsNotFound()) return Status::NotFound("secret file not found: " + path);
    if (!s.ok()) return Status::IOError("failed to read secret file " + path + ": " + s.message());
    return Status::OK();
  }
  return Status::InvalidArgument("unknown secret provider: " + ref.provider);
}

}  // namespace

Status ResolveSecrets(const std::vector<SecretRef>& refs, const SecretSources& sources,
                      std::vector<ResolvedSecret>* out) {
  out->clear();
  for (const auto& ref : refs) {
    std::string value;
    Status s = Resolve(ref, sources, &value);
    if (s.code() == Status::Code::kInvalidArgument) return s;  // unknown provider: no secret named
    if (!s.ok()) {
      return Status::NotFound("failed to resolve secret \"" + ref.name + "\" from provider \"" + ref.provider +
                              "\": " + s.message());
    }
    out->push_back({ref.name, std::move(value)});
  }
  return Status::OK();
}

Masker::Masker(const std::vector<ResolvedSecret>& secrets) {
  for (const auto& s : secrets) {
    if (!s.value.empty()) values_.push_back(s.value);
  }
  std::sort(values_.begin(), values_.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
}

size_t Masker::MatchAt(std::string_view text, size_t pos) const {
  for (const auto& v : values_) {
    if (text.compare(pos, v.size(), v) == 0) return v.size();
  }
  return 0;
}

std::string Masker::Mask(std::string_view text) const {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t n = MatchAt(text, i);
    if (n > 0) {
      out += kMask;
      i += n;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

}  // namespace dagu
