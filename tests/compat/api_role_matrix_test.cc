// Role x operation matrix against Dagu 1.30.2 (issue 29): every /api/v2
// operation of 1.30.2's OpenAPI document (67) and ours, sent as each role's
// session token (admin, manager, operator, viewer), as an API key of each
// role, and with no credentials, to `dagu server` of both binaries on copies
// of one home in builtin mode. Each answer is classed as 401, 403 or
// "allowed" (anything else: the handler ran, e.g. 404 for the missing DAG),
// and the classes must be the same per cell.
//
// Targets are names that do not exist (no-such-dag, no-such-run, ...) and
// bodies are JSON objects the handlers refuse after the role check, so an
// allowed request changes nothing and the cells do not depend on their order.
// Users and keys are written into the homes with bcrypt cost 4 (1.30.2 checks
// every key's hash on each use), and session tokens are signed here with the
// shared secret. DAGU_ROLE_MATRIX_OUT=<file> writes the matrix as markdown
// (docs/web.md cites it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "auth/api_key_store.h"
#include "auth/record_dir.h"
#include "auth/role.h"
#include "auth/secret_hash.h"
#include "auth/token_signer.h"
#include "auth/user_store.h"
#include "peer.h"
#include "support/http_client.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kSecret = "matrix-secret-0123456789abcdef";

struct Op {
  const char* method;
  const char* path;  // under /api/v2
  const char* body;  // nullptr: no body and no Content-Type
};

