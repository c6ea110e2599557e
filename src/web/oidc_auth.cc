#include "web/oidc_auth.h"

#include <curl/curl.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "auth/secret_hash.h"
#include "core/base64.h"
#include "core/strings.h"
#include "dynlib/lazy_library.h"
#include "http/http_parse.h"

namespace dagu::web {
namespace {

using Json = nlohmann::json;

constexpr long kProviderTimeoutSeconds = 10;  // 1.30.2's oidcProviderInitTimeout
constexpr long kMaxProviderBody = 1 << 20;
constexpr auto kJwksRefetchInterval = std::chrono::seconds(10);
constexpr long kDefaultTokenCookieSeconds = 60;  // 1.30.2's defaultTokenExpirySecs

bool Base64UrlDecode(std::string_view in, std::string* out) {
  std::string s(in);
  for (char& c : s) {
    if (c == '-') c = '+';
    else if (c == '_') c = '/';
    else if (c == '+' || c == '/' || c == '=') return false;
  }
  while (s.size() % 4 != 0) s.push_back('=');
  return Base64Decode(s, out);
}

// A cookie value: what Go's http.SetCookie sends unchanged stays as it is
// ("/dags?x=1"); '%' and the rest are percent-encoded (CookieDecode inverts).
std::string CookieEncode(std::string_view in) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : in) {
    if (c > 0x20 && c < 0x7f && c != '"' && c != ';' && c != '\\' && c != ',' && c != '%') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string HexOf(const std::string& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// The RSA public key of a JWK, or null.
EVP_PKEY* RsaKeyOf(const Json& jwk) {
  std::string n, e;
  if (!jwk.contains("n") || !jwk["n"].is_string() || !jwk.contains("e") || !jwk["e"].is_string()) return nullptr;
  if (!Base64UrlDecode(jwk["n"].get<std::string>(), &n) || !Base64UrlDecode(jwk["e"].get<std::string>(), &e)) {
    return nullptr;
  }
  BIGNUM* bn_n = BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr);
  BIGNUM* bn_e = BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr);
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  OSSL_PARAM* params = nullptr;
  EVP_PKEY_CTX* ctx = nullptr;
  EVP_PKEY* key = nullptr;
  if (bn_n != nullptr && bn_e != nullptr && bld != nullptr && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) == 1 &&
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e) == 1 &&
      (params = OSSL_PARAM_BLD_to_param(bld)) != nullptr &&
      (ctx = EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr)) != nullptr && EVP_PKEY_fromdata_init(ctx) == 1) {
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = nullptr;
  }
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(bld);
  BN_free(bn_n);
  BN_free(bn_e);
  return key;
}

bool VerifyRs256(EVP_PKEY* key, std::string_view signed_part, const std::string& signature) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  bool ok = md != nullptr && EVP_DigestVerifyInit(md, nullptr, EVP_sha256(), nullptr, key) == 1 &&
            EVP_DigestVerify(md, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
  EVP_MD_CTX_free(md);
  return ok;
}

struct FetchResult {
  long status = 0;
  std::string body;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<std::string*>(user);
  if (out->size() + size * n > static_cast<size_t>(kMaxProviderBody)) return 0;
  out->append(data, size * n);
  return size * n;
}

// One HTTP request to the provider (GET, or POST of a form when `form` is set).
Status Fetch(const std::string& url, const std::vector<std::string>& headers, const std::string* form,
             FetchResult* out) {
  DAGU_RETURN_IF_ERROR(LoadLazyLibrary(LazyLibrary::kCurl));
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Status::IOError("curl_easy_init failed");
  curl_slist* list = nullptr;
  for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, kProviderTimeoutSeconds);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  if (form != nullptr) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, form->c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(form->size()));
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out->body);
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return Status::IOError(std::string(url) + ": " + curl_easy_strerror(rc));
  return Status::OK();
}

Status FetchJson(const std::string& url, const std::vector<std::string>& headers, const std::string* form,
                 Json* out) {
  FetchResult r;
  DAGU_RETURN_IF_ERROR(Fetch(url, headers, form, &r));
  if (r.status != 200) {
    return Status::IOError(url + ": " + std::to_string(r.status) + " " + r.body.substr(0, 200));
  }
  *out = Json::parse(r.body, nullptr, false);
  if (out->is_discarded() || !out->is_object()) return Status::IOError(url + ": the answer is not a JSON object");
  return Status::OK();
}

