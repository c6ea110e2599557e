// Builtin-auth files and tokens shared with Dagu 1.30.2: a user and an API
// key our stores (src/auth) wrote, and a session token our TokenSigner
// issued, authenticate on the real 1.30.2 server; the token 1.30.2 issues
// and the key file it then updates (last_used_at) read on ours. (The other
// direction, files 1.30.2 wrote read by ours, is src/auth/stores_test.cc with
// fixtures 1.30.2 wrote.) Webhooks, both ways on one home: a webhook 1.30.2
// created triggers a run on ours, and one ours created triggers a run on
// 1.30.2, each run seeing WEBHOOK_PAYLOAD.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "auth/api_key_store.h"
#include "core/base64.h"
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

// `start-all` of `binary` on `home` (builtin auth from its config.yaml) on
// free ports; nullptr (after a failure) when its API did not come up.
std::unique_ptr<DaguProcess> StartAll(const std::string& name, const std::string& binary, const DaguHome& home,
                                      int* port) {
  *port = FreePort();
  auto p = std::make_unique<DaguProcess>(name, home.LogPath(name));
  EXPECT_TRUE(p->Start(binary, {"start-all", "--host", "127.0.0.1", "--port", std::to_string(*port)},
                       {{"DAGU_HOME", home.home()},
                        {"DAGU_SKIP_EXAMPLES", "true"},
                        {"DAGU_SCHEDULER_PORT", std::to_string(FreePort())}}));
  for (int i = 0; i < 200; ++i) {
    if (HttpRequest(*port, "GET", "/api/v2/health").status == 200) return p;
    std::this_thread::sleep_for(100ms);
  }
  ADD_FAILURE() << name << " did not come up\n" << p->Describe(40);
  return nullptr;
}

std::string AdminToken(int port) {
  HttpReply login = HttpRequest(port, "POST", "/api/v2/auth/login", R"({"username":"admin","password":"admin-pass-1"})");
  EXPECT_EQ(login.status, 200) << login.body;
  nlohmann::json j = nlohmann::json::parse(login.body, nullptr, false);
  return j.is_object() && j.contains("token") ? j["token"].get<std::string>() : "";
}

// POST /dags/{dag}/webhook as admin; the token it shows once.
std::string CreateWebhook(int port, const std::string& dag) {
  HttpReply r = HttpRequest(port, "POST", "/api/v2/dags/" + dag + "/webhook", "",
                            {{"Authorization", "Bearer " + AdminToken(port)}});
  EXPECT_EQ(r.status, 201) << r.body;
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  return j.is_object() && j.contains("token") ? j["token"].get<std::string>() : "";
}

// What the DAG's step wrote (printenv WEBHOOK_PAYLOAD), once it has.
std::string WaitForFile(const std::string& path) {
  for (int i = 0; i < 600; ++i) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (in && !text.str().empty()) return text.str();
    std::this_thread::sleep_for(100ms);
  }
  return "";
}

