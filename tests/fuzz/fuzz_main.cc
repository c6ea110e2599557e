// The driver of the fuzz targets when they are not built with libFuzzer (the
// default build, with GCC): the short fuzz run of the test suite.
//
//   fuzz_<target> [--seconds=N] [--seed=N] [--max-len=N] [--dict=FILE] PATH...
//
// Every PATH (a file, or a directory whose regular files are read) is run
// through LLVMFuzzerTestOneInput once: the seed corpus and the regression
// inputs. Then, for N seconds (default 0), random mutations of those inputs
// are run: bit flips, byte changes, inserts, deletes, duplicated ranges,
// dictionary tokens and splices of two inputs. There is no coverage feedback
// (libFuzzer does that, see scripts/fuzz.sh); every 64th mutant joins the
// pool so the inputs drift away from the seeds.
//
// A crash (a signal, an uncaught exception, a failed check of the target)
// writes the input that caused it to ./crash-<target>-<n> and prints its
// path, so it can be replayed: `fuzz_<target> crash-<target>-<n>`.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

// The input being run, for the crash handler (async-signal-safe access only).
const std::string* g_current = nullptr;
char g_crash_path[512];

void WriteCrashInput() {
  if (g_current == nullptr) return;
  int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  const char* p = g_current->data();
  size_t left = g_current->size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
  ::close(fd);
  const char msg[] = "\nfuzz: crashing input written to ";
  (void)!::write(2, msg, sizeof(msg) - 1);
  (void)!::write(2, g_crash_path, std::strlen(g_crash_path));
  (void)!::write(2, "\n", 1);
}

void OnCrashSignal(int sig) {
  WriteCrashInput();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void OnTerminate() {
  WriteCrashInput();
  std::abort();
}

std::string ReadWhole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// libFuzzer dictionary lines: name="value" or "value", with \\, \" and \xAB escapes.
std::vector<std::string> ReadDictionary(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(ReadWhole(path));
  for (std::string line; std::getline(in, line);) {
    size_t open = line.find('"');
    size_t close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open) continue;
    std::string token;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] == '\\' && i + 1 < close) {
        char c = line[++i];
        if (c == 'x' && i + 2 < close) {
          token += static_cast<char>(std::stoi(line.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          token += c;
        }
      } else {
        token += line[i];
      }
    }
    out.push_back(token);
  }
  return out;
}

class Mutator {
 public:
  Mutator(uint64_t seed, std::vector<std::string> dict, size_t max_len)
      : rng_(seed), dict_(std::move(dict)), max_len_(max_len) {}

  std::string Mutate(const std::vector<std::string>& pool) {
    std::string s = pool[Below(pool.size())];
    int rounds = 1 + static_cast<int>(Below(4));
    for (int r = 0; r < rounds; ++r) MutateOnce(&s, pool);
    if (s.size() > max_len_) s.resize(max_len_);
    return s;
  }

 private:
  size_t Below(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  char AnyByte() {
    static const char kInteresting[] = "\0\n\r\t \"'\\/.-_:,{}[]#*?%&=+$\x7f\xff";
    if (Below(2) == 0) return kInteresting[Below(sizeof(kInteresting) - 1)];
    return static_cast<char>(Below(256));
  }

  void MutateOnce(std::string* s, const std::vector<std::string>& pool) {
    switch (Below(8)) {
      case 0:  // flip a bit
        if (!s->empty()) (*s)[Below(s->size())] ^= static_cast<char>(1u << Below(8));
        break;
      case 1:  // change a byte
        if (!s->empty()) (*s)[Below(s->size())] = AnyByte();
        break;
      case 2:  // insert bytes
        s->insert(Below(s->size() + 1), 1 + Below(4), AnyByte());
        break;
      case 3:  // delete a range
        if (!s->empty()) {
          size_t at = Below(s->size());
          s->erase(at, 1 + Below(std::min<size_t>(16, s->size() - at)));
        }
        break;
      case 4:  // duplicate a range
        if (!s->empty()) {
          size_t at = Below(s->size());
          std::string piece = s->substr(at, 1 + Below(32));
          s->insert(Below(s->size() + 1), piece);
        }
        break;
      case 5:  // a dictionary token
        if (!dict_.empty()) s->insert(Below(s->size() + 1), dict_[Below(dict_.size())]);
        break;
      case 6: {  // splice with another input
        const std::string& other = pool[Below(pool.size())];
        size_t cut = Below(s->size() + 1);
        size_t from = Below(other.size() + 1);
        *s = s->substr(0, cut) + other.substr(from);
        break;
      }
      default:  // an interesting number in ASCII
        static const char* kNumbers[] = {"0", "-1", "1", "59", "60", "24", "31", "32", "99999999999999999999",
                                         "4294967296", "9223372036854775807", "-9223372036854775808", "1e308",
                                         "0.5", "255", "65536"};
        s->insert(Below(s->size() + 1), kNumbers[Below(sizeof(kNumbers) / sizeof(kNumbers[0]))]);
        break;
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::string> dict_;
  size_t max_len_;
};

void RunOne(const std::string& input) {
  g_current = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  g_current = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  double seconds = 0;
  uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  size_t max_len = 4096;
  std::vector<std::string> dict;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) { return a.substr(std::strlen(flag)); };
    if (a.rfind("--seconds=", 0) == 0) seconds = std::stod(value("--seconds="));
    else if (a.rfind("--seed=", 0) == 0) seed = std::stoull(value("--seed="));
    else if (a.rfind("--max-len=", 0) == 0) max_len = std::stoul(value("--max-len="));
    else if (a.rfind("--dict=", 0) == 0) dict = ReadDictionary(value("--dict="));
    else if (a.rfind("--", 0) == 0) {
      std::cerr << "fuzz: unknown flag " << a << "\n";
      return 2;
    } else {
      paths.push_back(a);
    }
  }
  std::string target = std::filesystem::path(argv[0]).filename().string();
  std::snprintf(g_crash_path, sizeof(g_crash_path), "crash-%s-%ld", target.c_str(), static_cast<long>(::getpid()));
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, OnCrashSignal);
  std::set_terminate(OnTerminate);

  std::vector<std::string> pool;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) pool.push_back(ReadWhole(f));
    } else if (std::filesystem::is_regular_file(p, ec)) {
      pool.push_back(ReadWhole(p));
    } else {
      std::cerr << "fuzz: no such input " << p << "\n";
      return 2;
    }
  }
  for (const auto& input : pool) RunOne(input);
  std::cout << "fuzz: " << target << ": " << pool.size() << " input(s) replayed\n";
  if (seconds <= 0) return 0;
  if (pool.empty()) pool.push_back("");

  const size_t seeds = pool.size();
  const size_t kMaxPool = seeds + 4096;
  Mutator mutator(seed, std::move(dict), max_len);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 64; ++i, ++runs) {
      std::string input = mutator.Mutate(pool);
      RunOne(input);
      if (i != 63) continue;
      if (pool.size() < kMaxPool) pool.push_back(std::move(input));
      else pool[seeds + runs % (kMaxPool - seeds)] = std::move(input);
    }
  }
  std::cout << "fuzz: " << target << ": " << runs << " mutated input(s) in " << seconds << " s (seed " << seed
            << "), no crash\n";
  return 0;
}
