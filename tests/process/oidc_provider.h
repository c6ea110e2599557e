// A small OpenID provider for the OIDC process tests: cpp-httplib on a free
// loopback port, a real 2048-bit RSA key (OpenSSL) signing RS256 ID tokens.
// It serves discovery (/.well-known/openid-configuration), /jwks,
// /authorize (checks client_id, redirect_uri and response_type=code, then
// 302 to redirect_uri?code=..&state=..), /token (client_secret_basic; the
// code once; {access_token, token_type, expires_in, id_token}) and /userinfo
// (Bearer access_token: {sub, email, preferred_username}). `knobs` bend what
// it issues, for the attack cases. Test-only code.
#pragma once

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/base64.h"

namespace dagu::testing {

inline std::string B64Url(std::string_view data) {
  std::string s = Base64Encode(data);
  for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

// An RSA key pair with its JWK.
class RsaKey {
 public:
  explicit RsaKey(std::string kid) : kid_(std::move(kid)), key_(EVP_RSA_gen(2048)) {}
  ~RsaKey() { EVP_PKEY_free(key_); }
  RsaKey(const RsaKey&) = delete;
  RsaKey& operator=(const RsaKey&) = delete;

  const std::string& kid() const { return kid_; }
  nlohmann::json Jwk() const {
    return {{"kty", "RSA"}, {"use", "sig"}, {"alg", "RS256"}, {"kid", kid_}, {"n", B64Url(Param(OSSL_PKEY_PARAM_RSA_N))},
            {"e", B64Url(Param(OSSL_PKEY_PARAM_RSA_E))}};
  }
  std::string SignRs256(const std::string& input) const {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    size_t len = 0;
    std::string sig;
    if (EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, key_) == 1 &&
        EVP_DigestSign(md, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1) {
      sig.resize(len);
      EVP_DigestSign(md, reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(input.data()), input.size());
      sig.resize(len);
    }
    EVP_MD_CTX_free(md);
    return sig;
  }
  // A compact JWS of `claims` signed by this key (header kid = `kid` or ours).
  std::string Token(const nlohmann::json& claims, const std::string& kid = "") const {
    nlohmann::json header = {{"alg", "RS256"}, {"kid", kid.empty() ? kid_ : kid}, {"typ", "JWT"}};
    std::string input = B64Url(header.dump()) + "." + B64Url(claims.dump());
    return input + "." + B64Url(SignRs256(input));
  }

 private:
  std::string Param(const char* name) const {
    BIGNUM* bn = nullptr;
    EVP_PKEY_get_bn_param(key_, name, &bn);
    std::string out(static_cast<size_t>(BN_num_bytes(bn)), '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
    BN_free(bn);
    return out;
  }
  std::string kid_;
  EVP_PKEY* key_;
};

class OidcProvider {
 public:
  struct Knobs {
    std::string email = "alice@example.com";
    std::string preferred_username = "alice";
    std::string nonce_override;   // set: the ID token carries this nonce
    std::string issuer_override;  // set: the ID token's iss
    std::string audience_override;
    long exp_offset_seconds = 3600;  // from now
  };

  OidcProvider(std::string client_id, std::string client_secret)
      : client_id_(std::move(client_id)), client_secret_(std::move(client_secret)), key_("key-1") {
    port_ = server_.bind_to_any_port("127.0.0.1");
    issuer_ = "http://127.0.0.1:" + std::to_string(port_);
    server_.Get("/.well-known/openid-configuration", [this](const httplib::Request&, httplib::Response& res) {
      nlohmann::json doc = {{"issuer", issuer_},
                            {"authorization_endpoint", issuer_ + "/authorize"},
                            {"token_endpoint", issuer_ + "/token"},
                            {"userinfo_endpoint", issuer_ + "/userinfo"},
                            {"jwks_uri", issuer_ + "/jwks"},
                            {"response_types_supported", {"code"}},
                            {"subject_types_supported", {"public"}},
                            {"id_token_signing_alg_values_supported", {"RS256"}}};
      res.set_content(doc.dump(), "application/json");
    });
    server_.Get("/jwks", [this](const httplib::Request&, httplib::Response& res) {
      ++jwks_fetches_;
      res.set_content(nlohmann::json{{"keys", {key_.Jwk()}}}.dump(), "application/json");
    });
    server_.Get("/authorize", [this](const httplib::Request& req, httplib::Response& res) {
      if (req.get_param_value("client_id") != client_id_ || req.get_param_value("response_type") != "code" ||
          req.get_param_value("redirect_uri").empty()) {
        res.status = 400;
        res.set_content("bad authorization request", "text/plain");
        return;
      }
      std::lock_guard<std::mutex> l(mu_);
      std::string code = "code-" + std::to_string(++counter_);
      codes_[code] = {req.get_param_value("nonce"), req.get_param_value("redirect_uri")};
      last_scope_ = req.get_param_value("scope");
      res.status = 302;
      res.set_header("Location", req.get_param_value("redirect_uri") + "?code=" + code +
                                     "&state=" + req.get_param_value("state"));
    });
    server_.Post("/token", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string basic = "Basic " + Base64Encode(client_id_ + ":" + client_secret_);
      std::lock_guard<std::mutex> l(mu_);
      auto it = codes_.find(req.get_param_value("code"));
      if (req.get_header_value("Authorization") != basic || it == codes_.end() ||
          req.get_param_value("grant_type") != "authorization_code" ||
          req.get_param_value("redirect_uri") != it->second.redirect_uri) {
        res.status = 400;
        res.set_content(R"({"error":"invalid_grant"})", "application/json");
        return;
      }
      const std::string nonce = it->second.nonce;
      codes_.erase(it);
      std::string access = "access-" + std::to_string(++counter_);
      access_tokens_.insert(access);
      nlohmann::json reply = {{"access_token", access}, {"token_type", "Bearer"}, {"expires_in", 3600},
                              {"id_token", IdTokenLocked(nonce)}};
      res.set_content(reply.dump(), "application/json");
    });
    server_.Get("/userinfo", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> l(mu_);
      std::string auth = req.get_header_value("Authorization");
      if (!auth.starts_with("Bearer ") || access_tokens_.count(auth.substr(7)) == 0) {
        res.status = 401;
        return;
      }
      res.set_content(nlohmann::json{{"sub", "user-1"}, {"email", knobs_.email},
                                     {"preferred_username", knobs_.preferred_username}}
                          .dump(),
                      "application/json");
    });
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~OidcProvider() {
    server_.stop();
    thread_.join();
  }

  const std::string& issuer() const { return issuer_; }
  const RsaKey& key() const { return key_; }
  int jwks_fetches() const { return jwks_fetches_; }
  std::string last_scope() {
    std::lock_guard<std::mutex> l(mu_);
    return last_scope_;
  }
  void SetKnobs(Knobs k) {
    std::lock_guard<std::mutex> l(mu_);
    knobs_ = std::move(k);
  }
  // The claims an ID token for `nonce` would carry now.
  nlohmann::json Claims(const std::string& nonce) {
    std::lock_guard<std::mutex> l(mu_);
    return ClaimsLocked(nonce);
  }

 private:
  struct Code {
    std::string nonce;
    std::string redirect_uri;
  };
  nlohmann::json ClaimsLocked(const std::string& nonce) const {
    const long now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
    return {{"iss", knobs_.issuer_override.empty() ? issuer_ : knobs_.issuer_override},
            {"sub", "user-1"},
            {"aud", knobs_.audience_override.empty() ? client_id_ : knobs_.audience_override},
            {"exp", now + knobs_.exp_offset_seconds},
            {"iat", now},
            {"nonce", knobs_.nonce_override.empty() ? nonce : knobs_.nonce_override},
            {"email", knobs_.email},
            {"preferred_username", knobs_.preferred_username}};
  }
  std::string IdTokenLocked(const std::string& nonce) const { return key_.Token(ClaimsLocked(nonce)); }

  std::string client_id_, client_secret_;
  RsaKey key_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string issuer_;
  std::atomic<int> jwks_fetches_{0};
  std::mutex mu_;
  Knobs knobs_;
  int counter_ = 0;
  std::map<std::string, Code> codes_;
  std::set<std::string> access_tokens_;
  std::string last_scope_;
};

}  // namespace dagu::testing