std::string StringAt(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

void PlainError(http::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(message + "\n", "text/plain; charset=utf-8");
  res.set_header("X-Content-Type-Options", "nosniff");
}

// The path part of an absolute URL ("" when it has none).
std::string PathOfUrl(const std::string& url) {
  size_t scheme = url.find("://");
  size_t start = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (start == std::string::npos) return "";
  size_t end = url.find_first_of("?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

StatusOr<Json> VerifyIdToken(std::string_view raw, const Json& jwks, const std::string& issuer,
                             const std::string& client_id, WallTime now) {
  auto refuse = [](const std::string& why) { return Status::InvalidArgument("oidc: " + why); };
  size_t d1 = raw.find('.');
  size_t d2 = d1 == std::string_view::npos ? d1 : raw.find('.', d1 + 1);
  if (d2 == std::string_view::npos || raw.find('.', d2 + 1) != std::string_view::npos) {
    return refuse("malformed jwt");
  }
  std::string header_text, payload_text, signature;
  if (!Base64UrlDecode(raw.substr(0, d1), &header_text) ||
      !Base64UrlDecode(raw.substr(d1 + 1, d2 - d1 - 1), &payload_text) ||
      !Base64UrlDecode(raw.substr(d2 + 1), &signature)) {
    return refuse("malformed jwt encoding");
  }
  Json header = Json::parse(header_text, nullptr, false);
  Json claims = Json::parse(payload_text, nullptr, false);
  if (!header.is_object() || !claims.is_object()) return refuse("malformed jwt json");
  // Only RS256: `none` and the HMAC algorithms (which would take a public
  // key as their secret) never reach a key.
  if (StringAt(header, "alg") != "RS256") return refuse("unsupported signing algorithm");
  const std::string kid = StringAt(header, "kid");
  bool kid_known = false, verified = false;
  if (jwks.is_object() && jwks.contains("keys") && jwks["keys"].is_array()) {
    for (const Json& k : jwks["keys"]) {
      if (!k.is_object() || StringAt(k, "kty") != "RSA") continue;
      if (!kid.empty() && StringAt(k, "kid") != kid) continue;
      const std::string use = StringAt(k, "use"), alg = StringAt(k, "alg");
      if ((!use.empty() && use != "sig") || (!alg.empty() && alg != "RS256")) continue;
      kid_known = true;
      DAGU_RETURN_IF_ERROR(LoadLazyLibrary(LazyLibrary::kCrypto));
      EVP_PKEY* key = RsaKeyOf(k);
      if (key == nullptr) continue;
      verified = VerifyRs256(key, raw.substr(0, d2), signature);
      EVP_PKEY_free(key);
      if (verified) break;
    }
  }
  if (!kid_known) return Status::NotFound("oidc: no key of the provider's JWKS has kid \"" + kid + "\"");
  if (!verified) return refuse("failed to verify signature");
  if (StringAt(claims, "iss") != issuer) return refuse("id token issued by a different provider");
  bool audience = false;
  if (claims.contains("aud")) {
    const Json& aud = claims["aud"];
    if (aud.is_string()) audience = aud.get<std::string>() == client_id;
    if (aud.is_array()) {
      for (const Json& a : aud) audience = audience || (a.is_string() && a.get<std::string>() == client_id);
    }
  }
  if (!audience) return refuse("expected audience \"" + client_id + "\"");
  if (!claims.contains("exp") || !claims["exp"].is_number()) return refuse("id token has no expiry");
  const double exp = claims["exp"].get<double>();
  const double now_s = std::chrono::duration<double>(now.time_since_epoch()).count();
  if (exp <= now_s) return refuse("token is expired");
  return claims;
}

std::string CookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    size_t semi = header.find(';');
    std::string_view part = header.substr(0, semi);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    size_t eq = part.find('=');
    if (eq != std::string_view::npos && part.substr(0, eq) == name) {
      std::string_view v = part.substr(eq + 1);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      return std::string(v);
    }
    if (semi == std::string_view::npos) break;
    header.remove_prefix(semi + 1);
  }
  return "";
}

OidcAuth::OidcAuth(const AuthConfig& config, const Clock* clock, bool tls)
    : config_(config), clock_(clock), tls_(tls) {
  std::string base = config_.oidc_client_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  redirect_url_ = base + "/oidc-callback";
  callback_path_ = PathOfUrl(redirect_url_);
}

Status OidcAuth::Init() {
  std::string issuer = config_.oidc_issuer;
  while (!issuer.empty() && issuer.back() == '/') issuer.pop_back();
  Json doc;
  Status s = FetchJson(issuer + "/.well-known/openid-configuration", {}, nullptr, &doc);
  if (!s.ok()) return s.WithContext("failed to init OIDC provider");
  if (StringAt(doc, "issuer") != config_.oidc_issuer) {
    return Status::InvalidArgument("failed to init OIDC provider: oidc: issuer did not match the issuer returned by "
                                   "provider, expected \"" + config_.oidc_issuer + "\" got \"" +
                                   StringAt(doc, "issuer") + "\"");
  }
  authorization_endpoint_ = StringAt(doc, "authorization_endpoint");
  token_endpoint_ = StringAt(doc, "token_endpoint");
  userinfo_endpoint_ = StringAt(doc, "userinfo_endpoint");
  jwks_uri_ = StringAt(doc, "jwks_uri");
  if (authorization_endpoint_.empty() || token_endpoint_.empty() || jwks_uri_.empty()) {
    return Status::InvalidArgument("failed to init OIDC provider: the discovery document lacks "
                                   "authorization_endpoint, token_endpoint or jwks_uri");
  }
  return FetchJwks();
}

Status OidcAuth::FetchJwks() {
  Json jwks;
  Status s = FetchJson(jwks_uri_, {}, nullptr, &jwks);
  if (!s.ok()) return s.WithContext("failed to fetch the OIDC provider's keys");
  auto shared = std::make_shared<const Json>(std::move(jwks));
  MutexLock l(&mu_);
  jwks_ = std::move(shared);
  return Status::OK();
}

StatusOr<Json> OidcAuth::Verify(std::string_view raw) {
  std::shared_ptr<const Json> jwks;
  {
    MutexLock l(&mu_);
    jwks = jwks_;
  }
  StatusOr<Json> claims = VerifyIdToken(raw, jwks ? *jwks : Json(), config_.oidc_issuer, config_.oidc_client_id,
                                        clock_->Now());
  if (claims.ok() || !claims.status().IsNotFound()) return claims;
  // An unknown kid: the provider may have rotated its keys. Refetch, at most
  // once per interval (a token with a made-up kid must not make us hammer
  // the provider).
  {
    MutexLock l(&mu_);
    MonoTime now = clock_->Monotonic();
    if (last_refetch_ && now - *last_refetch_ < kJwksRefetchInterval) return claims;
    last_refetch_ = now;
  }
  if (Status s = FetchJwks(); !s.ok()) {
    spdlog::warn("web: oidc: {}", s.ToString());
    return claims;
  }
  {
    MutexLock l(&mu_);
    jwks = jwks_;
  }
  return VerifyIdToken(raw, *jwks, config_.oidc_issuer, config_.oidc_client_id, clock_->Now());
}

std::optional<Principal> OidcAuth::Authenticate(const http::Request& req) {
  std::string raw = CookieValue(req.get_header_value("Cookie"), kOidcTokenCookie);
  if (raw.empty()) return std::nullopt;
  StatusOr<Json> claims = Verify(raw);
  if (!claims.ok()) return std::nullopt;
  const Json& c = claims.value();
  Principal p;
  p.kind = Principal::Kind::kStatic;
  p.user.id = StringAt(c, "sub");
  p.user.username = StringAt(c, "preferred_username");
  if (p.user.username.empty()) p.user.username = StringAt(c, "email");
  if (p.user.username.empty()) p.user.username = p.user.id;
  p.user.role = auth::Role::kAdmin;
  return p;
}

void OidcAuth::SetCookie(const http::Request& req, http::Response& res, const std::string& name,
                         const std::string& value, long max_age) const {
  std::string c = name + "=" + value + "; Path=/";
  c += max_age < 0 ? "; Max-Age=0" : "; Max-Age=" + std::to_string(max_age);
  c += "; HttpOnly";
  const bool secure = tls_ || req.get_header_value("X-Forwarded-Proto") == "https";
  if (secure) c += "; Secure";
  c += "; SameSite=Lax";
  res.set_header("Set-Cookie", c);
}

void OidcAuth::BeginLogin(const http::Request& req, http::Response& res) const {
  StatusOr<std::string> state = auth::RandomBytes(16), nonce = auth::RandomBytes(16);
  if (!state.ok() || !nonce.ok()) return PlainError(res, 500, "failed to create a login state");
  const std::string st = HexOf(state.value()), no = HexOf(nonce.value());
  std::string original = req.path;
  bool first = true;
  for (const auto& [k, v] : req.params) {
    original += (first ? "?" : "&") + QueryEscape(k) + "=" + QueryEscape(v);
    first = false;
  }
  std::string scope;
  for (const std::string& s : config_.oidc_scopes) scope += (scope.empty() ? "" : " ") + s;
  std::string url = authorization_endpoint_ + (authorization_endpoint_.find('?') == std::string::npos ? "?" : "&");
  url += "client_id=" + QueryEscape(config_.oidc_client_id) + "&nonce=" + no +
         "&redirect_uri=" + QueryEscape(redirect_url_) + "&response_type=code";
  if (!scope.empty()) url += "&scope=" + QueryEscape(scope);
  url += "&state=" + st;
  SetCookie(req, res, kOidcStateCookie, st, kOidcTransientCookieSeconds);
  SetCookie(req, res, kOidcNonceCookie, no, kOidcTransientCookieSeconds);
  SetCookie(req, res, kOidcOriginalUrlCookie, CookieEncode(original), kOidcTransientCookieSeconds);
  res.status = 302;
  res.set_header("Location", url);
  res.set_content("<a href=\"" + url + "\">Found</a>.\n\n", "text/html; charset=utf-8");
}

void OidcAuth::Callback(const http::Request& req, http::Response& res) {
  const std::string cookies = req.get_header_value("Cookie");
  const std::string state = CookieValue(cookies, kOidcStateCookie);
  if (state.empty()) return PlainError(res, 400, "state not found");
  const std::string original_enc = CookieValue(cookies, kOidcOriginalUrlCookie);
  if (original_enc.empty()) return PlainError(res, 400, "original url not found");
  if (!auth::ConstantTimeEquals(req.get_param_value("state"), state)) {
    return PlainError(res, 400, "state did not match");
  }
  // The code for tokens (client_secret_basic, as x/oauth2 tries first).
  const std::string form = "code=" + QueryEscape(req.get_param_value("code")) +
                           "&grant_type=authorization_code&redirect_uri=" + QueryEscape(redirect_url_);
  const std::string basic = Base64Encode(QueryEscape(config_.oidc_client_id) + ":" +
                                         QueryEscape(config_.oidc_client_secret));
  Json token;
  Status s = FetchJson(token_endpoint_,
                       {"Authorization: Basic " + basic, "Content-Type: application/x-www-form-urlencoded",
                        "Accept: application/json"},
                       &form, &token);
  if (!s.ok()) return PlainError(res, 500, "Failed to exchange token: " + s.message());
  const std::string access = StringAt(token, "access_token");
  if (access.empty()) return PlainError(res, 500, "Failed to exchange token: server response missing access_token");
  Json userinfo;
  s = userinfo_endpoint_.empty() ? Status::NotFound("oidc: user info endpoint is not supported by this provider")
                                 : FetchJson(userinfo_endpoint_, {"Authorization: Bearer " + access}, nullptr, &userinfo);
  if (!s.ok()) return PlainError(res, 500, "Failed to get userinfo: " + s.message());
  if (!config_.oidc_whitelist.empty()) {
    const std::string email = StringAt(userinfo, "email");
    if (std::find(config_.oidc_whitelist.begin(), config_.oidc_whitelist.end(), email) ==
        config_.oidc_whitelist.end()) {
      return PlainError(res, 403, "No permissions");
    }
  }
  const std::string raw = StringAt(token, "id_token");
  if (raw.empty()) return PlainError(res, 500, "No id_token field in oauth2 token.");
  StatusOr<Json> claims = Verify(raw);
  if (!claims.ok()) return PlainError(res, 500, "Failed to verify ID Token: " + claims.status().message());
  const std::string nonce = CookieValue(cookies, kOidcNonceCookie);
  if (nonce.empty()) return PlainError(res, 400, "nonce not found");
  if (!auth::ConstantTimeEquals(StringAt(claims.value(), "nonce"), nonce)) {
    return PlainError(res, 400, "nonce did not match");
  }
  const double exp = claims.value()["exp"].get<double>();
  long seconds = static_cast<long>(exp - std::chrono::duration<double>(clock_->Now().time_since_epoch()).count());
  if (seconds <= 0) seconds = kDefaultTokenCookieSeconds;
  SetCookie(req, res, kOidcTokenCookie, raw, seconds);
  SetCookie(req, res, kOidcStateCookie, "", -1);
  SetCookie(req, res, kOidcNonceCookie, "", -1);
  SetCookie(req, res, kOidcOriginalUrlCookie, "", -1);
  // Only a path on this server (1.30.2 redirects to whatever the cookie says).
  std::string original = http::PercentDecode(original_enc, false);
  if (original.empty() || original[0] != '/' || original.starts_with("//") || original.find('\\') != std::string::npos) {
    original = "/";
  }
  res.status = 302;
  res.set_header("Location", original);
}

}  // namespace dagu::web
