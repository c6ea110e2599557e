#include "executors/docker_registry_auth.h"

#include "core/base64.h"
#include "core/json_text.h"

namespace dagu {
namespace {

std::string Field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// registry.EncodeAuthConfig: Go's field order, omitempty.
std::string Encode(const nlohmann::json& auth) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* key : {"username", "password", "auth", "email", "serveraddress", "identitytoken", "registrytoken"}) {
    std::string v = Field(auth, key);
    if (!v.empty()) out[key] = v;
  }
  std::string b = Base64Encode(JsonText(out));
  for (char& c : b) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return b;
}

// registry.AuthConfig decodes case-insensitively, as Go's encoding/json.
nlohmann::json Lowered(const nlohmann::json& j) {
  nlohmann::json out = nlohmann::json::object();
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string k = it.key();
    for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out[k] = it.value();
  }
  return out;
}

StatusOr<std::string> FromDockerConfig(const std::string& text, const std::string& image) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::InvalidArgument("invalid DOCKER_AUTH_CONFIG format: not a JSON object");
  }
  nlohmann::json auths = doc.contains("auths") && doc["auths"].is_object() ? doc["auths"] : nlohmann::json::object();
  const std::string host = RegistryHostOf(image);
  std::vector<std::string> keys{host, "https://" + host};
  if (host.find(':') != std::string::npos) keys.push_back(host.substr(0, host.find(':')));
  for (const std::string& key : keys) {
    if (auths.contains(key)) {
      nlohmann::json a = Lowered(auths[key]);
      a["serveraddress"] = host;
      return Encode(a);
    }
  }
  return std::string();
}

}  // namespace

std::string RegistryHostOf(const std::string& image) {
  std::string name = image.substr(0, image.find('@'));
  size_t slash = name.find('/');
  if (slash == std::string::npos) return "docker.io";
  std::string first = name.substr(0, slash);
  if (first.find('.') != std::string::npos || first.find(':') != std::string::npos || first == "localhost") {
    return first;
  }
  return "docker.io";
}

StatusOr<std::string> RegistryAuthHeader(const nlohmann::json& registry_auths, const std::string& image,
                                         const std::string& docker_auth_config,
                                         const std::function<std::string(const std::string&)>& expand) {
  if (!registry_auths.is_object() || registry_auths.empty()) return std::string();
  auto value = [&](const nlohmann::json& entry, const char* key) { return expand(Field(entry, key)); };
  if (auto it = registry_auths.find("_json"); it != registry_auths.end() && !value(*it, "auth").empty()) {
    StatusOr<std::string> h = FromDockerConfig(value(*it, "auth"), image);
    if (!h.ok()) return h.status().WithContext("failed to get pull options: failed to get auth header");
    return h;
  }
  const std::string host = RegistryHostOf(image);
  if (auto it = registry_auths.find(host); it != registry_auths.end()) {
    const std::string auth = value(*it, "auth");
    nlohmann::json a = nlohmann::json::object();
    if (!auth.empty() && auth[0] == '{') {
      nlohmann::json parsed = nlohmann::json::parse(auth, nullptr, false);
      a = parsed.is_discarded() ? nlohmann::json{{"auth", auth}} : Lowered(parsed);
    } else if (!value(*it, "username").empty() && !value(*it, "password").empty()) {
      a = {{"username", value(*it, "username")}, {"password", value(*it, "password")}};
    } else if (!auth.empty()) {
      a = {{"auth", auth}};
    }
    a["serveraddress"] = host;
    return Encode(a);
  }
  if (docker_auth_config.empty()) return std::string();
  StatusOr<std::string> h = FromDockerConfig(docker_auth_config, image);
  if (!h.ok()) {
    return Status::InvalidArgument("failed to get pull options: failed to get auth header: failed to parse "
                                   "DOCKER_AUTH_CONFIG: " + h.status().message());
  }
  return h;
}

}  // namespace dagu
