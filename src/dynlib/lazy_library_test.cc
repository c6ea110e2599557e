#include "dynlib/lazy_library.h"

#include <archive.h>
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <jwt.h>
#include <libssh/libssh.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <string>

extern "C" {
#include <jq.h>
}

namespace dagu {
namespace {

// This test binary, like dagu, is not linked against OpenSSL: libssl and
// libcrypto (its dependency) are mapped only once a stub is called. First in
// the file: when the whole binary runs in one process, libssh maps
// libcrypto, and libcurl both.
TEST(LazyLibraryTest, OpenSslIsMappedOnlyOnceAStubIsCalled) {
  EXPECT_FALSE(LazyLibraryLoaded(LazyLibrary::kSsl));
  EXPECT_FALSE(LazyLibraryLoaded(LazyLibrary::kCrypto));
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  ASSERT_NE(ctx, nullptr);
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kSsl));
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kCrypto));  // libssl's dependency
  // A macro over SSL_CTX_ctrl, and an error through libcrypto's stubs.
  EXPECT_EQ(SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION), 1);
  EXPECT_NE(SSL_CTX_use_certificate_chain_file(ctx, "/nonexistent/cert.pem"), 1);
  unsigned long e = ERR_get_error();
  EXPECT_NE(e, 0u);
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  EXPECT_NE(std::string(buf).find("error:"), std::string::npos) << buf;
  ERR_clear_error();
  SSL_CTX_free(ctx);
}

// This test binary, like dagu, is not linked against libssh: the library is
// mapped only once a stub is called.
TEST(LazyLibraryTest, SshIsMappedOnlyOnceAStubIsCalled) {
  EXPECT_FALSE(LazyLibraryLoaded(LazyLibrary::kSsh));
  ssh_session s = ssh_new();
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kSsh));
  EXPECT_EQ(ssh_is_connected(s), 0);
  ssh_free(s);
}

TEST(LazyLibraryTest, CurlThroughTheStubs) {
  ASSERT_TRUE(LoadLazyLibrary(LazyLibrary::kCurl).ok());
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kCurl));
  // The variadic forwarding: a string, a long and an off_t option, and a
  // pointer out of getinfo.
  CURL* c = curl_easy_init();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_URL, "http://127.0.0.1:9/x"), CURLE_OK);
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 1000L), CURLE_OK);
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(1) << 40), CURLE_OK);
  char* url = nullptr;
  EXPECT_EQ(curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &url), CURLE_OK);
  ASSERT_NE(url, nullptr);
  EXPECT_EQ(std::string(url), "http://127.0.0.1:9/x");
  EXPECT_EQ(std::string(curl_easy_strerror(CURLE_COULDNT_CONNECT)), "Couldn't connect to server");
  curl_easy_cleanup(c);

  CURLU* u = curl_url();
  ASSERT_NE(u, nullptr);
  ASSERT_EQ(curl_url_set(u, CURLUPART_URL, "https://example.org/a", 0), CURLUE_OK);
  char* port = nullptr;
  ASSERT_EQ(curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT), CURLUE_OK);
  EXPECT_EQ(std::string(port), "443");
  curl_free(port);
  curl_url_cleanup(u);
}

TEST(LazyLibraryTest, JqThroughTheStubs) {
  ASSERT_TRUE(LoadLazyLibrary(LazyLibrary::kJq).ok());
  jq_state* jq = jq_init();
  ASSERT_NE(jq, nullptr);
  ASSERT_TRUE(jq_compile(jq, ".a + 1"));
  const std::string input = R"({"a": 41})";
  jq_start(jq, jv_parse_sized(input.data(), static_cast<int>(input.size())), 0);
  jv out = jq_next(jq);
  ASSERT_EQ(jv_get_kind(out), JV_KIND_NUMBER);
  EXPECT_EQ(jv_number_value(out), 42);
  jv_free(out);
  jq_teardown(&jq);
}

// Like dagu, this test binary is not linked against libarchive (nor the
// libxml2 and ICU it brings): mapped once the archive executor calls it.
TEST(LazyLibraryTest, ArchiveIsMappedOnlyOnceAStubIsCalled) {
  EXPECT_FALSE(LazyLibraryLoaded(LazyLibrary::kArchive));
  struct archive* a = archive_write_new();
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kArchive));
  EXPECT_EQ(archive_write_set_format_zip(a), ARCHIVE_OK);
  EXPECT_EQ(archive_write_free(a), ARCHIVE_OK);
}

// Nor against libjwt (builtin auth's tokens), which brings libjansson and
// libcrypto: mapped once a token is signed or checked.
TEST(LazyLibraryTest, JwtIsMappedOnlyOnceAStubIsCalled) {
  EXPECT_FALSE(LazyLibraryLoaded(LazyLibrary::kJwt));
  jwt_t* jwt = nullptr;
  ASSERT_EQ(jwt_new(&jwt), 0);
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kJwt));
  EXPECT_EQ(jwt_add_grant(jwt, "sub", "x"), 0);
  jwt_free(jwt);
}

TEST(LazyLibraryTest, AMissingLibraryIsAnErrorNamingIt) {
  void* handle = nullptr;
  Status s = OpenSharedLibrary("libdagu-no-such-library.so.9", &handle);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(handle, nullptr);
  EXPECT_NE(s.message().find("cannot load libdagu-no-such-library.so.9: "), std::string::npos) << s.message();
}

TEST(LazyLibraryTest, FilesAreTheLibrariesSonames) {
  EXPECT_EQ(std::string(LazyLibraryFile(LazyLibrary::kCurl)).rfind("libcurl.so.", 0), 0u);
  EXPECT_EQ(std::string(LazyLibraryFile(LazyLibrary::kSsh)).rfind("libssh.so.", 0), 0u);
  EXPECT_EQ(std::string(LazyLibraryFile(LazyLibrary::kJq)).rfind("libjq.so.", 0), 0u);
  EXPECT_EQ(std::string(LazyLibraryFile(LazyLibrary::kArchive)).rfind("libarchive.so.", 0), 0u);
  EXPECT_EQ(std::string(LazyLibraryFile(LazyLibrary::kJwt)).rfind("libjwt.so.", 0), 0u);
  EXPECT_EQ(std::string(LazyLibraryFile(LazyLibrary::kSsl)).rfind("libssl.so.", 0), 0u);
  EXPECT_EQ(std::string(LazyLibraryFile(LazyLibrary::kCrypto)).rfind("libcrypto.so.", 0), 0u);
}

}  // namespace
}  // namespace dagu