TEST(AuthInteropTest, WebhooksWorkBothWaysOnOneHome) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;

  DaguHome home;
  std::ofstream(home.home() + "/config.yaml") << "auth:\n  mode: builtin\n  builtin:\n    admin:\n"
                                                 "      username: admin\n      password: admin-pass-1\n"
                                                 "    token:\n      secret: interop-secret-0123456789abcdef\n";
  const std::string out_a = home.Scratch("payload-a.txt");
  const std::string out_b = home.Scratch("payload-b.txt");
  home.WriteDag("hook_a", "steps:\n  - name: show\n    command: sh -c 'printenv WEBHOOK_PAYLOAD > " + out_a + "'\n");
  home.WriteDag("hook_b", "steps:\n  - name: show\n    command: sh -c 'printenv WEBHOOK_PAYLOAD > " + out_b + "'\n");
  const std::string payload = R"({"payload":{"k":"v w","n":[1,2]}})";
  const std::string want = "{\"k\":\"v w\",\"n\":[1,2]}\n";

  // 1.30.2 creates the webhook of hook_a (its index is read at start-up, so
  // each server starts after the other wrote its webhook).
  int port = 0;
  auto theirs = StartAll("peer-1", peer, home, &port);
  ASSERT_NE(theirs, nullptr);
  const std::string token_a = CreateWebhook(port, "hook_a");
  ASSERT_TRUE(token_a.starts_with("dagu_wh_")) << token_a;
  theirs->Signal(SIGTERM);
  ASSERT_TRUE(theirs->Wait(15s).has_value());

  // Ours triggers with 1.30.2's token and creates the webhook of hook_b.
  auto ours = StartAll("ours", DAGU_BINARY, home, &port);
  ASSERT_NE(ours, nullptr);
  HttpReply wrong = HttpRequest(port, "POST", "/api/v2/webhooks/hook_a", payload,
                                {{"Authorization", "Bearer " + token_a + "x"}});
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  HttpReply fired = HttpRequest(port, "POST", "/api/v2/webhooks/hook_a", payload,
                                {{"Authorization", "Bearer " + token_a}}, 20s);
  ASSERT_EQ(fired.status, 200) << fired.body << ours->Describe(40);
  EXPECT_EQ(WaitForFile(out_a), want) << ours->Describe(40);
  const std::string token_b = CreateWebhook(port, "hook_b");
  ASSERT_TRUE(token_b.starts_with("dagu_wh_")) << token_b;
  ours->Signal(SIGTERM);
  ASSERT_TRUE(ours->Wait(15s).has_value());

  // 1.30.2 triggers with our token; ours recorded hook_a's use where 1.30.2 reads it.
  theirs = StartAll("peer-2", peer, home, &port);
  ASSERT_NE(theirs, nullptr);
  HttpReply listed = HttpRequest(port, "GET", "/api/v2/webhooks", "", {{"Authorization", "Bearer " + AdminToken(port)}});
  ASSERT_EQ(listed.status, 200) << listed.body;
  nlohmann::json hooks = nlohmann::json::parse(listed.body, nullptr, false)["webhooks"];
  ASSERT_EQ(hooks.size(), 2u) << listed.body;
  for (const auto& h : hooks) EXPECT_EQ(h.contains("lastUsedAt"), h["dagName"] == "hook_a") << h.dump();
  HttpReply theirs_fired = HttpRequest(port, "POST", "/api/v2/webhooks/hook_b", payload,
                                       {{"Authorization", "Bearer " + token_b}}, 20s);
  ASSERT_EQ(theirs_fired.status, 200) << theirs_fired.body << theirs->Describe(40);
  EXPECT_EQ(WaitForFile(out_b), want) << theirs->Describe(40);
  theirs->Signal(SIGTERM);
  EXPECT_TRUE(theirs->Wait(15s).has_value());
}

// base64url without padding (a JWT's parts).
std::string B64Url(std::string_view data) {
  std::string b = Base64Encode(data);
  while (!b.empty() && b.back() == '=') b.pop_back();
  for (char& c : b) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return b;
}

