#include "config/secret_env.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "config/config.h"

namespace dagu {
namespace {

constexpr size_t kMaxSecretsBytes = 1 << 20;

Status WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::FromErrno(errno, "writing the credentials to hand over");
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

// Reads the "KEY=VALUE\0" entries written by ReexecWithout from `fd_text`.
Status ReadHandedOver(const char* fd_text, std::map<std::string, std::string>* secrets) {
  char* end = nullptr;
  errno = 0;
  long fd = std::strtol(fd_text, &end, 10);
  if (errno != 0 || end == fd_text || *end != '\0' || fd < 0 || fd > 1 << 20) {
    return Status::InvalidArgument(std::string(kSecretsFdEnv) + " is not a descriptor: \"" + fd_text + "\"");
  }
  const int in = static_cast<int>(fd);
  std::string data;
  char buf[4096];
  Status s;
  if (::lseek(in, 0, SEEK_SET) < 0) s = Status::FromErrno(errno, "reading the handed-over credentials");
  while (s.ok()) {
    ssize_t n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s = Status::FromErrno(errno, "reading the handed-over credentials");
      break;
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > kMaxSecretsBytes) s = Status::InvalidArgument("the handed-over credentials are too large");
  }
  ::close(in);
  DAGU_RETURN_IF_ERROR(s);
  for (size_t at = 0; at < data.size();) {
    size_t nul = data.find('\0', at);
    if (nul == std::string::npos) nul = data.size();
    std::string entry = data.substr(at, nul - at);
    at = nul + 1;
    size_t eq = entry.find('=');
    if (eq == std::string::npos || !IsAuthSecretVariable(std::string_view(entry).substr(0, eq))) continue;
    (*secrets)[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return Status::OK();
}

std::vector<std::string> OwnArguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t at = 0; at < all.size();) {
    size_t nul = all.find('\0', at);
    if (nul == std::string::npos) nul = all.size();
    args.push_back(all.substr(at, nul - at));
    at = nul + 1;
  }
  return args;
}

// Executes this binary again without `secrets` in its environment; returns
// only on failure.
Status ReexecWithout(const std::map<std::string, std::string>& secrets) {
  std::vector<std::string> args = OwnArguments();
  if (args.empty()) return Status::NotSupported("cannot read /proc/self/cmdline");
  int fd = ::memfd_create("dagu-handed-over-credentials", 0);  // inherited by the exec on purpose
  if (fd < 0) return Status::FromErrno(errno, "memfd_create");
  std::string data;
  for (const auto& [k, v] : secrets) data += k + "=" + v + std::string(1, '\0');
  if (Status s = WriteAll(fd, data); !s.ok()) {
    ::close(fd);
    return s;
  }
  std::vector<std::string> env_entries;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    std::string_view name = entry.substr(0, eq == std::string_view::npos ? entry.size() : eq);
    if (IsAuthSecretVariable(name) || name == kSecretsFdEnv) continue;
    env_entries.emplace_back(entry);
  }
  env_entries.push_back(std::string(kSecretsFdEnv) + "=" + std::to_string(fd));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : env_entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  ::execve("/proc/self/exe", argv.data(), envp.data());
  Status failed = Status::FromErrno(errno, "re-executing /proc/self/exe");
  ::close(fd);
  return failed;
}

}  // namespace

Status HandOverAuthSecrets(std::map<std::string, std::string>* secrets, std::string* warning) {
  if (const char* fd_text = std::getenv(kSecretsFdEnv); fd_text != nullptr) {
    std::string text(fd_text);
    ::unsetenv(kSecretsFdEnv);
    return ReadHandedOver(text.c_str(), secrets);
  }
  std::map<std::string, std::string> found;
  for (const auto& [k, v] : ProcessEnvironment()) {
    if (IsAuthSecretVariable(k)) found[k] = v;
  }
  if (found.empty()) return Status::OK();
  Status s = ReexecWithout(found);  // returns only when it failed
  RemoveAuthSecretsFromEnvironment();
  *secrets = std::move(found);
  *warning = "The auth credentials stay readable in /proc/" + std::to_string(::getpid()) +
             "/environ (to runs of the same user): " + s.ToString();
  return Status::OK();
}

}  // namespace dagu
