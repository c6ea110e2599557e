// OIDC login (auth.oidc) on `dagu start-all` against a local OpenID provider
// (oidc_provider.h: real RS256 ID tokens): the whole authorization-code login
// with a cookie jar, the API with the oidcToken cookie, and the attacks
// (state and nonce mismatch, tampered, expired, `alg: none`, HS256 keyed
// with the public key, wrong audience and issuer, an e-mail off the
// whitelist, a token signed by another key). The same login on Dagu 1.30.2
// with the same config, side by side, when the peer binary is available.
#include <gtest/gtest.h>

#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <vector>

#include "oidc_provider.h"
#include "support/peer_binary.h"
#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

constexpr const char* kClientId = "dagu-client";
constexpr const char* kClientSecret = "dagu-secret-123";

// One Set-Cookie line, parsed.
struct SetCookie {
  std::string name, value, attributes;  // attributes: everything after the first ';'
};

std::vector<SetCookie> SetCookies(const httplib::Result& r) {
  std::vector<SetCookie> out;
  if (!r) return out;
  auto [b, e] = r->headers.equal_range("Set-Cookie");
  for (auto it = b; it != e; ++it) {
    const std::string& line = it->second;
    size_t eq = line.find('='), semi = line.find(';');
    SetCookie c;
    c.name = line.substr(0, eq);
    c.value = line.substr(eq + 1, semi == std::string::npos ? std::string::npos : semi - eq - 1);
    c.attributes = semi == std::string::npos ? "" : line.substr(semi + 1);
    out.push_back(c);
  }
  return out;
}

// A minimal cookie jar for one host.
struct Jar {
  std::map<std::string, std::string> cookies;
  void Take(const httplib::Result& r) {
    for (const SetCookie& c : SetCookies(r)) {
      if (c.value.empty() || c.attributes.find("Max-Age=0") != std::string::npos) {
        cookies.erase(c.name);
      } else {
        cookies[c.name] = c.value;
      }
    }
  }
  httplib::Headers Headers() const {
    std::string h;
    for (const auto& [k, v] : cookies) h += (h.empty() ? "" : "; ") + k + "=" + v;
    return h.empty() ? httplib::Headers{} : httplib::Headers{{"Cookie", h}};
  }
};

// What a login showed at each step, for comparing two servers.
struct LoginTrace {
  int start_status = 0;          // GET /dags without a cookie
  std::string authorize_url;     // its Location
  std::vector<std::string> start_cookies;  // "name; attributes"
  std::map<std::string, std::string> start_values;
  int callback_status = 0;
  std::string callback_location;
  std::string callback_body;
  std::vector<std::string> callback_cookies;  // names (cleared ones too)
  std::string token_cookie_attributes;
  int api_status = 0;  // GET /api/v2/dags with the jar
  int api_without_cookie = 0;
  Jar jar;
};

std::string PathAndQuery(const std::string& url) {
  size_t scheme = url.find("://");
  size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return slash == std::string::npos ? "/" : url.substr(slash);
}

// The authMode the UI page tells its script (config.js), fetched with `jar`.
std::string PageAuthMode(int port, const Jar& jar) {
  httplib::Client web("127.0.0.1", port);
  auto page = web.Get("/dags", jar.Headers());
  std::smatch m;
  if (!page || !std::regex_search(page->body, m, std::regex("authMode\"?\\s*:\\s*\"([a-z]*)\""))) return "";
  return m[1].str();
}

// The login through `port`, starting at /dags; `tamper_state` replaces the
// state the provider sends back.
LoginTrace Login(int port, OidcProvider* provider, bool tamper_state = false) {
  LoginTrace t;
  httplib::Client web("127.0.0.1", port);
  web.set_read_timeout(10, 0);
  auto start = web.Get("/dags");
  if (!start) return t;
  t.start_status = start->status;
  t.authorize_url = start->get_header_value("Location");
  for (const SetCookie& c : SetCookies(start)) {
    t.start_cookies.push_back(c.name + ";" + c.attributes);
    t.start_values[c.name] = c.value;
  }
  t.jar.Take(start);
  httplib::Client idp(provider->issuer());
  auto authorize = idp.Get(PathAndQuery(t.authorize_url));
  if (!authorize || authorize->status != 302) return t;
  std::string callback = PathAndQuery(authorize->get_header_value("Location"));
  if (tamper_state) callback = std::regex_replace(callback, std::regex("state=[^&]*"), "state=forged");
  auto cb = web.Get(callback, t.jar.Headers());
  if (!cb) return t;
  t.callback_status = cb->status;
  t.callback_location = cb->get_header_value("Location");
  t.callback_body = cb->body;
  for (const SetCookie& c : SetCookies(cb)) {
    t.callback_cookies.push_back(c.name);
    if (c.name == "oidcToken") t.token_cookie_attributes = c.attributes;
  }
  t.jar.Take(cb);
  auto api = web.Get("/api/v2/dags", t.jar.Headers());
  t.api_status = api ? api->status : 0;
  auto bare = web.Get("/api/v2/dags");
  t.api_without_cookie = bare ? bare->status : 0;
  return t;
}

