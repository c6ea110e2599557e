#include "secrets/secrets.h"

#include <gtest/gtest.h>

#include <map>

#include "support/temp_dir.h"

namespace dagu {
namespace {

SecretSources Sources(std::map<std::string, std::string> env, std::vector<std::string> dirs = {}) {
  SecretSources s;
  s.env = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  s.base_dirs = std::move(dirs);
  return s;
}

TEST(SecretsTest, EnvAndFileProviders) {
  testing::TempDir dir;
  dir.WriteFile("token.txt", "line1\n");
  std::vector<ResolvedSecret> out;
  Status s = ResolveSecrets({{"A", "env", "SRC", {}}, {"F", "file", "token.txt", {}}},
                            Sources({{"SRC", "v1"}}, {dir.path()}), &out);
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
}

// A variable set to "" is an empty secret (1.30.2 runs the step), not an
// unset one; an empty file likewise.
TEST(SecretsTest, EmptyValuesResolve) {
  testing::TempDir dir;
  dir.WriteFile("empty.txt", "");
  std::vector<ResolvedSecret> out;
  Status s = ResolveSecrets({{"E", "env", "EMPTY", {}}, {"F", "file", "empty.txt", {}}},
                            Sources({{"EMPTY", ""}}, {dir.path()}), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].value, "");
  EXPECT_EQ(out[1].value, "");
  EXPECT_TRUE(Masker(out).empty());  // nothing to mask
}

// A relative file key: the first base directory that has it (the working
// directory, then the DAG file's directory); none: the key as written.
TEST(SecretsTest, RelativeFileTriesBaseDirsInOrder) {
  testing::TempDir work;
  testing::TempDir dag_dir;
  dag_dir.WriteFile("a.txt", "from-dag-dir");
  dag_dir.WriteFile("b.txt", "from-dag-dir");
  work.WriteFile("b.txt", "from-work");
  std::vector<ResolvedSecret> out;
  Status s = ResolveSecrets({{"A", "file", "a.txt", {}}, {"B", "file", "b.txt", {}}},
                            Sources({}, {work.path(), dag_dir.path()}), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out[0].value, "from-dag-dir");
  EXPECT_EQ(out[1].value, "from-work");
  s = ResolveSecrets({{"C", "file", "sub/c.txt", {}}}, Sources({}, {work.path(), dag_dir.path()}), &out);
  EXPECT_EQ(s.message(), "failed to resolve secret \"C\" from provider \"file\": secret file not found: sub/c.txt");
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
