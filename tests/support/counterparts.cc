#include "support/counterparts.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace dagu::testing {
namespace {

constexpr const char kPython[] = "/usr/bin/python3";

bool Accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

std::string WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::istringstream in(ReadText(path));
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

constexpr const char kSmtpScript[] = R"py(
import json, ssl, sys, time
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult
SMTP.line_length_limit = 10**7
port, record, cert, key, user, password, code = sys.argv[1:8]
class Handler:
    async def handle_DATA(self, server, session, envelope):
        with open(record, 'a') as f:
            f.write(json.dumps({"from": envelope.mail_from, "to": envelope.rcpt_tos,
                                "data": envelope.original_content.decode('utf-8', 'replace'),
                                "helo": session.host_name or "",
                                "auth": getattr(session, "auth_mechanism", "") or "",
                                "tls": session.ssl is not None}) + "\n")
        return '250 OK' if code == '250' else code + ' rejected by the test server'
def authenticator(server, session, envelope, mechanism, auth_data):
    session.auth_mechanism = mechanism
    ok = auth_data.login.decode() == user and auth_data.password.decode() == password
    return AuthResult(success=ok)
kwargs = {}
if cert:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    kwargs["tls_context"] = ctx
if user:
    kwargs["authenticator"] = authenticator
    kwargs["auth_require_tls"] = bool(cert)
    kwargs["auth_required"] = True
c = Controller(Handler(), hostname='127.0.0.1', port=int(port), server_kwargs=kwargs)
c.start()
while True:
    time.sleep(3600)
)py";

