#include "executors/ssh_executor.h"

#include <libssh/libssh.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "core/duration.h"
#include "dag/dag.h"
#include "dag/dag_ssh.h"
#include "dynlib/lazy_library.h"
#include "executors/executor_support.h"
#include "executors/ssh_command.h"

namespace dagu {
namespace {

struct SshSettings {
  std::string user, host, port = "22", key, password, known_hosts, shell;
  std::vector<std::string> shell_args;
  bool strict = false;
  long timeout_seconds = 30;
};

bool ReadTimeout(const ExecutorConfig& config, SshSettings* s, std::string* error) {
  std::string t = config.String("timeout");
  if (t.empty()) return true;
  std::chrono::nanoseconds d{0};
  Status st = ParseDuration(t, &d);
  if (!st.ok()) {
    *error = "failed to setup ssh executor: invalid timeout duration \"" + t + "\": " + st.message();
    return false;
  }
  s->timeout_seconds = std::max<long>(1, static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(d).count()));
  return true;
}

// The connection: the step's own config when it has one (it replaces the
// DAG's ssh: whole), else the DAG's ssh:, as 1.30.2 chooses.
bool ReadSettings(const StepInvocation& inv, SshSettings* s, std::string* error) {
  ExecutorConfig config;
  if (!config.Parse(inv, error)) return false;
  auto expand = [&](const std::string& v) { return ExpandConfigString(inv, v); };
  if (!config.json().empty()) {
    s->user = expand(config.String("user"));
    s->host = expand(config.Has("ip") ? config.String("ip") : config.String("host"));
    if (config.Has("port")) s->port = expand(config.String("port"));
    s->key = expand(config.String("key"));
    s->password = expand(config.String("password"));
    s->strict = config.Bool("strictHostKey");
    s->known_hosts = expand(config.String("knownHostFile"));
    DaguCommand shell;
    if (SplitDaguCommand(expand(config.String("shell")), &shell)) {
      s->shell = shell.command;
      s->shell_args = shell.args;
    }
    for (const auto& a : config.StringList("shellArgs")) s->shell_args.push_back(expand(a));
    if (!ReadTimeout(config, s, error)) return false;
  } else if (std::optional<SshDefaults> dag_ssh = inv.dag != nullptr ? DagSshSettings(*inv.dag) : std::nullopt) {
    const SshDefaults& d = *dag_ssh;
    s->user = expand(d.user);
    s->host = expand(d.host);
    s->port = expand(d.port);
    s->key = expand(d.key);
    s->password = expand(d.password);
    s->strict = d.strict_host_key;
    s->known_hosts = expand(d.known_host_file);
    s->shell = expand(d.shell);
    for (const auto& a : d.shell_args) s->shell_args.push_back(expand(a));
  } else {
    *error = "ssh configuration is not found";
    return false;
  }
  if (s->port.empty() || s->port == "0") s->port = "22";
  // The remote shell: the ssh settings', else the step's own shell:, else
  // none (the login shell runs the quoted command line).
  if (s->shell.empty() && inv.step != nullptr && !inv.step->shell.empty()) {
    s->shell = inv.step->shell;
    s->shell_args = inv.step->shell_args;
  }
  if (s->known_hosts.empty()) {
    if (auto home = EnvValue(inv.env, "HOME")) s->known_hosts = *home + "/.ssh/known_hosts";
  } else if (s->known_hosts[0] == '~') {
    if (auto home = EnvValue(inv.env, "HOME")) s->known_hosts = *home + s->known_hosts.substr(1);
  }
  if (!s->key.empty() && s->key[0] == '~') {
    if (auto home = EnvValue(inv.env, "HOME")) s->key = *home + s->key.substr(1);
  }
  return true;
}

class Session {
 public:
  Session() : s_(ssh_new()) {}
  ~Session() {
    if (s_ != nullptr) {
      if (ssh_is_connected(s_)) ssh_disconnect(s_);
      ssh_free(s_);
    }
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ssh_session get() const { return s_; }

 private:
  ssh_session s_;
};

std::string SshError(ssh_session s) { return ssh_get_error(s); }

bool SettingsFromStep(const StepInvocation& inv) {
  ExecutorConfig config;
  std::string ignored;
  return config.Parse(inv, &ignored) && !config.json().empty();
}

// Connects, checks the host key and authenticates; "" or the error.
std::string Connect(Session& session, const SshSettings& c) {
  ssh_session s = session.get();
  if (s == nullptr) return "cannot create an ssh session";
  int port = std::atoi(c.port.c_str());
  long timeout = c.timeout_seconds;
  int no = 0;
  ssh_options_set(s, SSH_OPTIONS_HOST, c.host.c_str());
  ssh_options_set(s, SSH_OPTIONS_PORT, &port);
  if (!c.user.empty()) ssh_options_set(s, SSH_OPTIONS_USER, c.user.c_str());
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
  ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);  // ~/.ssh/config plays no part, as in 1.30.2
  if (!c.known_hosts.empty()) ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, c.known_hosts.c_str());
  std::string addr = c.host + ":" + c.port;
  if (ssh_connect(s) != SSH_OK) {
    std::string why = SshError(s);
    if (why.find("Connection refused") != std::string::npos) return "dial tcp " + addr + ": connect: connection refused";
    return "dial tcp " + addr + ": " + why;
  }
  if (c.strict) {
    switch (ssh_session_is_known_server(s)) {
      case SSH_KNOWN_HOSTS_OK: break;
      case SSH_KNOWN_HOSTS_CHANGED:
      case SSH_KNOWN_HOSTS_OTHER: return "ssh: handshake failed: knownhosts: key mismatch";
      default: return "ssh: handshake failed: knownhosts: key is unknown";
    }
  }
  if (!c.key.empty()) {
    ssh_key key = nullptr;
    if (ssh_pki_import_privkey_file(c.key.c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK) {
      return "failed to read the private key " + c.key;
    }
    int rc = ssh_userauth_publickey(s, nullptr, key);
    ssh_key_free(key);
    if (rc != SSH_AUTH_SUCCESS) {
      return "ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported "
             "methods remain";
    }
  } else if (ssh_userauth_password(s, nullptr, c.password.c_str()) != SSH_AUTH_SUCCESS) {
    return "ssh: handshake failed: ssh: unable to authenticate, attempted methods [none password], no supported "
           "methods remain";
  }
  return "";
}

// Runs `line` on the remote side in a new channel (the remote user's login
// shell parses it); the exit status, or -1 (with *error set) when it could
// not run or was cancelled.
int RunLine(ssh_session s, const std::string& line, StepOutput* output, const std::atomic<bool>& cancelled,
            std::string* error) {
  ssh_channel ch = ssh_channel_new(s);
  if (ch == nullptr || ssh_channel_open_session(ch) != SSH_OK) {
    if (ch != nullptr) ssh_channel_free(ch);
    *error = "failed to create session: " + SshError(s);
    return -1;
  }
  int status = -1;
  if (ssh_channel_request_exec(ch, line.c_str()) != SSH_OK) {
    *error = SshError(s);
  } else {
    ssh_channel_send_eof(ch);  // no stdin, as 1.30.2's session.Run
    char buf[16384];
    while (!cancelled) {
      bool got = false;
      for (int is_stderr = 0; is_stderr <= 1; ++is_stderr) {
        int n = ssh_channel_read_timeout(ch, buf, sizeof buf, is_stderr, 50);
        if (n > 0) {
          got = true;
          std::string_view data(buf, static_cast<size_t>(n));
          if (is_stderr) output->Err(data);
          else output->Out(data);
        }
      }
      if (!got && (ssh_channel_is_eof(ch) || !ssh_channel_is_open(ch))) break;
    }
    if (!cancelled) {
      status = ssh_channel_get_exit_status(ch);
      if (status < 0) *error = "wait: remote command exited without exit status or exit signal";
      else if (status != 0) *error = "Process exited with status " + std::to_string(status);
    }
  }
  ssh_channel_close(ch);
  ssh_channel_free(ch);
  return status;
}

// The step's commands as 1.30.2 has them: each line as written, split into
// the command word and its arguments (SplitDaguCommand) before anything is
// substituted; each argument then gets the step's variables and
// environment (the command word is kept as is).
std::vector<DaguCommand> StepCommands(const StepInvocation& inv) {
  const std::vector<std::string>& lines = inv.step != nullptr ? inv.step->commands : inv.commands;
  std::vector<DaguCommand> out;
  for (const auto& line : lines) {
    DaguCommand c;
    if (!SplitDaguCommand(line, &c)) continue;
    if (inv.step != nullptr) {
      for (auto& a : c.args) a = ExpandConfigString(inv, a);
    }
    out.push_back(std::move(c));
  }
  return out;
}

StepResult RunRemote(const StepInvocation& inv, const std::atomic<bool>& cancelled) {
  StepResult result;
  result.started = true;
  auto fail = [&](const std::string& error) {
    result.exit_code = result.exit_code == 0 ? 1 : result.exit_code;
    result.error = error;
    return result;
  };
  SshSettings cfg;
  std::string error;
  if (!ReadSettings(inv, &cfg, &error)) return fail(error);
  const std::string home = EnvValue(inv.env, "HOME").value_or("");
  if (std::string why = SshClientError(&cfg.key, cfg.password, cfg.strict, cfg.known_hosts, home); !why.empty()) {
    // 1.30.2 makes the client of a step's own config as the step starts;
    // the DAG's, as the run starts (src/agent checks that one first).
    return fail((SettingsFromStep(inv) ? "failed to setup ssh executor: " : "failed to create ssh client: ") + why);
  }
  const std::vector<DaguCommand> commands = StepCommands(inv);
  if (commands.empty()) return result;  // nothing to run
  if (Status loaded = LoadLazyLibrary(LazyLibrary::kSsh); !loaded.ok()) return fail(loaded.message());
  StepOutput output(inv);
  // As 1.30.2: each command in a session of its own, stopping at the first
  // that fails ("command 2 failed: Process exited with status 3").
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    Session session;
    error = Connect(session, cfg);
    if (!error.empty()) {
      output.Finish(&result);
      return fail("command " + n + ": failed to create session: " + error);
    }
    int status = RunLine(session.get(), RemoteCommandLine(commands[i], cfg.shell, cfg.shell_args), &output,
                         cancelled, &error);
    if (cancelled) {
      output.Finish(&result);
      result.exit_code = -1;
      return result;
    }
    if (status != 0) {
      output.Finish(&result);
      result.exit_code = status > 0 ? status : 1;
      return fail("command " + n + " failed: " + error);
    }
  }
  output.Finish(&result);
  return result;
}

}  // namespace

