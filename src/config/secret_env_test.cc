#include "config/secret_env.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

namespace dagu {
namespace {

// The re-executed side: the entries are read from the descriptor named by
// DAGU_INTERNAL_SECRETS_FD, which is closed and unset; only auth variables
// are taken. (The re-execution itself is tested on the binary:
// tests/process/hygiene_test.cc, CredentialsTest.)
TEST(SecretEnvTest, TheReexecutedProcessReadsTheHandedOverCredentials) {
  int fd = ::memfd_create("secret-env-test", 0);
  ASSERT_GE(fd, 0);
  const std::string data = std::string("DAGU_AUTH_TOKEN=tok=with=equals") + '\0' + "DAGU_BASICAUTH_PASSWORD=pw" + '\0' +
                           "PATH=/not/taken" + '\0';
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(::setenv(kSecretsFdEnv, std::to_string(fd).c_str(), 1), 0);
  std::map<std::string, std::string> secrets;
  std::string warning;
  ASSERT_TRUE(HandOverAuthSecrets(&secrets, &warning).ok());
  EXPECT_EQ(secrets, (std::map<std::string, std::string>{{"DAGU_AUTH_TOKEN", "tok=with=equals"},
                                                         {"DAGU_BASICAUTH_PASSWORD", "pw"}}));
  EXPECT_EQ(warning, "");
  EXPECT_EQ(::getenv(kSecretsFdEnv), nullptr);
  EXPECT_EQ(::fcntl(fd, F_GETFD), -1) << "the descriptor is closed";
}

// A server must not start without the credentials it was given (it would
// serve an open API): an unreadable descriptor is an error.
TEST(SecretEnvTest, AnUnreadableDescriptorIsAnError) {
  for (const char* bad : {"not-a-number", "987654", "-1"}) {
    ASSERT_EQ(::setenv(kSecretsFdEnv, bad, 1), 0);
    std::map<std::string, std::string> secrets;
    std::string warning;
    EXPECT_FALSE(HandOverAuthSecrets(&secrets, &warning).ok()) << bad;
    EXPECT_TRUE(secrets.empty());
    EXPECT_EQ(::getenv(kSecretsFdEnv), nullptr);
  }
}

// Nothing to hand over: nothing happens (no re-execution).
TEST(SecretEnvTest, WithoutCredentialsNothingHappens) {
  ::unsetenv(kSecretsFdEnv);
  RemoveAuthSecretsFromEnvironment();  // else this test binary would execute itself again
  std::map<std::string, std::string> secrets;
  std::string warning;
  ASSERT_TRUE(HandOverAuthSecrets(&secrets, &warning).ok());
  EXPECT_TRUE(secrets.empty());
  EXPECT_EQ(warning, "");
}

}  // namespace
}  // namespace dagu
