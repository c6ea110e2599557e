#include "secrets/secrets.h"

#include <gtest/gtest.h>

#include <map>

#include "support/temp_dir.h"

namespace dagu {
namespace {

SecretSources Sources(std::map<std::string, std::string> env, std::string dir = "") {
  SecretSources s;
  s.env = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  s.working_dir = std::move(dir);
  return s;
}

TEST(SecretsTest, EnvAndFileProviders) {
  testing::TempDir dir;
  dir.WriteFile("token.txt", "line1\n");
  std::vector<ResolvedSecret> out;
  Status s = ResolveSecrets({{"A", "env", "SRC", {}}, {"F", "file", "token.txt", {}}},
                            Sources({{"SRC", "v1"}}, dir.path()), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].value, "v1");
  EXPECT_EQ(out[1].value, "line1\n");  // as is, as 1.30.2 reads it
}

TEST(SecretsTest, ErrorsNameTheSecretNeverAValue) {
  std::vector<ResolvedSecret> out;
  Status s = ResolveSecrets({{"OK", "env", "SET", {}}, {"MISSING", "env", "NOPE", {}}}, Sources({{"SET", "hunter2"}}),
                            &out);
  EXPECT_EQ(s.message(),
            "failed to resolve secret \"MISSING\" from provider \"env\": environment variable \"NOPE\" is not set");
  EXPECT_EQ(s.message().find("hunter2"), std::string::npos);
  s = ResolveSecrets({{"F", "file", "/nonexistent/file", {}}}, Sources({}), &out);
  EXPECT_EQ(s.message(), "failed to resolve secret \"F\" from provider \"file\": secret file not found: /nonexistent/file");
  s = ResolveSecrets({{"V", "vaultx", "a", {}}}, Sources({}), &out);
  EXPECT_EQ(s.message(), "unknown secret provider: vaultx");
  s = ResolveSecrets({{"E", "env", "EMPTY", {}}}, Sources({{"EMPTY", ""}}), &out);
  EXPECT_FALSE(s.ok());
}

TEST(MaskerTest, MasksEveryOccurrenceLongestFirst) {
  Masker m({{"A", "ab"}, {"B", "abc"}, {"C", ""}});
  EXPECT_EQ(m.Mask("x ab abc abcd"), "x ******* ******* *******d");
  EXPECT_EQ(m.longest(), 3u);
  EXPECT_TRUE(Masker().empty());
  EXPECT_EQ(Masker().Mask("ab"), "ab");
}

}  // namespace
}  // namespace dagu