class OidcLoginTest : public WebProcessTest {
 protected:
  OidcLoginTest() : provider_(kClientId, kClientSecret) {}

  // The config both binaries read (1.30.2's camelCase spelling).
  std::string Config(int port, const std::string& extra = "") const {
    return "auth:\n  oidc:\n    clientId: " + std::string(kClientId) + "\n    clientSecret: " + kClientSecret +
           "\n    clientUrl: http://127.0.0.1:" + std::to_string(port) + "\n    issuer: " + provider_.issuer() +
           "\n    scopes: [openid, profile, email]\n" + extra;
  }

  DaguProcess* StartOn(const std::string& binary, const std::string& name, int port) {
    auto p = std::make_unique<DaguProcess>(name, home_.LogPath(name));
    p->web_port = port;
    p->health_port = FreePort();
    auto env = env_;
    env["DAGU_SCHEDULER_PORT"] = std::to_string(p->health_port);
    env["DAGU_COORDINATOR_PORT"] = std::to_string(FreePort());  // 1.30.2's start-all binds one (50055)
    env["DAGU_SKIP_EXAMPLES"] = "true";
    EXPECT_TRUE(p->Start(binary, {"start-all", "--host", "127.0.0.1", "--port", std::to_string(port)}, env));
    procs_.push_back(std::move(p));
    DaguProcess* proc = procs_.back().get();
    EXPECT_TRUE(PollUntil([&] { return proc->Web("/api/v2/health").status == 200; }, 30s, 100ms))
        << proc->Describe(40);
    return proc;
  }

  // A token cookie sent to the API: its status.
  int ApiWithToken(int port, const std::string& token) {
    httplib::Client web("127.0.0.1", port);
    auto r = web.Get("/api/v2/dags", {{"Cookie", "oidcToken=" + token}});
    return r ? r->status : 0;
  }

  OidcProvider provider_;
};

TEST_F(OidcLoginTest, AuthorizationCodeLoginThenTheApiWithTheCookie) {
  home_.WriteDag("hello", "steps:\n  - name: a\n    command: echo hi\n");
  const int port = FreePort();
  WriteConfig(Config(port));
  DaguProcess* ours = StartOn(DAGU_BINARY, "ours", port);

  LoginTrace t = Login(port, &provider_);
  EXPECT_EQ(t.start_status, 302);
  EXPECT_TRUE(t.authorize_url.starts_with(provider_.issuer() + "/authorize?client_id=dagu-client&nonce="))
      << t.authorize_url;
  // (cpp-httplib's client percent-decodes a Location header; the encoded
  // form is compared with 1.30.2's in SameLoginAsDagu1302.)
  EXPECT_NE(t.authorize_url.find("&redirect_uri=http://127.0.0.1:" + std::to_string(port) +
                                 "/oidc-callback&response_type=code&scope=openid+profile+email&state="),
            std::string::npos)
      << t.authorize_url;
  EXPECT_EQ(provider_.last_scope(), "openid+profile+email") << "cpp-httplib's server leaves '+' in a query as it is";
  ASSERT_EQ(t.start_cookies.size(), 3u);
  for (const std::string& c : t.start_cookies) {
    EXPECT_NE(c.find("; Path=/; Max-Age=120; HttpOnly; SameSite=Lax"), std::string::npos) << c;
  }
  EXPECT_EQ(t.start_values["originalURL"], "/dags");
  EXPECT_EQ(t.callback_status, 302) << t.callback_body;
  EXPECT_EQ(t.callback_location, "/dags");
  EXPECT_NE(t.token_cookie_attributes.find("HttpOnly; SameSite=Lax"), std::string::npos);
  EXPECT_EQ(t.jar.cookies.count("oidcToken"), 1u);
  EXPECT_EQ(t.jar.cookies.count("state"), 0u) << "the transient cookies are cleared";
  EXPECT_EQ(t.api_status, 200);
  EXPECT_EQ(t.api_without_cookie, 401);

  httplib::Client web("127.0.0.1", port);
  auto me = web.Get("/api/v2/auth/me", t.jar.Headers());
  ASSERT_TRUE(me);
  EXPECT_EQ(me->status, 200);
  nlohmann::json user = nlohmann::json::parse(me->body, nullptr, false)["user"];
  EXPECT_EQ(user["username"], "alice");
  EXPECT_EQ(user["role"], "admin");
  auto page = web.Get("/dags", t.jar.Headers());
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200) << "a UI page with the cookie is served";
  auto bare = web.Get("/api/v2/dags");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->body, "Authentication required: OIDC token cookie not found\n");
  auto health = web.Get("/api/v2/health");
  EXPECT_EQ(health ? health->status : 0, 200) << "the probe stays public";
  auto v1 = web.Get("/api/v1/dags", t.jar.Headers());
  EXPECT_EQ(v1 ? v1->status : 0, 404) << "as 1.30.2, /api/v1 is off under OIDC";
  (void)ours;
}

