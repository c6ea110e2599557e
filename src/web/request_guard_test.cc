#include "web/request_guard.h"

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

http::Request Req(const std::string& method, std::map<std::string, std::string> headers) {
  http::Request r;
  r.method = method;
  for (auto& [k, v] : headers) r.headers.emplace(k, v);
  return r;
}

TEST(RequestGuardTest, HostNames) {
  EXPECT_EQ(HostName("Example.COM:8080"), "example.com");
  EXPECT_EQ(HostName("[::1]:8080"), "::1");
  EXPECT_EQ(HostName("::1"), "::1");
  EXPECT_EQ(HostName("dagu.example.com."), "dagu.example.com");
}

TEST(RequestGuardTest, HostAllowList) {
  GuardConfig c;
  c.configured_host = "0.0.0.0";
  c.machine_hostname = "box1";
  c.allowed_hosts = {"dagu.example.com", ".corp.example"};
  for (const char* ok : {"127.0.0.1:8080", "10.1.2.3", "[::1]:80", "localhost:8080", "app.localhost", "box1:8080",
                         "dagu.example.com", "DAGU.example.com:443", "x.corp.example", "corp.example", ""}) {
    EXPECT_TRUE(HostAllowed(ok, c)) << ok;
  }
  for (const char* bad : {"attacker.example", "example.com", "dagu.example.com.evil.net", "evilcorp.example", "box10"}) {
    EXPECT_FALSE(HostAllowed(bad, c)) << bad;
  }
  c.configured_host = "dagu.internal";
  EXPECT_TRUE(HostAllowed("dagu.internal:8080", c));
  c.allowed_hosts = {"*"};
  EXPECT_TRUE(HostAllowed("anything.example", c));
}

TEST(RequestGuardTest, CrossSiteStateChangesAreRefused) {
  GuardConfig c;
  c.allowed_hosts = {"dagu.example.com"};
  EXPECT_EQ(CrossSiteReason(Req("POST", {{"Host", "127.0.0.1:8080"}}), c), "") << "curl: no Origin";
  EXPECT_EQ(CrossSiteReason(Req("POST", {{"Host", "127.0.0.1:8080"}, {"Origin", "http://127.0.0.1:8080"}}), c), "");
  EXPECT_EQ(CrossSiteReason(Req("POST", {{"Host", "localhost"}, {"Origin", "http://localhost:80"}}), c), "");
  EXPECT_EQ(CrossSiteReason(Req("POST", {{"Host", "h"}, {"Sec-Fetch-Site", "same-origin"}}), c), "");
  EXPECT_EQ(CrossSiteReason(Req("POST", {{"Host", "10.0.0.1:8080"}, {"Origin", "https://dagu.example.com"}}), c), "")
      << "a proxy that rewrites Host, its public name listed";
  EXPECT_NE(CrossSiteReason(Req("POST", {{"Host", "127.0.0.1:8080"}, {"Origin", "http://attacker.example"}}), c), "");
  EXPECT_NE(CrossSiteReason(Req("POST", {{"Host", "127.0.0.1:8080"}, {"Origin", "http://127.0.0.1:9999"}}), c), "");
  EXPECT_NE(CrossSiteReason(Req("POST", {{"Host", "127.0.0.1:8080"}, {"Origin", "null"}}), c), "");
  EXPECT_NE(CrossSiteReason(Req("POST", {{"Host", "h"}, {"Sec-Fetch-Site", "cross-site"}}), c), "");
  EXPECT_NE(CrossSiteReason(Req("POST", {{"Host", "h"}, {"Sec-Fetch-Site", "same-site"}}), c), "");
  c.allowed_hosts = {"*"};
  EXPECT_NE(CrossSiteReason(Req("POST", {{"Host", "h"}, {"Origin", "http://attacker.example"}}), c), "")
      << "\"*\" opens the Host check, never the cross-site one";
}

TEST(RequestGuardTest, MethodsAndContentTypes) {
  EXPECT_FALSE(MayChangeState("GET"));
  EXPECT_FALSE(MayChangeState("HEAD"));
  for (const char* m : {"POST", "PUT", "PATCH", "DELETE", "PROPFIND"}) EXPECT_TRUE(MayChangeState(m)) << m;
  EXPECT_TRUE(IsJsonContentType("application/json"));
  EXPECT_TRUE(IsJsonContentType("Application/JSON; charset=utf-8"));
  for (const char* ct : {"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                         "application/json-seq", "text/plain; a=application/json"}) {
    EXPECT_FALSE(IsJsonContentType(ct)) << ct;
  }
}

}  // namespace
}  // namespace dagu::web