constexpr const char kHttpScript[] = R"py(
import gzip, http.server, json, ssl, sys, time
port, record, cert, key = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def handle_one(self):
        n = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(n).decode() if n else ''
        with open(record, 'a') as f:
            f.write(json.dumps({"m": self.command, "p": self.path, "h": dict(self.headers), "b": body}) + "\n")
        extra = {}
        if self.path.endswith('/chat/completions'):
            return self.chat(body)
        if self.path.endswith('/v1/messages'):
            return self.anthropic(body)
        if ':generateContent' in self.path or ':streamGenerateContent' in self.path:
            return self.gemini(body)
        if self.path.startswith('/json'):
            code, ctype, out = 200, 'application/json', b'{"b":[1,2.5,1e21],"a":"x<y>&z","n":null}'
        elif self.path.startswith('/404'):
            code, ctype, out = 404, 'text/plain', b'not here\n'
        elif self.path.startswith('/slow'):
            time.sleep(5); code, ctype, out = 200, 'text/plain', b'slow\n'
        elif self.path.startswith('/text'):
            code, ctype, out = 200, 'text/plain', b'plain text'
        elif self.path.startswith('/gzip'):
            code, ctype, out = 200, 'application/json', gzip.compress(b'{"z":1}')
            extra['Content-Encoding'] = 'gzip'
        else:
            code, ctype, out = 200, 'text/plain', b'hello\n'
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('X-Test', 'v1')
        for k, v in extra.items(): self.send_header(k, v)
        self.send_header('Content-Length', str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def chat(self, body):
        # An OpenAI-compatible chat-completions API: /<mode>/v1/chat/completions.
        mode = self.path.split('/')[1]
        if self.llm_common(mode):
            return
        if mode == 'nochoices':
            return self.reply(200, 'application/json', b'{"choices":[],"usage":{"total_tokens":1}}')
        req = json.loads(body or '{}')
        msgs = req.get('messages') or []
        last = msgs[-1].get('content', '') if msgs else ''
        text = 'reply %d to %s' % (len(msgs), last)
        usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
        if not req.get('stream'):
            out = json.dumps({"id": "c1", "object": "chat.completion", "created": 1, "model": req.get('model'),
                              "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                           "finish_reason": "stop"}], "usage": usage}).encode()
            return self.reply(200, 'application/json', out)
        half = len(text) // 2
        events = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
                  {"choices": [{"index": 0, "delta": {"content": text[:half]}}]},
                  ': a comment line',
                  {"choices": [{"index": 0, "delta": {"content": text[half:]}}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                  {"choices": [], "usage": usage}]
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream')
        self.send_header('Connection', 'close')
        self.end_headers()
        for e in events:
            line = e if isinstance(e, str) else 'data: ' + json.dumps(e)
            self.wfile.write((line + '\n\n').encode())
            self.wfile.flush()
        if mode != 'nodone':
            self.wfile.write(b'data: [DONE]\n\n')
        self.close_connection = True
    def llm_common(self, mode):
        # The error modes shared by every provider's API; True when answered.
        if mode == 'slowchat':
            time.sleep(5)
        if mode in ('err400', 'err401', 'err503'):
            self.reply(int(mode[3:]), 'application/json', b'{"error":{"message":"rejected by the test server"}}')
            return True
        if mode == 'notjson':
            self.reply(200, 'application/json', b'not json')
            return True
        if mode == 'array':
            self.reply(200, 'application/json', b'[1]')
            return True
        return False
    def sse(self, events, end):
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream')
        self.send_header('Connection', 'close')
        self.end_headers()
        for e in events:
            line = e if isinstance(e, str) else 'data: ' + json.dumps(e)
            self.wfile.write((line + end).encode())
            self.wfile.flush()
        self.close_connection = True
    def anthropic(self, body):
        # Anthropic's Messages API: /<mode>/v1/messages.
        mode = self.path.split('/')[1]
        if self.llm_common(mode):
            return
        if mode == 'nochoices':
            return self.reply(200, 'application/json', b'{"content":[],"usage":{"input_tokens":1}}')
        req = json.loads(body or '{}')
        msgs = req.get('messages') or []
        last = msgs[-1].get('content', '') if msgs else ''
        text = 'reply %d to %s' % (len(msgs), last)
        half = len(text) // 2
        if not req.get('stream'):
            out = json.dumps({"id": "msg_1", "type": "message", "role": "assistant", "model": req.get('model'),
                              "content": [{"type": "thinking", "thinking": "hidden"},
                                          {"type": "text", "text": text[:half]}, {"type": "text", "text": text[half:]}],
                              "stop_reason": "end_turn", "usage": {"input_tokens": 7, "output_tokens": 3}}).encode()
            return self.reply(200, 'application/json', out)
        delta = lambda t: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
        events = ['event: message_start',
                  {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                        "usage": {"input_tokens": 7, "output_tokens": 1}}},
                  {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                  {"type": "ping"}, delta(text[:half]),
                  {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "x"}}]
        if mode == 'streamerr':
            events += [{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]
        events += [delta(text[half:]), {"type": "content_block_stop", "index": 0},
                   {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}]
        if mode != 'nodone':
            events += [{"type": "message_stop"}, delta(' after the stop')]
        self.sse(events, '\n\n')
    def gemini(self, body):
        # Gemini's API: /<mode>/.../models/<model>:generateContent or
        # :streamGenerateContent?alt=sse.
        mode = self.path.split('/')[1]
        if self.llm_common(mode):
            return
        if mode == 'nochoices':
            return self.reply(200, 'application/json', b'{"candidates":[]}')
        req = json.loads(body or '{}')
        contents = req.get('contents') or []
        parts = contents[-1].get('parts') or [{}] if contents else [{}]
        text = 'reply %d to %s' % (len(contents), parts[0].get('text', ''))
        half = len(text) // 2
        usage = {"promptTokenCount": 7, "candidatesTokenCount": 3, "totalTokenCount": 10}
        cand = lambda ps, finish: {"content": {"parts": [{"text": p} for p in ps], "role": "model"},
                                   "finishReason": finish, "index": 0}
        if ':streamGenerateContent' not in self.path:
            out = json.dumps({"candidates": [cand([text[:half], text[half:]], "STOP")],
                              "usageMetadata": usage}).encode()
            return self.reply(200, 'application/json', out)
        events = [{"candidates": [cand([text[:half]], "")]},
                  {"candidates": [cand([text[half:]], "UNSPECIFIED")], "usageMetadata": usage}]
        if mode != 'nodone':
            events += [{"candidates": [cand([], "STOP")], "usageMetadata": usage},
                       {"candidates": [cand([' after the stop'], "")]}]
        self.sse(events, '\r\n\r\n')
    def reply(self, code, ctype, out):
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = handle_one
    def log_message(self, *a): pass
    def version_string(self): return "TestServer"
    def date_time_string(self, timestamp=None): return "Thu, 03 Dec 2026 00:00:00 GMT"
s = http.server.ThreadingHTTPServer(('127.0.0.1', int(port)), H)
if cert:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    s.socket = ctx.wrap_socket(s.socket, server_side=True)
s.serve_forever()
)py";

bool StartScript(Subprocess* p, const std::string& dir, const std::string& name, const char* script,
                 std::vector<std::string> args, int port) {
  std::string path = WriteText(dir + "/" + name + ".py", script);
  std::vector<std::string> argv{kPython, path};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!p->Start(argv, {}, dir + "/" + name + ".log")) return false;
  return PollUntil([&] { return Accepts(port); }, std::chrono::milliseconds(15000));
}

}  // namespace

bool RunCommand(const std::string& command_line, std::string* output) {
  std::string cmd = command_line + " 2>&1";
  FILE* f = ::popen(cmd.c_str(), "r");
  if (f == nullptr) return false;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int rc = ::pclose(f);
  if (output != nullptr) *output = out;
  return rc == 0;
}

TestCa::TestCa(const std::string& dir) {
  ca_cert = dir + "/ca.pem";
  server_cert = dir + "/server.pem";
  server_key = dir + "/server.key";
  std::string ext = WriteText(dir + "/ext.cnf", "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  ok_ = RunCommand("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=dagu-test-ca -keyout " + dir +
                   "/ca.key -out " + ca_cert) &&
        RunCommand("openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout " + server_key + " -out " + dir +
                   "/server.csr") &&
        RunCommand("openssl x509 -req -days 2 -in " + dir + "/server.csr -CA " + ca_cert + " -CAkey " + dir +
                   "/ca.key -CAcreateserial -extfile " + ext + " -out " + server_cert);
}

bool SmtpServer::Start(const std::string& dir, const Options& o) {
  port_ = FreePort();
  record_ = dir + "/smtp-messages.jsonl";
  return StartScript(&process_, dir, "smtp-server", kSmtpScript,
                     {std::to_string(port_), record_, o.tls_cert, o.tls_key, o.user, o.password,
                      std::to_string(o.reply_code)},
                     port_);
}

std::vector<SmtpServer::Message> SmtpServer::Messages() const {
  std::vector<Message> out;
  for (const auto& j : ReadJsonLines(record_)) {
    Message m;
    m.from = j.value("from", "");
    m.to = j.value("to", std::vector<std::string>{});
    m.data = j.value("data", "");
    m.helo = j.value("helo", "");
    m.auth = j.value("auth", "");
    m.tls = j.value("tls", false);
    out.push_back(std::move(m));
  }
  return out;
}

bool SmtpServer::WaitFor(size_t n, std::chrono::milliseconds timeout) const {
  return PollUntil([&] { return Messages().size() >= n; }, timeout);
}

bool HttpTestServer::Start(const std::string& dir, const std::string& tls_cert, const std::string& tls_key) {
  port_ = FreePort();
  tls_ = !tls_cert.empty();
  record_ = dir + "/http-requests.jsonl";
  return StartScript(&process_, dir, "http-server", kHttpScript, {std::to_string(port_), record_, tls_cert, tls_key},
                     port_);
}

std::string HttpTestServer::url(const std::string& path) const {
  return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<nlohmann::json> HttpTestServer::Requests() const { return ReadJsonLines(record_); }

bool SshServer::Start(const std::string& dir) {
  port_ = FreePort();
  passwd* pw = ::getpwuid(::getuid());
  user_ = pw != nullptr ? pw->pw_name : "root";
  std::string home = pw != nullptr ? pw->pw_dir : "/root";
  std::string host_key = dir + "/ssh_host_ed25519_key";
  user_key_ = dir + "/id_ed25519";
  known_hosts_ = dir + "/known_hosts";
  std::string auth_keys = dir + "/authorized_keys";
  if (!RunCommand("ssh-keygen -q -t ed25519 -N '' -f " + host_key) ||
      !RunCommand("ssh-keygen -q -t ed25519 -N '' -f " + user_key_) ||
      !RunCommand("cp " + user_key_ + ".pub " + auth_keys + " && chmod 600 " + auth_keys)) {
    return false;
  }
  std::string pub = ReadText(host_key + ".pub");
  WriteText(known_hosts_, "[127.0.0.1]:" + std::to_string(port_) + " " + pub);
  ::mkdir("/run/sshd", 0755);
  std::string config = WriteText(dir + "/sshd_config",
                                 "Port " + std::to_string(port_) + "\nListenAddress 127.0.0.1\nHostKey " + host_key +
                                     "\nAuthorizedKeysFile " + auth_keys +
                                     "\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                                     "PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nPidFile " +
                                     dir + "/sshd.pid\nSubsystem sftp internal-sftp\n");
  (void)home;
  if (!process_.Start({"/usr/sbin/sshd", "-D", "-e", "-f", config}, {}, dir + "/sshd.log")) return false;
  return PollUntil([&] { return Accepts(port_); }, std::chrono::milliseconds(15000));
}

}  // namespace dagu::testing
