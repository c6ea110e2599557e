#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>

#include "auth/api_key_store.h"
#include "auth/auth_layout.h"
#include "auth/role.h"
#include "auth/user_store.h"
#include "core/time_format.h"
#include "support/temp_dir.h"

namespace dagu::auth {
namespace {

using testing::TempDir;

// Files exactly as Dagu 1.30.2 wrote them (start-up admin with password
// "adminpass123"; an operator API key created with POST /api/v2/api-keys).
constexpr char kGoUser[] = R"({
  "id": "b0383dd1-25fb-4d63-a44c-6b660872673b",
  "username": "admin",
  "password_hash": "$2a$12$M1ExHkJdcQlbbZdwgxark.IA26JaIPG8VEaI6sYIqeJ5gb2HbXlu.",
  "role": "admin",
  "created_at": "2026-12-05T11:31:15.078207665Z",
  "updated_at": "2026-12-05T11:31:15.078207665Z"
})";
constexpr char kGoKeyId[] = "422aec92-0f0f-4da6-9804-b34c987402a3";
constexpr char kGoKeySecret[] = "dagu_7MPbdEPJT9bYDh1Edy45m3rModjNCH6tDixiREKzY9u3";
constexpr char kGoKey[] = R"({
  "id": "422aec92-0f0f-4da6-9804-b34c987402a3",
  "name": "ci",
  "description": "d",
  "role": "operator",
  "key_hash": "$2a$12$1IYuQDUESoIf.pW/Bk6buu8DS1nYbkFVIQW1QDxJnOPltyAXFxkqK",
  "key_prefix": "dagu_7MP",
  "created_at": "2026-12-05T11:31:23.789733938Z",
  "updated_at": "2026-12-05T11:31:23.789733938Z",
  "created_by": "b0383dd1-25fb-4d63-a44c-6b660872673b"
})";

User NewUser(const std::string& id, const std::string& name, Role role) {
  WallTime t;
  bool set = false;
  EXPECT_TRUE(ParseRFC3339("2026-12-05T11:31:15.5Z", &t, &set).ok());
  return User{id, name, "$2a$04$4WaWurGhD7L5idZU0HlGou7z8/hEW8yc0hf3RNkND53BYddeMEaE2", role, t, t};
}

TEST(RoleTest, NamesAndOrder) {
  for (Role r : {Role::kAdmin, Role::kManager, Role::kOperator, Role::kViewer}) {
    EXPECT_EQ(ParseRole(RoleName(r)), r);
  }
  EXPECT_FALSE(ParseRole("Admin").has_value());
  EXPECT_FALSE(ParseRole("").has_value());
  EXPECT_TRUE(CanWrite(Role::kManager));
  EXPECT_FALSE(CanWrite(Role::kOperator));
  EXPECT_TRUE(CanExecute(Role::kOperator));
  EXPECT_FALSE(CanExecute(Role::kViewer));
  EXPECT_TRUE(IsAdmin(Role::kAdmin));
  EXPECT_FALSE(IsAdmin(Role::kManager));
}

TEST(AuthLayoutTest, RecordNamesAndSafeIds) {
  EXPECT_EQ(RecordPath("/d/users", "abc"), "/d/users/abc.json");
  EXPECT_TRUE(IsSafeRecordId("b0383dd1-25fb-4d63-a44c-6b660872673b"));
  for (const char* bad : {"", ".", "..", "../x", "a/b"}) EXPECT_FALSE(IsSafeRecordId(bad)) << bad;
}

TEST(RecordIdTest, RandomUuidV4) {
  StatusOr<std::string> a = NewRecordId();
  StatusOr<std::string> b = NewRecordId();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 36u);
  EXPECT_EQ((*a)[14], '4');
  EXPECT_NE(*a, *b);
}

