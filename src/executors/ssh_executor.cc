#include "executors/ssh_executor.h"

#include <libssh/libssh.h>

#include <chrono>

#include "core/duration.h"
#include "dag/dag.h"
#include "dynlib/lazy_library.h"
#include "executors/executor_support.h"

namespace dagu {
namespace {

std::string ShellQuote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                        std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  return out + "'";
}

// A command line split into words as Dagu 1.30.2 splits a step's command:
// blanks separate words, '...' and "..." group (quotes removed), a
// backslash escapes the next character.
std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) {
        word.push_back(line[++i]);
      } else {
        word.push_back(c);
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word.push_back(line[++i]);
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

struct SshSettings {
  std::string user, host, port = "22", key, password, known_hosts, shell;
  std::vector<std::string> shell_args;
  bool strict = false;
  long timeout_seconds = 30;
};

bool ReadSettings(const StepInvocation& inv, SshSettings* s, std::string* error) {
  ExecutorConfig config;
  if (!config.Parse(inv, error)) return false;
  auto expand = [&](const std::string& v) { return ExpandConfigString(inv, v); };
  s->user = expand(config.String("user"));
  s->host = expand(config.Has("ip") ? config.String("ip") : config.String("host"));
  if (config.Has("port")) s->port = expand(config.String("port"));
  s->key = expand(config.String("key"));
  s->password = expand(config.String("password"));
  s->strict = config.Bool("strictHostKey");
  s->known_hosts = expand(config.String("knownHostFile"));
  s->shell = expand(config.String("shell"));
  for (const auto& a : config.StringList("shellArgs")) s->shell_args.push_back(expand(a));
  if (s->shell.empty() && inv.step != nullptr && !inv.step->shell.empty()) {
    s->shell = inv.step->shell;
    s->shell_args = inv.step->shell_args;
  }
  if (s->shell.empty()) s->shell = "/bin/sh";
  if (std::string t = config.String("timeout"); !t.empty()) {
    std::chrono::nanoseconds d{0};
    Status st = ParseDuration(t, &d);
    if (!st.ok()) {
      *error = "failed to setup ssh executor: invalid timeout duration \"" + t + "\": " + st.message();
      return false;
    }
    s->timeout_seconds = std::max<long>(1, static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(d).count()));
  }
  if (s->host.empty()) {
    *error = "ssh configuration is not found";
    return false;
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
  if (ssh_connect(s) != SSH_OK) return "failed to connect to " + addr + ": " + SshError(s);
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

// Runs `script` on the remote shell in a new channel; the exit status, or
// -1 (with *error set) when it could not run or was cancelled.
int RunScript(ssh_session s, const SshSettings& cfg, const std::string& script, StepOutput* output,
              const std::atomic<bool>& cancelled, std::string* error) {
  ssh_channel ch = ssh_channel_new(s);
  if (ch == nullptr || ssh_channel_open_session(ch) != SSH_OK) {
    if (ch != nullptr) ssh_channel_free(ch);
    *error = "failed to create SSH session: " + SshError(s);
    return -1;
  }
  std::string shell_cmd = cfg.shell;
  for (const auto& a : cfg.shell_args) shell_cmd += " " + a;
  int status = -1;
  if (ssh_channel_request_exec(ch, shell_cmd.c_str()) != SSH_OK) {
    *error = SshError(s);
  } else {
    size_t sent = 0;
    while (sent < script.size()) {
      int n = ssh_channel_write(ch, script.data() + sent, static_cast<uint32_t>(script.size() - sent));
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ssh_channel_send_eof(ch);
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
  if (inv.commands.empty() && inv.script.empty()) return result;  // nothing to run
  std::string dir;
  if (inv.step != nullptr && !inv.step->working_dir.empty()) dir = ExpandConfigString(inv, inv.step->working_dir);
  if (Status loaded = LoadLazyLibrary(LazyLibrary::kSsh); !loaded.ok()) return fail(loaded.message());
  Session session;
  error = Connect(session, cfg);
  if (!error.empty()) return fail(error);
  StepOutput output(inv);
  // As 1.30.2: a script runs as one; each command in a session of its own,
  // its arguments quoted (the remote shell expands only the command word's
  // line as the step wrote it, not inside quoted arguments), stopping at the
  // first that fails ("command 2 failed: Process exited with status 3").
  std::vector<std::string> scripts;
  if (!inv.script.empty()) {
    scripts.push_back(SshScript({}, inv.script, dir));
  } else {
    for (const auto& line : inv.commands) {
      std::vector<std::string> words = SplitWords(line);
      std::string command = words.empty() ? line : words.front();
      for (size_t i = 1; i < words.size(); ++i) command += " " + ShellQuote(words[i]);
      scripts.push_back(SshScript({command}, "", dir));
    }
  }
  for (size_t i = 0; i < scripts.size(); ++i) {
    int status = RunScript(session.get(), cfg, scripts[i], &output, cancelled, &error);
    if (cancelled) {
      output.Finish(&result);
      result.exit_code = -1;
      return result;
    }
    if (status != 0) {
      output.Finish(&result);
      result.exit_code = status > 0 ? status : 1;
      return fail(inv.script.empty() ? "command " + std::to_string(i + 1) + " failed: " + error : error);
    }
  }
  output.Finish(&result);
  return result;
}

}  // namespace

std::string SshScript(const std::vector<std::string>& commands, const std::string& script, const std::string& dir) {
  std::string body;
  if (!dir.empty()) body += "cd " + ShellQuote(dir) + " || return 1\n";
  body += "set -e\n";
  if (!script.empty()) {
    body += script;
    if (script.back() != '\n') body += "\n";
  } else {
    for (const auto& c : commands) body += c + "\n";
  }
  return "__dagu_exec(){\n" + body + "}\n__dagu_exec\n";
}

std::unique_ptr<RunningStep> SshRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<CallbackStep>(
      [inv = invocation](const std::atomic<bool>& cancelled) { return RunRemote(inv, cancelled); });
}

}  // namespace dagu