// Issue 29's attack list against `dagu server` with builtin auth, over HTTP:
// tampered, expired and `alg: none` session tokens, another secret; the
// tokens of a user whose password changed, was reset or who was deleted; a
// key whose creator was deleted (kept, as 1.30.2: keys are not a user's);
// cross-site login and writes; brute force on the login (last: it locks
// this client out for a minute).
TEST(AuthAttacksTest, RefusedOverHttpWithBuiltinAuth) {
  DaguHome home;
  const int port = FreePort();
  const std::string secret = "attack-secret-0123456789abcdef";
  std::ofstream(home.home() + "/config.yaml") << "auth:\n  mode: builtin\n  builtin:\n    admin:\n"
                                                 "      username: admin\n      password: admin-pass-1\n"
                                                 "    token:\n      secret: " + secret + "\n";
  DaguProcess server("ours", home.LogPath("ours"));
  ASSERT_TRUE(server.Start(DAGU_BINARY, {"server", "--host", "127.0.0.1", "--port", std::to_string(port)},
                           {{"DAGU_HOME", home.home()}, {"DAGU_SKIP_EXAMPLES", "true"}}));
  auto login = [&](const std::string& user, const std::string& pass) {
    return HttpRequest(port, "POST", "/api/v2/auth/login",
                       nlohmann::json{{"username", user}, {"password", pass}}.dump(), {}, 20s);
  };
  auto token_of = [](const HttpReply& r) {
    return nlohmann::json::parse(r.body, nullptr, false).value("token", std::string());
  };
  auto as = [&](const std::string& token, const std::string& method, const std::string& target,
                const std::string& body = "", std::map<std::string, std::string> headers = {}) {
    headers["Authorization"] = "Bearer " + token;
    return HttpRequest(port, method, target, body, headers, 20s).status;
  };
  HttpReply first;
  for (int i = 0; i < 150 && first.status == 0; ++i) {
    first = login("admin", "admin-pass-1");
    if (first.status == 0) std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(first.status, 200) << first.body << server.Describe(40);
  const std::string admin = token_of(first);
  ASSERT_EQ(as(admin, "GET", "/api/v2/dags"), 200);

  // Forged session tokens.
  const size_t dot1 = admin.find('.'), dot2 = admin.rfind('.');
  std::string payload = admin.substr(dot1 + 1, dot2 - dot1 - 1);
  std::string tampered = admin;
  tampered[dot1 + 5] = tampered[dot1 + 5] == 'A' ? 'B' : 'A';
  EXPECT_EQ(as(tampered, "GET", "/api/v2/dags"), 401) << "a changed payload";
  EXPECT_EQ(as(B64Url(R"({"alg":"none","typ":"JWT"})") + "." + payload + ".", "GET", "/api/v2/dags"), 401)
      << "alg: none";
  const std::string user_id = nlohmann::json::parse(first.body)["user"]["id"];
  const auto now = std::chrono::system_clock::now();
  auto issued = [&](const std::string& key, std::chrono::system_clock::time_point at) {
    return auth::TokenSigner(key, std::chrono::seconds(600)).Issue(user_id, "admin", auth::Role::kAdmin, at)
        .value().token;
  };
  EXPECT_EQ(as(issued(secret, now - 2h), "GET", "/api/v2/dags"), 401) << "expired";
  EXPECT_EQ(as(issued("another-secret-0123456789abcdef", now), "GET", "/api/v2/dags"), 401) << "another secret";
  EXPECT_EQ(as(issued(secret, now), "GET", "/api/v2/dags"), 200) << "control: the same claims, well signed";

  // Tokens of a user who changed: password changed, reset, deleted.
  ASSERT_EQ(as(admin, "POST", "/api/v2/users", R"({"username":"bob","password":"bob-pass-11","role":"operator"})"),
            201);
  std::string bob = token_of(login("bob", "bob-pass-11"));
  ASSERT_EQ(as(bob, "GET", "/api/v2/dags"), 200);
  std::this_thread::sleep_for(1100ms);  // tokens issued before the second of the change end
  ASSERT_EQ(as(bob, "POST", "/api/v2/auth/change-password",
               R"({"currentPassword":"bob-pass-11","newPassword":"bob-pass-22"})"), 200);
  EXPECT_EQ(as(bob, "GET", "/api/v2/dags"), 401) << "a token from before the password change";
  bob = token_of(login("bob", "bob-pass-22"));
  ASSERT_EQ(as(bob, "GET", "/api/v2/dags"), 200);
  nlohmann::json users = nlohmann::json::parse(HttpRequest(port, "GET", "/api/v2/users", "",
                                                           {{"Authorization", "Bearer " + admin}}, 20s).body);
  std::string bob_id;
  for (const auto& u : users["users"]) if (u["username"] == "bob") bob_id = u["id"];
  ASSERT_FALSE(bob_id.empty());
  std::this_thread::sleep_for(1100ms);
  ASSERT_EQ(as(admin, "POST", "/api/v2/users/" + bob_id + "/reset-password", R"({"newPassword":"bob-pass-33"})"),
            200);
  EXPECT_EQ(as(bob, "GET", "/api/v2/dags"), 401) << "a token from before an admin's reset";
  bob = token_of(login("bob", "bob-pass-33"));
  ASSERT_EQ(as(bob, "GET", "/api/v2/dags"), 200);
  ASSERT_EQ(as(admin, "DELETE", "/api/v2/users/" + bob_id), 204);
  EXPECT_EQ(as(bob, "GET", "/api/v2/dags"), 401) << "a deleted user's token";

  // A key made by an admin who is then deleted stays valid, as on 1.30.2
  // (keys are the installation's; revoke them on the API keys page).
  ASSERT_EQ(as(admin, "POST", "/api/v2/users", R"({"username":"ann","password":"ann-pass-111","role":"admin"})"),
            201);
  HttpReply ann_login = login("ann", "ann-pass-111");
  const std::string ann = token_of(ann_login);
  const std::string ann_id = nlohmann::json::parse(ann_login.body)["user"]["id"];
  HttpReply made = HttpRequest(port, "POST", "/api/v2/api-keys", R"({"name":"ann-ci","role":"viewer"})",
                               {{"Authorization", "Bearer " + ann}}, 20s);
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string key = nlohmann::json::parse(made.body).value("key", "");
  ASSERT_EQ(as(admin, "DELETE", "/api/v2/users/" + ann_id), 204);
  EXPECT_EQ(as(ann, "GET", "/api/v2/dags"), 401) << "the deleted admin's session";
  EXPECT_EQ(as(key, "GET", "/api/v2/dags"), 200) << "the key it made (1.30.2 keeps it too)";

  // Cross-site requests: a form post to the login and a write from another
  // origin are refused before any handler, whatever the credentials.
  HttpReply form = HttpRequest(port, "POST", "/api/v2/auth/login", "username=admin&password=admin-pass-1",
                               {{"Content-Type", "application/x-www-form-urlencoded"}}, 20s);
  EXPECT_EQ(form.status, 415) << form.body;
  HttpReply plain = HttpRequest(port, "POST", "/api/v2/auth/login", R"({"username":"admin","password":"admin-pass-1"})",
                                {{"Content-Type", "text/plain"}}, 20s);
  EXPECT_EQ(plain.status, 415) << plain.body;
  HttpReply foreign = HttpRequest(port, "POST", "/api/v2/auth/login",
                                  R"({"username":"admin","password":"admin-pass-1"})",
                                  {{"Origin", "http://evil.example"}}, 20s);
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_EQ(as(admin, "POST", "/api/v2/dags", R"({"name":"csrf"})", {{"Origin", "http://evil.example"}}), 403);
  EXPECT_FALSE(std::filesystem::exists(home.dags_dir() + "/csrf.yaml"));
  EXPECT_EQ(as(admin, "POST", "/api/v2/dags", R"({"name":"same-site"})"), 201) << "control";

  // Brute force: 10 failures in a minute, then 429 even for the right password.
  int refused = 0;
  for (int i = 0; i < 10; ++i) refused += login("admin", "guess-" + std::to_string(i)).status == 401;
  EXPECT_EQ(refused, 10);
  HttpReply locked = login("admin", "admin-pass-1");
  EXPECT_EQ(locked.status, 429) << locked.body;
  EXPECT_EQ(locked.headers["retry-after"], "60");
  EXPECT_EQ(as(admin, "GET", "/api/v2/dags"), 200) << "a signed-in session is not locked out";
}

}  // namespace
}  // namespace dagu::testing