TEST(UserStoreTest, ReadsAUserDagu1302WroteAndItsPasswordVerifies) {
  TempDir tmp;
  tmp.WriteFile("users/b0383dd1-25fb-4d63-a44c-6b660872673b.json", kGoUser);
  UserStore store(PosixFileSystem(), tmp.Sub("users"));
  StatusOr<User> user = store.GetByUsername("admin");
  ASSERT_TRUE(user.ok()) << user.status().ToString();
  EXPECT_EQ(user->id, "b0383dd1-25fb-4d63-a44c-6b660872673b");
  EXPECT_EQ(user->role, Role::kAdmin);
  EXPECT_EQ(FormatRFC3339NanoUTC(user->created_at), "2026-12-05T11:31:15.078207665Z");
  EXPECT_TRUE(VerifySecret(user->password_hash, "adminpass123"));
  // Written back unchanged: byte for byte what 1.30.2 wrote.
  EXPECT_EQ(UserToJson(*user), kGoUser);
  EXPECT_FALSE(user->disabled);
}

TEST(UserStoreTest, ADisabledUserKeepsItsFlagAndOnlyItsFileCarriesIt) {
  User u = NewUser("u1", "alice", Role::kOperator);
  u.disabled = true;
  const std::string text = UserToJson(u);
  EXPECT_NE(text.find("\"disabled\": true"), std::string::npos) << text;
  User back;
  ASSERT_TRUE(UserFromJson(text, &back).ok());
  EXPECT_TRUE(back.disabled);
  back.disabled = false;
  EXPECT_EQ(UserToJson(back).find("disabled"), std::string::npos) << "an enabled user's file is 1.30.2's text";
  std::string bad = text;
  bad.replace(bad.find("true"), 4, "\"yes\"");
  Status s = UserFromJson(bad, &back);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("disabled"), std::string::npos) << s.ToString();
}