// 1.30.2's api/v2/api.yaml, in its order (67 operations).
const Op kOps[] = {
    {"GET", "/health", nullptr},
    {"POST", "/auth/login", R"({"username":"nobody","password":"wrong-pass-1"})"},
    {"GET", "/auth/me", nullptr},
    {"POST", "/auth/change-password", R"({"currentPassword":"wrong-pass-1","newPassword":"new-pass-123"})"},
    {"GET", "/users", nullptr},
    {"POST", "/users", "{}"},
    {"GET", "/users/no-such-user", nullptr},
    {"PATCH", "/users/no-such-user", "{}"},
    {"DELETE", "/users/no-such-user", nullptr},
    {"POST", "/users/no-such-user/reset-password", R"({"newPassword":"new-pass-123"})"},
    {"GET", "/api-keys", nullptr},
    {"POST", "/api-keys", "{}"},
    {"GET", "/api-keys/no-such-key", nullptr},
    {"PATCH", "/api-keys/no-such-key", "{}"},
    {"DELETE", "/api-keys/no-such-key", nullptr},
    {"GET", "/workers", nullptr},
    {"GET", "/dags", nullptr},
    {"POST", "/dags", "{}"},
    {"POST", "/dags/validate", R"({"spec":"steps:\n  - command: echo hi\n"})"},
    {"GET", "/dags/no-such-dag", nullptr},
    {"DELETE", "/dags/no-such-dag", nullptr},
    {"POST", "/dags/no-such-dag/start", "{}"},
    {"POST", "/dags/no-such-dag/enqueue", "{}"},
    {"GET", "/dags/no-such-dag/dag-runs", nullptr},
    {"GET", "/dags/no-such-dag/dag-runs/no-such-run", nullptr},
    {"GET", "/dags/no-such-dag/spec", nullptr},
    {"PUT", "/dags/no-such-dag/spec", R"({"spec":"steps:\n  - command: echo hi\n"})"},
    {"POST", "/dags/no-such-dag/suspend", R"({"suspend":true})"},
    {"POST", "/dags/no-such-dag/rename", R"({"newFileName":"no-such-dag-2"})"},
    {"POST", "/dags/no-such-dag/stop-all", nullptr},
    {"GET", "/dags/search?q=zzz", nullptr},
    {"GET", "/dags/tags", nullptr},
    {"GET", "/dag-runs", nullptr},
    {"POST", "/dag-runs", "{}"},
    {"POST", "/dag-runs/enqueue", "{}"},
    {"GET", "/dag-runs/no-such-dag", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run/spec", nullptr},
    {"POST", "/dag-runs/no-such-dag/no-such-run/reschedule", "{}"},
    {"GET", "/dag-runs/no-such-dag/no-such-run/sub-dag-runs", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run/dequeue", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run/log", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run/outputs", nullptr},
    {"POST", "/dag-runs/no-such-dag/no-such-run/retry", R"({"dagRunId":"no-such-run"})"},
    {"POST", "/dag-runs/no-such-dag/no-such-run/stop", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run/steps/s1/log", nullptr},
    {"PATCH", "/dag-runs/no-such-dag/no-such-run/steps/s1/status", R"({"status":4})"},
    {"POST", "/dag-runs/no-such-dag/no-such-run/steps/s1/approve", "{}"},
    {"POST", "/dag-runs/no-such-dag/no-such-run/steps/s1/reject", "{}"},
    {"GET", "/dag-runs/no-such-dag/no-such-run/sub-dag-runs/no-such-sub", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run/sub-dag-runs/no-such-sub/log", nullptr},
    {"GET", "/dag-runs/no-such-dag/no-such-run/sub-dag-runs/no-such-sub/steps/s1/log", nullptr},
    {"PATCH", "/dag-runs/no-such-dag/no-such-run/sub-dag-runs/no-such-sub/steps/s1/status", R"({"status":4})"},
    {"POST", "/dag-runs/no-such-dag/no-such-run/sub-dag-runs/no-such-sub/steps/s1/approve", "{}"},
    {"POST", "/dag-runs/no-such-dag/no-such-run/sub-dag-runs/no-such-sub/steps/s1/reject", "{}"},
    {"GET", "/queues", nullptr},
    {"GET", "/services/resources/history", nullptr},
    {"GET", "/services/scheduler", nullptr},
    {"GET", "/services/coordinator", nullptr},
    {"GET", "/metrics", nullptr},
    {"POST", "/webhooks/no-such-dag", "{}"},
    {"GET", "/webhooks", nullptr},
    {"GET", "/dags/no-such-dag/webhook", nullptr},
    {"POST", "/dags/no-such-dag/webhook", nullptr},
    {"DELETE", "/dags/no-such-dag/webhook", nullptr},
    {"POST", "/dags/no-such-dag/webhook/regenerate", nullptr},
    {"POST", "/dags/no-such-dag/webhook/toggle", R"({"enabled":true})"},
};

// Ours only (docs/web.md "Live updates"): its answer is recorded, not compared.
const Op kOursOnly[] = {
    {"GET", "/events", nullptr},
};

const char* const kColumns[] = {"admin", "manager", "operator", "viewer", "key:admin",
                                "key:manager", "key:operator", "key:viewer", "none"};
constexpr int kNumColumns = 9;
const auth::Role kRoles[] = {auth::Role::kAdmin, auth::Role::kManager, auth::Role::kOperator, auth::Role::kViewer};

// "401", "403", "ok" (the handler ran), or "no answer".
std::string ClassOf(int status) {
  if (status == 401) return "401";
  if (status == 403) return "403";
  if (status == 0) return "no answer";
  return "ok";
}

struct Server {
  std::string home;
  std::unique_ptr<Subprocess> proc;
  int port = 0;
};

std::string StartServer(const std::string& binary, Server* s, const std::string& user_home, const std::string& log) {
  s->port = FreePort();
  std::map<std::string, std::string> env = {
      {"DAGU_HOME", s->home}, {"HOME", user_home}, {"TZ", "UTC"}, {"SHELL", "/bin/sh"},
      {"DAGU_AUTH_MODE", "builtin"}, {"DAGU_AUTH_TOKEN_SECRET", kSecret},
      {"DAGU_AUTH_ADMIN_USERNAME", "admin"}, {"DAGU_AUTH_ADMIN_PASSWORD", "admin-pass-1"},
      {"DAGU_SKIP_EXAMPLES", "true"}};
  for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                           "DAGU_BASICAUTH_USERNAME", "DAGU_BASICAUTH_PASSWORD", "DAGU_AUTHTOKEN",
                           "DAGU_CERT_FILE", "DAGU_KEY_FILE", "DAGU_BASE_PATH", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
                           "DAGU_LOG_DIR", "DAGU_AUTH_TOKEN", "DAGU_AUTH_BASIC_USERNAME", "DAGU_AUTH_BASIC_PASSWORD"}) {
    env[name] = "";
  }
  s->proc = std::make_unique<Subprocess>();
  if (!s->proc->Start({binary, "server", "--host", "127.0.0.1", "--port", std::to_string(s->port)}, env, log, "",
                      s->home)) {
    return "cannot start " + binary;
  }
  if (!PollUntil([&] { return HttpRequest(s->port, "GET", "/api/v2/health", "", {}, 1s).status == 200; }, 30s,
                 100ms)) {
    return binary + " did not answer /api/v2/health in 30 s:\n" + s->proc->Output();
  }
  return "";
}

int Send(const Server& s, const Op& op, const std::string& bearer, std::chrono::milliseconds timeout) {
  std::map<std::string, std::string> h = {{"Host", "127.0.0.1:" + std::to_string(s.port)}};
  if (!bearer.empty()) h["Authorization"] = "Bearer " + bearer;
  if (op.body == nullptr) h["Content-Type"] = "";  // none at all
  return HttpRequest(s.port, op.method, std::string("/api/v2") + op.path, op.body ? op.body : "", h, timeout).status;
}

TEST(ApiDiffTest, RoleByOperationMatrixAsDagu1302) {
  const Peer& peer = GetPeer();
  if (peer.binary.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << peer.why_not;

  // One home with a user and an API key of each role, copied for each binary.
  TempDir tmp;
  const std::string seed = tmp.Sub("seed");
  fs::create_directories(seed + "/dags");
  auth::UserStore users(PosixFileSystem(), seed + "/data/users");
  auth::ApiKeyStore keys(PosixFileSystem(), seed + "/data/apikeys");
  ASSERT_TRUE(users.Init().ok());
  ASSERT_TRUE(keys.Init().ok());
  const WallTime now = std::chrono::system_clock::now();
  const WallTime before = now - std::chrono::minutes(5);  // tokens are issued after the records' last change
  std::string credentials[kNumColumns];
  for (int i = 0; i < 4; ++i) {
    const std::string name = std::string(auth::RoleName(kRoles[i]));
    auth::User u{auth::NewRecordId().value(), name, auth::HashSecret(name + "-pass-1", 4).value(), kRoles[i],
                 before, before};
    ASSERT_TRUE(users.Create(u).ok());
    credentials[i] = auth::TokenSigner(kSecret, std::chrono::seconds(3600))
                         .Issue(u.id, u.username, u.role, now)
                         .value()
                         .token;
    auth::GeneratedApiKey gen = auth::GenerateApiKey(4).value();
    auth::ApiKey k{auth::NewRecordId().value(), "key-" + name, "", kRoles[i], gen.key_hash, gen.key_prefix,
                   before, before, u.id, std::nullopt};
    ASSERT_TRUE(keys.Create(k).ok());
    credentials[4 + i] = gen.full_key;
  }
  Server sides[2];
  const char* labels[2] = {"ours", "1.30.2"};
  const std::string binaries[2] = {DAGU_BINARY, peer.binary};
  for (int i = 0; i < 2; ++i) {
    sides[i].home = tmp.Sub(labels[i]);
    fs::copy(seed, sides[i].home, fs::copy_options::recursive);
    fs::create_directories(tmp.Sub(std::string("user-") + labels[i]));
    std::string err = StartServer(binaries[i], &sides[i], tmp.Sub(std::string("user-") + labels[i]),
                                  tmp.Sub(std::string("server-") + labels[i] + ".log"));
    ASSERT_EQ(err, "");
  }

  std::ostringstream md;
  md << "| operation |";
  for (const char* c : kColumns) md << " " << c << " |";
  md << "\n| --- |";
  for (int c = 0; c < kNumColumns; ++c) md << " --- |";
  md << "\n";
  int cells = 0, same = 0;
  for (const Op& op : kOps) {
    md << "| `" << op.method << " " << op.path << "` |";
    for (int c = 0; c < kNumColumns; ++c) {
      const int ours = Send(sides[0], op, credentials[c], 15s);
      const int theirs = Send(sides[1], op, credentials[c], 15s);
      ++cells;
      const std::string a = ClassOf(ours), b = ClassOf(theirs);
      if (a == b) {
        ++same;
        md << " " << a << " |";
      } else {
        md << " **" << a << " (1.30.2: " << b << ")** |";
        ADD_FAILURE() << op.method << " " << op.path << " as " << kColumns[c] << ": ours " << ours << ", 1.30.2 "
                      << theirs;
      }
    }
    md << "\n";
  }
  for (const Op& op : kOursOnly) {
    md << "| `" << op.method << " " << op.path << "` (ours only) |";
    for (int c = 0; c < kNumColumns; ++c) md << " " << ClassOf(Send(sides[0], op, credentials[c], 2s)) << " |";
    md << "\n";
  }
  md << "\n" << cells << " cells, " << same << " the same as Dagu 1.30.2.\n";
  std::cout << md.str();
  if (const char* out = std::getenv("DAGU_ROLE_MATRIX_OUT")) std::ofstream(out) << md.str();
  for (Server& s : sides) {
    s.proc->Signal(SIGTERM);
    s.proc->Wait(10s);
  }
}

}  // namespace
}  // namespace dagu::testing