TEST_F(OidcLoginTest, AttacksAreRefused) {
  const int port = FreePort();
  WriteConfig(Config(port, "    whitelist: [alice@example.com]\n"));
  StartOn(DAGU_BINARY, "ours", port);

  // CSRF on the login: a state that is not the cookie's.
  LoginTrace forged = Login(port, &provider_, /*tamper_state=*/true);
  EXPECT_EQ(forged.callback_status, 400);
  EXPECT_EQ(forged.callback_body, "state did not match\n");
  EXPECT_EQ(forged.api_status, 401);

  // The provider's token for another login (nonce mismatch).
  OidcProvider::Knobs knobs;
  knobs.nonce_override = "someone-elses-nonce";
  provider_.SetKnobs(knobs);
  LoginTrace replay = Login(port, &provider_);
  EXPECT_EQ(replay.callback_status, 400);
  EXPECT_EQ(replay.callback_body, "nonce did not match\n");
  EXPECT_EQ(replay.api_status, 401);

  // An e-mail off the whitelist.
  knobs = {};
  knobs.email = "mallory@example.com";
  provider_.SetKnobs(knobs);
  LoginTrace mallory = Login(port, &provider_);
  EXPECT_EQ(mallory.callback_status, 403);
  EXPECT_EQ(mallory.callback_body, "No permissions\n");
  EXPECT_EQ(mallory.api_status, 401);

  // An expired ID token from the provider: refused at the callback.
  knobs = {};
  knobs.exp_offset_seconds = -60;
  provider_.SetKnobs(knobs);
  LoginTrace expired = Login(port, &provider_);
  EXPECT_EQ(expired.callback_status, 500);
  EXPECT_NE(expired.callback_body.find("Failed to verify ID Token: oidc: token is expired"), std::string::npos)
      << expired.callback_body;
  EXPECT_EQ(expired.api_status, 401);

  // A good login, then cookies forged from its token.
  provider_.SetKnobs({});
  LoginTrace good = Login(port, &provider_);
  ASSERT_EQ(good.api_status, 200) << good.callback_body;
  const std::string token = good.jar.cookies.at("oidcToken");
  nlohmann::json claims = provider_.Claims("n");
  const std::string header = token.substr(0, token.find('.'));
  const std::string signature = token.substr(token.rfind('.') + 1);

  nlohmann::json evil = claims;
  evil["preferred_username"] = "root";
  EXPECT_EQ(ApiWithToken(port, header + "." + B64Url(evil.dump()) + "." + signature), 401) << "tampered payload";
  EXPECT_EQ(ApiWithToken(port, B64Url(R"({"alg":"none","typ":"JWT"})") + "." + B64Url(claims.dump()) + "."), 401)
      << "alg: none";
  // HS256 keyed with the provider's public modulus (algorithm confusion).
  EXPECT_EQ(ApiWithToken(port, B64Url(R"({"alg":"HS256","kid":"key-1"})") + "." + B64Url(claims.dump()) + ".AAAA"),
            401);
  nlohmann::json wrong_aud = claims;
  wrong_aud["aud"] = "another-client";
  EXPECT_EQ(ApiWithToken(port, provider_.key().Token(wrong_aud)), 401) << "wrong audience";
  nlohmann::json wrong_iss = claims;
  wrong_iss["iss"] = "http://127.0.0.1:1";
  EXPECT_EQ(ApiWithToken(port, provider_.key().Token(wrong_iss)), 401) << "wrong issuer";
  nlohmann::json old = claims;
  old["exp"] = claims["iat"].get<long>() - 10;
  EXPECT_EQ(ApiWithToken(port, provider_.key().Token(old)), 401) << "expired";
  RsaKey other("key-1");
  EXPECT_EQ(ApiWithToken(port, other.Token(claims)), 401) << "another key under the provider's kid";
  const int fetches = provider_.jwks_fetches();
  RsaKey stranger("key-9");
  EXPECT_EQ(ApiWithToken(port, stranger.Token(claims)), 401) << "another key with a kid the provider lacks";
  EXPECT_EQ(provider_.jwks_fetches(), fetches + 1) << "an unknown kid refetches the JWKS once";
  EXPECT_EQ(ApiWithToken(port, stranger.Token(claims)), 401);
  EXPECT_EQ(provider_.jwks_fetches(), fetches + 1) << "and not again within the interval";
  EXPECT_EQ(ApiWithToken(port, provider_.key().Token(claims)), 200) << "the control: a well-formed token passes";

  // A refused cookie is cleared, with 1.30.2's message.
  httplib::Client web("127.0.0.1", port);
  auto r = web.Get("/api/v2/dags", {{"Cookie", "oidcToken=" + other.Token(claims)}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "Authentication failed: invalid or expired OIDC token\n");
  EXPECT_NE(r->get_header_value("Set-Cookie").find("oidcToken=; Path=/; Max-Age=0"), std::string::npos);
}

// A provider that cannot be reached ends the start (1.30.2: exit 1 too).
// What builtin auth with OIDC showed, for comparing two servers.
struct BothTrace {
  int page_without_cookie = 0;        // GET /dags: the provider's redirect
  int api_bare = 0;                   // GET /api/v2/dags, nothing
  std::string api_bare_body;
  int callback = 0;
  int api_cookie = 0;                 // the cookie alone
  std::string me_id, me_username, me_role;  // /auth/me with the cookie
  bool page_says_builtin = false;     // the UI then shows the login form
  int login = 0;                      // POST /auth/login, no cookie
  int api_bearer = 0;                 // the session token alone
  int api_bad_bearer = 0;             // a forged token, no cookie
  int api_bad_bearer_cookie = 0;      // a forged token with the cookie
  int create_viewer = 0;              // POST /users with the admin's token
  int viewer_write = 0;               // POST /dags with a viewer's token
  int viewer_write_cookie = 0;        // the same with the cookie too
  int cookie_write = 0;               // POST /dags with the cookie alone
  int cookie_users = 0;               // GET /users with the cookie alone
  int user_files = 0;                 // files in the users directory
  int change_password_cookie = 0;     // POST /auth/change-password with the cookie alone
};

BothTrace BuiltinAndOidc(int port, OidcProvider* provider, const std::string& users_dir, const std::string& dag_name) {
  BothTrace t;
  httplib::Client web("127.0.0.1", port);
  web.set_read_timeout(20, 0);
  auto page = web.Get("/dags");
  t.page_without_cookie = page ? page->status : 0;
  auto bare = web.Get("/api/v2/dags");
  t.api_bare = bare ? bare->status : 0;
  t.api_bare_body = bare ? bare->body : "";
  LoginTrace l = Login(port, provider);
  t.callback = l.callback_status;
  t.api_cookie = l.api_status;
  const httplib::Headers cookie = l.jar.Headers();
  auto with = [](httplib::Headers h, const std::string& bearer) {
    h.emplace("Authorization", "Bearer " + bearer);
    return h;
  };
  auto status = [](const httplib::Result& r) { return r ? r->status : 0; };
  if (auto me = web.Get("/api/v2/auth/me", cookie); me && me->status == 200) {
    nlohmann::json u = nlohmann::json::parse(me->body, nullptr, false)["user"];
    t.me_id = u.value("id", "");
    t.me_username = u.value("username", "");
    t.me_role = u.value("role", "");
  }
  auto ui = web.Get("/dags", cookie);
  t.page_says_builtin = ui && std::regex_search(ui->body, std::regex("authMode\"?\\s*:\\s*\"builtin\""));
  auto login = web.Post("/api/v2/auth/login", R"({"username":"admin","password":"admin-pass-123"})",
                        "application/json");
  t.login = status(login);
  std::string token;
  if (login && login->status == 200) token = nlohmann::json::parse(login->body, nullptr, false).value("token", "");
  t.api_bearer = status(web.Get("/api/v2/dags", with({}, token)));
  const std::string forged = token.empty() ? "x" : token.substr(0, token.size() - 2) + "AA";
  t.api_bad_bearer = status(web.Get("/api/v2/dags", with({}, forged)));
  t.api_bad_bearer_cookie = status(web.Get("/api/v2/dags", with(cookie, forged)));
  t.create_viewer = status(web.Post("/api/v2/users", with({}, token),
                                    R"({"username":"vera","password":"viewer-pass-1","role":"viewer"})",
                                    "application/json"));
  auto vlogin = web.Post("/api/v2/auth/login", R"({"username":"vera","password":"viewer-pass-1"})",
                         "application/json");
  std::string vtoken;
  if (vlogin && vlogin->status == 200) vtoken = nlohmann::json::parse(vlogin->body, nullptr, false).value("token", "");
  const std::string dag = R"({"name":")" + dag_name + "\"}";  // one per binary: the DAG folder is shared
  t.viewer_write = status(web.Post("/api/v2/dags", with({}, vtoken), dag, "application/json"));
  t.viewer_write_cookie = status(web.Post("/api/v2/dags", with(cookie, vtoken), dag, "application/json"));
  t.cookie_write = status(web.Post("/api/v2/dags", cookie, dag, "application/json"));
  t.cookie_users = status(web.Get("/api/v2/users", cookie));
  t.change_password_cookie = status(web.Post("/api/v2/auth/change-password", cookie,
                                             R"({"currentPassword":"x-pass-123","newPassword":"y-pass-123"})",
                                             "application/json"));
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(users_dir, ec)) t.user_files += e.is_regular_file();
  return t;
}

