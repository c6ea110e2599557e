// Builtin-auth files and tokens shared with Dagu 1.30.2: a user and an API
// key our stores (src/auth) wrote, and a session token our TokenSigner
// issued, authenticate on the real 1.30.2 server; the token 1.30.2 issues
// and the key file it then updates (last_used_at) read on ours. (The other
// direction, files 1.30.2 wrote read by ours, is src/auth/stores_test.cc with
// fixtures 1.30.2 wrote.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "auth/api_key_store.h"
#include "auth/token_signer.h"
#include "auth/user_store.h"
#include "support/case_files.h"
#include "support/dagu_process.h"
#include "support/http_client.h"
#include "support/peer_binary.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

using namespace std::chrono_literals;

TEST(AuthInteropTest, UsersKeysAndTokensOfOursAuthenticateOnDagu1302) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;

  DaguHome home;
  const int port = FreePort();
  std::ofstream(home.home() + "/config.yaml") << "auth:\n  mode: builtin\n  builtin:\n    admin:\n"
                                                 "      username: admin\n      password: never-used-1\n"
                                                 "    token:\n      secret: interop-secret-0123456789abcdef\n";
  // 1.30.2's default directories (our config's too: ConfigTest.BuiltinAuthKeysAndDirectories).
  auth::UserStore users(PosixFileSystem(), home.data_dir() + "/users");
  auth::ApiKeyStore keys(PosixFileSystem(), home.data_dir() + "/apikeys");
  ASSERT_TRUE(users.Init().ok());
  ASSERT_TRUE(keys.Init().ok());
  const WallTime now = std::chrono::system_clock::now();
  auth::User carol{auth::NewRecordId().value(), "carol", auth::HashSecret("carol-pass-1").value(),
                   auth::Role::kManager, now, now};
  ASSERT_TRUE(users.Create(carol).ok());
  auth::GeneratedApiKey gen = auth::GenerateApiKey().value();
  auth::ApiKey key{auth::NewRecordId().value(), "ci", "", auth::Role::kViewer, gen.key_hash, gen.key_prefix,
                   now, now, carol.id, std::nullopt};
  ASSERT_TRUE(keys.Create(key).ok());

  DaguProcess server("peer", home.LogPath("peer"));
  ASSERT_TRUE(server.Start(peer, {"server", "--host", "127.0.0.1", "--port", std::to_string(port)},
                           {{"DAGU_HOME", home.home()}, {"DAGU_SKIP_EXAMPLES", "true"}}));
  HttpReply login;
  for (int i = 0; i < 150 && login.status == 0; ++i) {
    login = HttpRequest(port, "POST", "/api/v2/auth/login", R"({"username":"carol","password":"carol-pass-1"})");
    if (login.status == 0) std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(login.status, 200) << login.body << server.Describe(40);
  nlohmann::json body = nlohmann::json::parse(login.body, nullptr, false);
  EXPECT_EQ(body["user"]["id"], carol.id);
  EXPECT_EQ(body["user"]["role"], "manager");

  HttpReply wrong = HttpRequest(port, "POST", "/api/v2/auth/login", R"({"username":"carol","password":"carol-pass-2"})");
  EXPECT_EQ(wrong.status, 401) << wrong.body;

  // The API key as a bearer token; a changed key is refused.
  HttpReply dags = HttpRequest(port, "GET", "/api/v2/dags", "", {{"Authorization", "Bearer " + gen.full_key}});
  EXPECT_EQ(dags.status, 200) << dags.body;
  std::string bad = gen.full_key;
  bad.back() = bad.back() == 'a' ? 'b' : 'a';
  HttpReply refused = HttpRequest(port, "GET", "/api/v2/dags", "", {{"Authorization", "Bearer " + bad}});
  EXPECT_EQ(refused.status, 401) << refused.body;

  // A session token ours signed with the same secret is 1.30.2's: /auth/me
  // answers for carol. One signed with another secret is refused.
  auth::IssuedToken ours = auth::TokenSigner("interop-secret-0123456789abcdef", std::chrono::seconds(600))
                               .Issue(carol.id, carol.username, carol.role, std::chrono::system_clock::now())
                               .value();
  HttpReply me = HttpRequest(port, "GET", "/api/v2/auth/me", "", {{"Authorization", "Bearer " + ours.token}});
  EXPECT_EQ(me.status, 200) << me.body;
  EXPECT_NE(me.body.find("\"carol\""), std::string::npos) << me.body;
  auth::IssuedToken forged = auth::TokenSigner("another-secret-0123456789abcdef", std::chrono::seconds(600))
                                 .Issue(carol.id, carol.username, carol.role, std::chrono::system_clock::now())
                                 .value();
  HttpReply forged_me =
      HttpRequest(port, "GET", "/api/v2/auth/me", "", {{"Authorization", "Bearer " + forged.token}});
  EXPECT_EQ(forged_me.status, 401) << forged_me.body;

  // And the token 1.30.2 issued at login is ours too.
  StatusOr<auth::TokenClaims> theirs = auth::TokenSigner("interop-secret-0123456789abcdef", std::chrono::seconds(0))
                                           .Verify(body["token"].get<std::string>(), std::chrono::system_clock::now());
  ASSERT_TRUE(theirs.ok()) << theirs.status().ToString();
  EXPECT_EQ(theirs->user_id, carol.id);
  EXPECT_EQ(theirs->role, "manager");

  // 1.30.2 saw users, so it created no admin of its own; and it recorded the
  // key's use in a file ours still reads.
  EXPECT_EQ(users.Count().value(), 1u);
  StatusOr<auth::ApiKey> used = keys.GetById(key.id);
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_TRUE(used->last_used_at.has_value());
  EXPECT_EQ(keys.FindBySecret(gen.full_key).value().id, key.id);

  server.Signal(SIGTERM);
  EXPECT_TRUE(server.Wait(15s).has_value());
}

