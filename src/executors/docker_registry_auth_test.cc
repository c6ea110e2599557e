#include "executors/docker_registry_auth.h"

#include <gtest/gtest.h>

#include "core/base64.h"

namespace dagu {
namespace {

using nlohmann::json;

std::string Identity(const std::string& s) { return s; }

// The header decoded back to its JSON (base64url with padding).
std::string Decoded(const std::string& header) {
  std::string std64 = header;
  for (char& c : std64) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  std::string out;
  EXPECT_TRUE(Base64Decode(std64, &out)) << header;
  return out;
}

std::string Header(const std::string& auths, const std::string& image, const std::string& env = "") {
  StatusOr<std::string> h = RegistryAuthHeader(json::parse(auths), image, env, Identity);
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return h.ok() ? *h : "";
}

TEST(DockerRegistryAuthTest, RegistryHostOfAnImage) {
  EXPECT_EQ(RegistryHostOf("busybox"), "docker.io");
  EXPECT_EQ(RegistryHostOf("library/busybox:1"), "docker.io");
  EXPECT_EQ(RegistryHostOf("ghcr.io/o/i:tag"), "ghcr.io");
  EXPECT_EQ(RegistryHostOf("localhost/busybox:static"), "localhost");
  EXPECT_EQ(RegistryHostOf("reg:5000/x@sha256:ab"), "reg:5000");
}

TEST(DockerRegistryAuthTest, UsernamePasswordAuthAndJsonAuth) {
  EXPECT_EQ(Decoded(Header(R"({"ghcr.io":{"username":"u","password":"p"}})", "ghcr.io/o/i")),
            R"({"username":"u","password":"p","serveraddress":"ghcr.io"})");
  EXPECT_EQ(Decoded(Header(R"({"docker.io":{"auth":"dTpw"}})", "busybox")),
            R"({"auth":"dTpw","serveraddress":"docker.io"})");
  // A username without a password: the auth string is sent.
  EXPECT_EQ(Decoded(Header(R"({"docker.io":{"username":"u","auth":"dTpw"}})", "busybox")),
            R"({"auth":"dTpw","serveraddress":"docker.io"})");
  EXPECT_EQ(Decoded(Header(R"({"docker.io":{"auth":"{\"Username\":\"j\",\"Password\":\"k\"}"}})", "busybox")),
            R"({"username":"j","password":"k","serveraddress":"docker.io"})");
  // Base64url: '+' and '/' become '-' and '_'.
  std::string h = Header(R"({"docker.io":{"username":"u>>>","password":"???"}})", "busybox");
  EXPECT_EQ(h.find('+'), std::string::npos);
  EXPECT_EQ(h.find('/'), std::string::npos);
}

TEST(DockerRegistryAuthTest, JsonStringAndDockerAuthConfigFallback) {
  const std::string config = R"({"auths":{"https://ghcr.io":{"auth":"YTpi"},"reg":{"username":"r","password":"s"}}})";
  json as_string = {{"_json", {{"auth", config}}}};
  EXPECT_EQ(Decoded(Header(as_string.dump(), "ghcr.io/x")), R"({"auth":"YTpi","serveraddress":"ghcr.io"})");
  // A host with a port matches its entry without the port.
  EXPECT_EQ(Decoded(Header(as_string.dump(), "reg:5000/x")),
            R"({"username":"r","password":"s","serveraddress":"reg:5000"})");
  EXPECT_EQ(Header(as_string.dump(), "busybox"), "");
  // No entry for the host: DOCKER_AUTH_CONFIG.
  EXPECT_EQ(Decoded(Header(R"({"docker.io":{"auth":"x"}})", "ghcr.io/x", config)),
            R"({"auth":"YTpi","serveraddress":"ghcr.io"})");
  // No registryAuths at all: nothing, DOCKER_AUTH_CONFIG is not read (1.30.2).
  EXPECT_EQ(Header("null", "ghcr.io/x", config), "");
  EXPECT_FALSE(RegistryAuthHeader(json{{"_json", {{"auth", "not json"}}}}, "busybox", "", Identity).ok());
}

TEST(DockerRegistryAuthTest, ValuesAreExpanded) {
  auto expand = [](const std::string& s) { return s == "${P}" ? std::string("secret") : s; };
  StatusOr<std::string> h =
      RegistryAuthHeader(json::parse(R"({"ghcr.io":{"username":"u","password":"${P}"}})"), "ghcr.io/i", "", expand);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(Decoded(*h), R"({"username":"u","password":"secret","serveraddress":"ghcr.io"})");
}

}  // namespace
}  // namespace dagu