// auth.mode: builtin with an auth.oidc block, as 1.30.2 serves it: pages
// need the SSO cookie, the API takes a builtin token or key and then the
// cookie (whose user is an admin; no builtin user is made for it).
TEST_F(OidcLoginTest, BuiltinAndOidcTogether) {
  const int port = FreePort();
  auto config = [&](const std::string& users) {
    return Config(port, "  mode: builtin\n  builtin:\n    admin: {username: admin, password: admin-pass-123}\n"
                        "    token: {secret: a-secret-of-32-bytes-for-tests!!}\npaths:\n  usersDir: " + users + "\n");
  };
  const std::string ours_users = home_.Scratch("users-ours");
  WriteConfig(config(ours_users));
  StartOn(DAGU_BINARY, "ours", port);
  BothTrace a = BuiltinAndOidc(port, &provider_, ours_users, "made-by-ours");
  EXPECT_EQ(a.page_without_cookie, 302);
  EXPECT_EQ(a.api_bare, 401);
  EXPECT_EQ(a.api_bare_body, "Authentication required: OIDC token cookie not found\n");
  EXPECT_EQ(a.callback, 302);
  EXPECT_EQ(a.api_cookie, 200);
  EXPECT_EQ(a.me_username, "alice");
  EXPECT_EQ(a.me_role, "admin");
  EXPECT_TRUE(a.page_says_builtin);
  EXPECT_EQ(a.login, 200);
  EXPECT_EQ(a.api_bearer, 200);
  EXPECT_EQ(a.api_bad_bearer, 401);
  EXPECT_EQ(a.api_bad_bearer_cookie, 200) << "a refused token falls through to the cookie, as 1.30.2";
  EXPECT_EQ(a.create_viewer, 201);
  EXPECT_EQ(a.viewer_write, 403);
  EXPECT_EQ(a.viewer_write_cookie, 403) << "a valid token's role decides; the cookie is not consulted";
  EXPECT_EQ(a.cookie_write, 201);
  EXPECT_EQ(a.cookie_users, 200);
  EXPECT_EQ(a.user_files, 2) << "the admin and the viewer; none for the OIDC user";
  EXPECT_EQ(a.change_password_cookie, 400) << "the cookie's user has no password here";

  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  procs_.back()->Signal(SIGTERM);
  procs_.back()->Wait(10s);
  const std::string peer_users = home_.Scratch("users-peer");
  WriteConfig(config(peer_users));
  StartOn(peer, "peer", port);
  BothTrace b = BuiltinAndOidc(port, &provider_, peer_users, "made-by-peer");
  EXPECT_EQ(a.page_without_cookie, b.page_without_cookie);
  EXPECT_EQ(a.api_bare, b.api_bare);
  EXPECT_EQ(a.api_bare_body, b.api_bare_body);
  EXPECT_EQ(a.callback, b.callback);
  EXPECT_EQ(a.api_cookie, b.api_cookie);
  EXPECT_EQ(a.me_id, b.me_id);
  EXPECT_EQ(a.me_username, b.me_username);
  EXPECT_EQ(a.me_role, b.me_role);
  EXPECT_EQ(a.page_says_builtin, b.page_says_builtin);
  EXPECT_EQ(a.login, b.login);
  EXPECT_EQ(a.api_bearer, b.api_bearer);
  EXPECT_EQ(a.api_bad_bearer, b.api_bad_bearer);
  EXPECT_EQ(a.api_bad_bearer_cookie, b.api_bad_bearer_cookie);
  EXPECT_EQ(a.create_viewer, b.create_viewer);
  EXPECT_EQ(a.viewer_write, b.viewer_write);
  EXPECT_EQ(a.viewer_write_cookie, b.viewer_write_cookie);
  EXPECT_EQ(a.cookie_write, b.cookie_write);
  EXPECT_EQ(a.cookie_users, b.cookie_users);
  EXPECT_EQ(a.user_files, b.user_files);
  EXPECT_EQ(b.change_password_cookie, 500) << "1.30.2 looks the cookie's user up among its files (docs/web.md)";
}