// With no users and no `auth.builtin.admin.password`, both binaries create the
// admin with a generated password and print it in the same banner on stdout.
// The password logs in, is in no file of the home (only its hash is), and a
// second start prints no banner.
struct BannerRun {
  std::string banner;    // the output with the password masked
  std::string password;  // "" when no banner was printed
  int login_status = 0;  // POST /auth/login with it (0: not tried)
  std::vector<std::string> files_with_password;
};

BannerRun StartAndReadBanner(const std::string& binary, const DaguHome& home, const std::string& tag) {
  BannerRun run;
  const int port = FreePort();
  const std::string log = home.LogPath(tag);
  DaguProcess server(tag, log);
  EXPECT_TRUE(server.Start(binary, {"server", "--host", "127.0.0.1", "--port", std::to_string(port)},
                           {{"DAGU_HOME", home.home()}, {"DAGU_SKIP_EXAMPLES", "true"}}));
  HttpReply probe;
  for (int i = 0; i < 150 && probe.status == 0; ++i) {
    probe = HttpRequest(port, "GET", "/api/v2/health", "");
    if (probe.status == 0) std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(probe.status, 200) << probe.body << server.Describe(40);
  const std::string out = Slurp(log);
  std::smatch m;
  if (std::regex_search(out, m, std::regex("Password: (\\S+)"))) {
    run.password = m[1];
    const size_t begin = out.find("====");
    const size_t end = out.rfind("====");
    if (begin != std::string::npos && end != std::string::npos) {
      run.banner = out.substr(begin, end + 4 - begin);
      run.banner = std::regex_replace(run.banner, std::regex("Password: \\S+"), "Password: <generated>");
    }
    const std::string body = nlohmann::json{{"username", "admin"}, {"password", run.password}}.dump();
    run.login_status = HttpRequest(port, "POST", "/api/v2/auth/login", body).status;
    for (const auto& e : std::filesystem::recursive_directory_iterator(home.home())) {
      if (e.is_regular_file() && Slurp(e.path().string()).find(run.password) != std::string::npos) {
        run.files_with_password.push_back(e.path().string());
      }
    }
  }
  server.Signal(SIGTERM);
  EXPECT_TRUE(server.Wait(15s).has_value());
  return run;
}

TEST(AuthInteropTest, GeneratedAdminPasswordBannerAsDagu1302) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  const std::string config =
      "auth:\n  mode: builtin\n  builtin:\n    token:\n      secret: banner-secret-0123456789abcdef01\n";
  DaguHome theirs_home, ours_home;
  std::ofstream(theirs_home.home() + "/config.yaml") << config;
  std::ofstream(ours_home.home() + "/config.yaml") << config;

  const BannerRun theirs = StartAndReadBanner(peer, theirs_home, "peer");
  const BannerRun ours = StartAndReadBanner(DAGU_BINARY, ours_home, "ours");
  ASSERT_FALSE(theirs.password.empty()) << "1.30.2 printed no banner";
  ASSERT_FALSE(ours.password.empty()) << Slurp(ours_home.LogPath("ours"));
  EXPECT_EQ(ours.banner, theirs.banner);
  EXPECT_EQ(ours.password.size(), theirs.password.size());
  EXPECT_EQ(theirs.login_status, 200);
  EXPECT_EQ(ours.login_status, 200);
  EXPECT_TRUE(theirs.files_with_password.empty()) << theirs.files_with_password.front();
  EXPECT_TRUE(ours.files_with_password.empty()) << ours.files_with_password.front();

  // The admin exists now: a second start of ours creates none and prints nothing.
  const BannerRun again = StartAndReadBanner(DAGU_BINARY, ours_home, "ours-again");
  EXPECT_TRUE(again.password.empty()) << again.banner;
}

}  // namespace
}  // namespace dagu::testing