std::string SshClientError(std::string* key, const std::string& password, bool strict_host_key,
                           const std::string& known_hosts, const std::string& home) {
  auto missing = [](const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) return std::string("open ") + path + ": " + (errno == ENOENT ? "no such file or directory" : std::strerror(errno));
    std::fclose(f);
    return std::string();
  };
  if (key->empty() && password.empty()) {
    for (const char* name : {"id_rsa", "id_ecdsa", "id_ed25519", "id_dsa"}) {
      std::string path = home + "/.ssh/" + name;
      if (::access(path.c_str(), F_OK) == 0) {
        *key = path;
        break;
      }
    }
    if (key->empty()) {
      return "no SSH key specified and no default keys found (~/.ssh/id_rsa, id_ecdsa, id_ed25519, or id_dsa)";
    }
  }
  if (!key->empty()) {
    if (std::string why = missing(*key); !why.empty()) return "failed to load SSH key from " + *key + ": " + why;
  }
  if (strict_host_key) {
    if (std::string why = missing(known_hosts); !why.empty()) return "failed to setup host key verification: " + why;
  }
  return "";
}

std::unique_ptr<RunningStep> SshRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<CallbackStep>(
      [inv = invocation](const std::atomic<bool>& cancelled) { return RunRemote(inv, cancelled); });
}

}  // namespace dagu