TEST_F(OidcLoginTest, AnUnreachableProviderEndsTheStart) {
  const int port = FreePort();
  WriteConfig("auth:\n  oidc:\n    clientId: c\n    clientSecret: s\n    clientUrl: http://127.0.0.1:" +
              std::to_string(port) + "\n    issuer: http://127.0.0.1:1\n");
  DaguProcess* p = Launch("ours", "start-all");
  auto status = p->Wait(20s);
  ASSERT_TRUE(status.has_value()) << p->Describe();
  EXPECT_EQ(*status, 1) << p->Describe();
  EXPECT_NE(p->Output().find("failed to initialize OIDC: failed to init OIDC provider"), std::string::npos)
      << p->Describe();
  EXPECT_EQ(p->Web("/api/v2/dags").status, 0) << "never an open API";
}

TEST_F(OidcLoginTest, SameLoginAsDagu1302) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  const int port = FreePort();
  WriteConfig(Config(port));
  StartOn(DAGU_BINARY, "ours", port);
  LoginTrace a = Login(port, &provider_);
  const std::string ours_mode = PageAuthMode(port, a.jar);
  procs_.back()->Signal(SIGTERM);
  procs_.back()->Wait(10s);
  StartOn(peer, "peer", port);  // the same port: the same redirect URL
  LoginTrace b = Login(port, &provider_);
  // No auth.mode, the OIDC client set: 1.30.2 takes the mode as "oidc".
  EXPECT_EQ(PageAuthMode(port, b.jar), "oidc");
  EXPECT_EQ(ours_mode, "oidc");

  EXPECT_EQ(a.start_status, b.start_status);
  auto strip = [](std::string url) { return std::regex_replace(url, std::regex("(nonce|state)=[0-9A-Za-z]+"), "$1=*"); };
  EXPECT_EQ(strip(a.authorize_url), strip(b.authorize_url));
  EXPECT_EQ(a.start_cookies, b.start_cookies);
  EXPECT_EQ(a.callback_status, b.callback_status) << b.callback_body;
  EXPECT_EQ(a.callback_location, b.callback_location);
  EXPECT_EQ(a.callback_cookies, b.callback_cookies);
  EXPECT_EQ(a.api_status, b.api_status);
  EXPECT_EQ(a.api_without_cookie, b.api_without_cookie);
  EXPECT_EQ(b.api_status, 200);
  // A cookie one issued works on the other (the same provider, the same key).
  EXPECT_EQ(ApiWithToken(port, a.jar.cookies["oidcToken"]), 200) << "ours' cookie on 1.30.2";

  LoginTrace forged = Login(port, &provider_, /*tamper_state=*/true);
  EXPECT_EQ(forged.callback_status, 400);
  EXPECT_EQ(forged.callback_body, "state did not match\n");
}

}  // namespace
}  // namespace dagu::testing