TEST(UserStoreTest, CrudAndUniqueness) {
  TempDir tmp;
  UserStore store(PosixFileSystem(), tmp.Sub("data/users"));
  ASSERT_TRUE(store.Init().ok());
  struct stat st{};
  ASSERT_EQ(::stat(tmp.Sub("data/users").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u);

  ASSERT_TRUE(store.Create(NewUser("u1", "alice", Role::kManager)).ok());
  ASSERT_EQ(::stat(tmp.Sub("data/users/u1.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(store.Create(NewUser("u2", "alice", Role::kViewer)).IsAlreadyExists());
  EXPECT_TRUE(store.Create(NewUser("u1", "bob", Role::kViewer)).IsAlreadyExists());
  EXPECT_FALSE(store.Create(NewUser("", "carol", Role::kViewer)).ok());
  EXPECT_FALSE(store.Create(NewUser("u3", "", Role::kViewer)).ok());
  ASSERT_TRUE(store.Create(NewUser("u2", "bob", Role::kViewer)).ok());
  EXPECT_EQ(store.Count().value(), 2u);

  User bob = store.GetById("u2").value();
  bob.username = "alice";
  EXPECT_TRUE(store.Update(bob).IsAlreadyExists());
  bob.username = "robert";
  bob.role = Role::kOperator;
  ASSERT_TRUE(store.Update(bob).ok());
  EXPECT_EQ(store.GetByUsername("robert").value().role, Role::kOperator);
  EXPECT_TRUE(store.GetByUsername("bob").status().IsNotFound());
  EXPECT_TRUE(store.Update(NewUser("u9", "zed", Role::kViewer)).IsNotFound());

  ASSERT_TRUE(store.Delete("u1").ok());
  EXPECT_TRUE(store.Delete("u1").IsNotFound());
  EXPECT_TRUE(store.GetById("u1").status().IsNotFound());
  EXPECT_FALSE(store.GetById("../users/u2").ok());
  EXPECT_EQ(store.Count().value(), 1u);
}

TEST(UserStoreTest, SkipsBrokenFilesAndTempFiles) {
  TempDir tmp;
  tmp.WriteFile("users/b0383dd1-25fb-4d63-a44c-6b660872673b.json", kGoUser);
  tmp.WriteFile("users/broken.json", "{not json");
  std::string bad_role = kGoUser;
  bad_role.replace(bad_role.find("\"role\": \"admin\""), 17, "\"role\": \"root\"");
  tmp.WriteFile("users/badrole.json", bad_role);
  tmp.WriteFile("users/x.json.tmp.1.0", kGoUser);
  UserStore store(PosixFileSystem(), tmp.Sub("users"));
  StatusOr<std::vector<User>> users = store.List();
  ASSERT_TRUE(users.ok());
  ASSERT_EQ(users->size(), 1u);
  EXPECT_EQ((*users)[0].username, "admin");
  EXPECT_TRUE(store.GetById("broken").status().IsCorruption());
  EXPECT_TRUE(store.GetById("badrole").status().IsCorruption());
}

TEST(UserStoreTest, MissingDirectoryIsEmpty) {
  TempDir tmp;
  UserStore store(PosixFileSystem(), tmp.Sub("nope"));
  EXPECT_EQ(store.Count().value(), 0u);
}

TEST(ApiKeyStoreTest, AKeyDagu1302CreatedAuthenticatesAndRoundTrips) {
  TempDir tmp;
  tmp.WriteFile(std::string("apikeys/") + kGoKeyId + ".json", kGoKey);
  ApiKeyStore store(PosixFileSystem(), tmp.Sub("apikeys"));
  StatusOr<ApiKey> key = store.FindBySecret(kGoKeySecret);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->id, kGoKeyId);
  EXPECT_EQ(key->role, Role::kOperator);
  EXPECT_EQ(key->description, "d");
  EXPECT_FALSE(key->last_used_at.has_value());
  EXPECT_EQ(ApiKeyToJson(*key), kGoKey);

  std::string wrong = kGoKeySecret;
  wrong.back() = wrong.back() == 'u' ? 'v' : 'u';
  EXPECT_TRUE(store.FindBySecret(wrong).status().IsNotFound());
  EXPECT_TRUE(store.FindBySecret("7MPbdEPJT9bYDh1Edy45m3rModjNCH6tDixiREKzY9u3").status().IsNotFound());
  EXPECT_TRUE(store.FindBySecret("").status().IsNotFound());
}

TEST(ApiKeyStoreTest, GeneratedKeysHaveDagusShape) {
  StatusOr<GeneratedApiKey> gen = GenerateApiKey(4);
  ASSERT_TRUE(gen.ok());
  EXPECT_TRUE(gen->full_key.starts_with("dagu_"));
  EXPECT_GE(gen->full_key.size(), 45u);  // base58 of 32 bytes: 43-44 characters
  EXPECT_EQ(gen->key_prefix, gen->full_key.substr(0, 8));
  EXPECT_TRUE(VerifySecret(gen->key_hash, gen->full_key));
  EXPECT_EQ(gen->full_key.find_first_of("0OIl"), std::string::npos);
}

TEST(ApiKeyStoreTest, CrudLastUsedAndRevocation) {
  TempDir tmp;
  ApiKeyStore store(PosixFileSystem(), tmp.Sub("apikeys"));
  ASSERT_TRUE(store.Init().ok());
  GeneratedApiKey gen = GenerateApiKey(4).value();
  WallTime t = FromUnixSeconds(1796470000);
  ApiKey key{"k1", "deploy", "", Role::kManager, gen.key_hash, gen.key_prefix, t, t, "u1", std::nullopt};
  ASSERT_TRUE(store.Create(key).ok());
  EXPECT_TRUE(store.Create(key).IsAlreadyExists());
  std::string text;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(tmp.Sub("apikeys/k1.json"), &text).ok());
  EXPECT_EQ(text.find("description"), std::string::npos);  // omitempty, as 1.30.2
  EXPECT_EQ(text.find("last_used_at"), std::string::npos);
  EXPECT_EQ(text.find(gen.full_key), std::string::npos);   // the secret itself is never stored

  ASSERT_EQ(store.FindBySecret(gen.full_key).value().id, "k1");
  ASSERT_TRUE(store.UpdateLastUsed("k1", t + std::chrono::seconds(5)).ok());
  EXPECT_EQ(FormatRFC3339NanoUTC(*store.GetById("k1").value().last_used_at), "2026-12-05T11:26:45Z");

  ApiKey renamed = store.GetById("k1").value();
  renamed.name = "deploy2";
  ASSERT_TRUE(store.Update(renamed).ok());
  EXPECT_EQ(store.List().value().size(), 1u);
  ASSERT_TRUE(store.Delete("k1").ok());
  EXPECT_TRUE(store.FindBySecret(gen.full_key).status().IsNotFound());
  EXPECT_TRUE(store.Delete("k1").IsNotFound());
  EXPECT_TRUE(store.UpdateLastUsed("k1", t).IsNotFound());
}

}  // namespace
}  // namespace dagu::auth
