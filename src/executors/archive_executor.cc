#include "executors/archive_executor.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/duration.h"
#include "core/go_format.h"
#include "core/strings.h"
#include "core/time_format.h"
#include "dynlib/lazy_library.h"
#include "executors/archive_paths.h"
#include "executors/executor_support.h"

namespace dagu {
namespace {

namespace ap = archive_paths;
using Json = nlohmann::ordered_json;

// 1.30.2's error kinds (errors.go); an error carries every kind it wraps.
enum class Kind {
  kConfig,
  kSourceNotFound,
  kDestination,
  kFormatDetection,
  kExtract,
  kCreate,
  kPermission,
  kCorrupted,
  kCanceled,
};

const char* KindText(Kind k) {
  switch (k) {
    case Kind::kConfig: return "archive: configuration error";
    case Kind::kSourceNotFound: return "archive: source not found";
    case Kind::kDestination: return "archive: destination error";
    case Kind::kFormatDetection: return "archive: format detection failed";
    case Kind::kExtract: return "archive: extraction failed";
    case Kind::kCreate: return "archive: creation failed";
    case Kind::kPermission: return "archive: permission denied";
    case Kind::kCorrupted: return "archive: corrupted archive";
    case Kind::kCanceled: return "context canceled";
  }
  return "archive";
}

struct Error {
  std::string text;
  std::vector<Kind> kinds;
};
using Failure = std::optional<Error>;

Error Plain(std::string text) { return Error{std::move(text), {}}; }
// "<kind>: <text>" (fmt.Errorf("%w: ...", kind, ...)).
Error Wrap(Kind k, Error e) {
  e.text = std::string(KindText(k)) + ": " + e.text;
  e.kinds.insert(e.kinds.begin(), k);
  return e;
}
Error Wrap(Kind k, std::string text) { return Wrap(k, Plain(std::move(text))); }
Error Prefix(const std::string& prefix, Error e) {
  e.text = prefix + e.text;
  return e;
}

// executorImpl.exitCodeFor: the first kind of this list the error wraps.
int ExitCodeFor(const Error& e) {
  static const std::pair<Kind, int> kOrder[] = {
      {Kind::kConfig, 2},  {Kind::kSourceNotFound, 3}, {Kind::kDestination, 4}, {Kind::kFormatDetection, 5},
      {Kind::kExtract, 6}, {Kind::kCreate, 7},         {Kind::kPermission, 10}, {Kind::kCorrupted, 12},
      {Kind::kCanceled, 14}};
  for (const auto& [k, code] : kOrder) {
    if (std::find(e.kinds.begin(), e.kinds.end(), k) != e.kinds.end()) return code;
  }
  return 1;
}

// Go's syscall.Errno text: strerror with a lower-case first letter.
std::string ErrnoText(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = AsciiLowerChar(s[0]);
  return s;
}
// *fs.PathError: "open x: no such file or directory".
std::string PathErrorText(const std::string& op, const std::string& path, int err) {
  return op + " " + path + ": " + ErrnoText(err);
}

// The executor's settings (config.go).
struct Config {
  std::string op;
  std::string source, destination, format, password;
  int64_t compression_level = -1;
  bool overwrite = false, preserve_paths = true, dry_run = false, follow_symlinks = false, verify = false,
       continue_on_error = false;
  int64_t strip = 0;
  std::vector<std::string> include, exclude;
};

Failure ParseConfig(const StepInvocation& inv, Config* c) {
  ExecutorConfig config;
  std::string error;
  if (!config.Parse(inv, &error)) return Plain("invalid archive configuration: " + error);
  auto expand = [&](const std::string& s) { return ExpandConfigString(inv, s); };
  c->source = expand(config.String("source"));
  c->destination = expand(config.String("destination"));
  c->format = expand(config.String("format"));
  c->password = expand(config.String("password"));
  // mapstructure's words for a value that is not a whole number.
  auto not_int = [](const std::string& key) {
    return Plain("invalid archive configuration: decoding failed due to the following error(s):\n\n'" + key +
                 "' cannot parse value as 'int': strconv.ParseInt: invalid syntax");
  };
  if (!config.Int("compressionLevel", &c->compression_level, &error)) return not_int("compressionLevel");
  int64_t strip = 0;
  if (!config.Int("stripComponents", &strip, &error)) return not_int("stripComponents");
  c->strip = config.Has("stripComponents") ? strip : 0;
  c->overwrite = config.Bool("overwrite");
  if (config.Has("preservePaths")) c->preserve_paths = config.Bool("preservePaths");
  c->dry_run = config.Bool("dryRun");
  c->follow_symlinks = config.Bool("followSymlinks");
  c->verify = config.Bool("verifyIntegrity");
  c->continue_on_error = config.Bool("continueOnError");
  for (const auto& p : config.StringList("include")) c->include.push_back(expand(p));
  for (const auto& p : config.StringList("exclude")) c->exclude.push_back(expand(p));

  const std::string command = inv.commands.empty() ? "" : std::string(TrimSpace(inv.commands.front()));
  c->op = AsciiLower(command.substr(0, command.find_first_of(" \t")));
  if (c->op.empty()) return Wrap(Kind::kConfig, "command must specify archive operation");
  if (c->op != "extract" && c->op != "create" && c->op != "list") {
    return Wrap(Kind::kConfig, "unsupported archive operation " + GoQuote(c->op));
  }
  if (c->source.empty()) return Wrap(Kind::kConfig, "source is required for " + c->op);
  if (c->op == "create" && c->destination.empty() && !c->dry_run) {
    return Wrap(Kind::kConfig, "destination is required for create");
  }
  if (c->strip < 0) return Wrap(Kind::kConfig, "stripComponents must be >= 0");
  if (!c->password.empty() && c->op == "create") {
    return Wrap(Kind::kConfig, "password is only supported for extract/list operations");
  }
  std::vector<std::string> patterns = c->include;
  patterns.insert(patterns.end(), c->exclude.begin(), c->exclude.end());
  for (const auto& p : patterns) {
    if (!p.empty() && !ap::ValidGlob(p)) return Wrap(Kind::kConfig, "invalid glob pattern " + GoQuote(p));
  }
  return std::nullopt;
}

// A format by 1.30.2's names (formatFromString).
struct Format {
  enum class Container { kNone, kTar, kZip, kSevenZip, kRar };
  Container container = Container::kNone;
  std::string filter;  // "", "gzip", "bzip2", "xz", "zstd", "lz4"
  std::string go_type;  // its Go type, for "format archives.Gz cannot create archives"
};

std::optional<Format> FormatFromString(const std::string& name) {
  using C = Format::Container;
  const std::string n = AsciiLower(name);
  if (n == "zip") return Format{C::kZip, "", "archives.Zip"};
  if (n == "tar") return Format{C::kTar, "", "archives.Tar"};
  if (n == "tar.gz" || n == "tgz") return Format{C::kTar, "gzip", "archives.CompressedArchive"};
  if (n == "tar.bz2" || n == "tbz2" || n == "tbz") return Format{C::kTar, "bzip2", "archives.CompressedArchive"};
  if (n == "tar.xz" || n == "txz") return Format{C::kTar, "xz", "archives.CompressedArchive"};
  if (n == "tar.zst" || n == "tar.zstd") return Format{C::kTar, "zstd", "archives.CompressedArchive"};
  if (n == "gz") return Format{C::kNone, "gzip", "archives.Gz"};
  if (n == "bz2") return Format{C::kNone, "bzip2", "archives.Bz2"};
  if (n == "xz") return Format{C::kNone, "xz", "archives.Xz"};
  if (n == "zst" || n == "zstd") return Format{C::kNone, "zstd", "archives.Zstd"};
  if (n == "lz4") return Format{C::kNone, "lz4", "archives.Lz4"};
  if (n == "7z") return Format{C::kSevenZip, "", "archives.SevenZip"};
  if (n == "rar") return Format{C::kRar, "", "archives.Rar"};
  return std::nullopt;
}

// extensionToFormat.
std::string ExtensionToFormat(const std::string& path) {
  const std::string name = AsciiLower(ap::Base(path));
  auto ends = [&](std::initializer_list<const char*> suffixes) {
    return std::any_of(suffixes.begin(), suffixes.end(), [&](const char* s) { return name.ends_with(s); });
  };
  if (ends({".tar.gz", ".tgz"})) return "tar.gz";
  if (ends({".tar.bz2", ".tbz2", ".tbz"})) return "tar.bz2";
  if (ends({".tar.xz", ".txz"})) return "tar.xz";
  if (ends({".tar.zst", ".tar.zstd"})) return "tar.zst";
  if (ends({".tar"})) return "tar";
  if (ends({".zip"})) return "zip";
  if (ends({".gz"})) return "gz";
  if (ends({".bz2"})) return "bz2";
  if (ends({".xz"})) return "xz";
  if (ends({".zst", ".zstd"})) return "zst";
  if (ends({".lz4"})) return "lz4";
  return "";
}

// Go's fs.FileMode, as the archive's header gives it, and its String().
struct GoMode {
  unsigned perm = 0;  // 0777
  bool dir = false, symlink = false, device = false, char_device = false, pipe = false, socket = false,
       setuid = false, setgid = false, sticky = false;

  static GoMode FromUnix(mode_t m) {
    GoMode g;
    g.perm = m & 0777;
    g.setuid = (m & S_ISUID) != 0;
    g.setgid = (m & S_ISGID) != 0;
    g.sticky = (m & S_ISVTX) != 0;
    switch (m & S_IFMT) {
      case S_IFDIR: g.dir = true; break;
      case S_IFLNK: g.symlink = true; break;
      case S_IFBLK: g.device = true; break;
      case S_IFCHR: g.device = g.char_device = true; break;
      case S_IFIFO: g.pipe = true; break;
      case S_IFSOCK: g.socket = true; break;
      default: break;
    }
    return g;
  }
  bool IsZero() const {
    return perm == 0 && !dir && !symlink && !device && !pipe && !socket && !setuid && !setgid && !sticky;
  }
  std::string String() const {
    std::string s;
    if (dir) s += 'd';
    if (symlink) s += 'L';
    if (device) s += 'D';
    if (pipe) s += 'p';
    if (socket) s += 'S';
    if (setuid) s += 'u';
    if (setgid) s += 'g';
    if (char_device) s += 'c';
    if (sticky) s += 't';
    if (s.empty()) s = "-";
    const char* rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; ++i) s += (perm & (1u << (8 - i))) != 0 ? rwx[i] : '-';
    return s;
  }
};

// One entry read from an archive.
struct Entry {
  std::string name;
  GoMode mode;
  int64_t size = 0;
  time_t mtime = 0;
  std::string link_target;  // symlinks
  bool IsDir() const { return mode.dir; }
};

// An archive opened for reading with libarchive.
class Reader {
 public:
  Reader() = default;
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader() {
    if (a_ != nullptr) archive_read_free(a_);
  }

  // Opens `path` (as the file system sees it) as `format` (null: any format
  // 1.30.2 reads). The error is the format-detection failure, unwrapped.
  Failure Open(const std::string& path, const Format* format, const std::string& password) {
    a_ = archive_read_new();
    if (a_ == nullptr) return Plain("cannot allocate an archive reader");
    archive_read_support_filter_all(a_);
    using C = Format::Container;
    C c = format != nullptr ? format->container : C::kNone;
    if (format == nullptr || c == C::kTar) archive_read_support_format_tar(a_);
    if (format == nullptr || c == C::kZip) archive_read_support_format_zip_seekable(a_);
    if (format == nullptr || c == C::kSevenZip) archive_read_support_format_7zip(a_);
    if (format == nullptr || c == C::kRar) {
      archive_read_support_format_rar(a_);
      archive_read_support_format_rar5(a_);
    }
    if (!password.empty()) archive_read_add_passphrase(a_, password.c_str());
    if (archive_read_open_filename(a_, path.c_str(), 64 * 1024) != ARCHIVE_OK) return Plain(LastError());
    // The first header tells whether libarchive knows the format.
    first_ = archive_read_next_header(a_, &entry_);
    if (first_ == ARCHIVE_FATAL) return Plain(LastError());
    return std::nullopt;
  }

  // An archive with no entries (1.30.2 reads an empty .tar as one, and lists
  // a compressed file that holds no archive as empty).
  void SetEmpty() { empty_ = true; }
  bool empty() const { return empty_; }

  bool IsZip() const {
    return a_ != nullptr && (archive_format(a_) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP;
  }

  // The next entry: true with *e, false at the end or on an error (*error).
  bool Next(Entry* e, Failure* error) {
    if (empty_) return false;
    int rc = first_;
    if (rc == kNotYet) rc = archive_read_next_header(a_, &entry_);
    first_ = kNotYet;
    if (rc == ARCHIVE_EOF) return false;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
      *error = Plain(LastError());
      return false;
    }
    const char* name = archive_entry_pathname(entry_);
    e->name = name != nullptr ? name : "";
    mode_t m = archive_entry_mode(entry_);
    if (archive_entry_hardlink(entry_) != nullptr) m = (m & 07777) | S_IFREG;  // Go: a regular file, no data
    e->mode = GoMode::FromUnix(m);
    if (IsZip() && e->name.ends_with("/")) e->mode.dir = true;
    e->size = archive_entry_size(entry_);
    e->mtime = archive_entry_mtime(entry_);
    const char* link = archive_entry_symlink(entry_);
    e->link_target = link != nullptr ? link : "";
    // A zip stores a link's target as its data: Go's size is the target's length.
    if (IsZip() && e->mode.symlink) e->size = static_cast<int64_t>(e->link_target.size());
    return true;
  }

  // Reads the current entry's data into `sink` (null: discard).
  Failure ReadData(const std::function<Failure(const char*, size_t)>& sink, const std::atomic<bool>& cancelled) {
    char buf[64 * 1024];
    for (;;) {
      if (cancelled) return Plain(KindText(Kind::kCanceled));
      la_ssize_t n = archive_read_data(a_, buf, sizeof buf);
      if (n == 0) return std::nullopt;
      if (n < 0) return Plain(LastError());
      if (sink) {
        if (Failure f = sink(buf, static_cast<size_t>(n))) return f;
      }
    }
  }

 private:
  static constexpr int kNotYet = -1000;
  std::string LastError() const {
    const char* s = archive_error_string(a_);
    return s != nullptr ? s : "unknown libarchive error";
  }
  struct archive* a_ = nullptr;
  struct archive_entry* entry_ = nullptr;
  int first_ = kNotYet;
  bool empty_ = false;
};

// Whether the file starts as a compressed stream of a format 1.30.2 knows
// (a compressed file that holds no archive: it cannot be extracted).
bool LooksCompressed(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char b[6] = {};
  ssize_t n = ::read(fd, b, sizeof b);
  ::close(fd);
  if (n < 4) return false;
  return (b[0] == 0x1f && b[1] == 0x8b) || (b[0] == 'B' && b[1] == 'Z' && b[2] == 'h') ||
         (n >= 6 && b[0] == 0xfd && b[1] == '7' && b[2] == 'z' && b[3] == 'X' && b[4] == 'Z' && b[5] == 0) ||
         (b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) ||
         (b[0] == 0x04 && b[1] == 0x22 && b[2] == 0x4d && b[3] == 0x18);
}

class Operation {
 public:
  Operation(const StepInvocation& inv, Config cfg, StepOutput* out, const std::atomic<bool>& cancelled)
      : cfg_(std::move(cfg)), out_(out), cancelled_(cancelled) {
    base_ = !inv.dag_working_dir.empty() ? inv.dag_working_dir : inv.working_dir;
  }

  Failure Run() {
    start_ = std::chrono::steady_clock::now();
    if (cfg_.op == "extract") return Extract();
    if (cfg_.op == "create") return Create();
    return List();
  }

 private:
  // Where a path as written (relative to the DAG's working directory) is.
  std::string Real(const std::string& p) const {
    if (base_.empty() || (!p.empty() && p.front() == '/')) return p.empty() ? "." : p;
    return p.empty() || p == "." ? base_ : base_ + "/" + p;
  }

  std::string Elapsed() const {
    return FormatDuration(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_));
  }

  void Warn(const std::string& msg) { out_->Err("archive executor warning: " + msg + "\n"); }

  // json.Encoder with two-space indent: HTML-safe strings, invalid UTF-8 replaced.
  void WriteResult(const Json& j) {
    std::string text = j.dump(2, ' ', false, Json::error_handler_t::replace);
    std::string out;
    for (char c : text) {
      if (c == '<') out += "\\u003c";
      else if (c == '>') out += "\\u003e";
      else if (c == '&') out += "\\u0026";
      else out += c;
    }
    out = ReplaceAllText(out, "\xE2\x80\xA8", "\\u2028");
    out = ReplaceAllText(out, "\xE2\x80\xA9", "\\u2029");
    out_->Out(out + "\n");
  }

  static std::string ReplaceAllText(std::string s, const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
  }

  // os.MkdirAll(path, 0755), unless a dry run.
  Failure EnsureDir(const std::string& path) {
    if (cfg_.dry_run) return std::nullopt;
    struct stat st;
    if (::stat(Real(path).c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return std::nullopt;
      return Wrap(Kind::kDestination, PathErrorText("mkdir", path, ENOTDIR));
    }
    std::string parent = ap::Dir(path);
    if (parent != path && parent != "." && parent != "/") {
      if (Failure f = EnsureDir(parent)) return f;
    }
    if (::mkdir(Real(path).c_str(), 0755) != 0 && errno != EEXIST) {
      int err = errno;
      if (err == EACCES || err == EPERM) return Wrap(Kind::kPermission, PathErrorText("mkdir", path, err));
      return Wrap(Kind::kDestination, PathErrorText("mkdir", path, err));
    }
    return std::nullopt;
  }

  // The format of an archive to read (determineFormat), and the reader on it.
  Failure OpenForReading(Reader* reader, bool for_extract) {
    const std::string real = Real(cfg_.source);
    std::optional<Format> format;
    if (!TrimSpace(cfg_.format).empty()) {
      format = FormatFromString(std::string(TrimSpace(cfg_.format)));
      if (!format) return Wrap(Kind::kFormatDetection, "unknown format " + GoQuote(std::string(TrimSpace(cfg_.format))));
      if (format->container == Format::Container::kNone) {
        if (!for_extract) {
          reader->SetEmpty();
          return std::nullopt;
        }
        return Wrap(Kind::kFormatDetection, "format does not support extraction");
      }
    } else {
      struct stat st;
      if (::stat(real.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return Wrap(Kind::kFormatDetection, PathErrorText("read", cfg_.source, EISDIR));
      }
      if (::stat(real.c_str(), &st) == 0 && st.st_size == 0) {
        // Identify matches tar and zip by name alone.
        const std::string name = AsciiLower(ap::Base(cfg_.source));
        if (name.find(".tar") == std::string::npos && name.find(".zip") == std::string::npos) {
          return Wrap(Kind::kFormatDetection, "no formats matched");
        }
        reader->SetEmpty();
        return std::nullopt;
      }
    }
    Failure opened = reader->Open(real, format ? &*format : nullptr, cfg_.password);
    if (opened) {
      if (format) return Wrap(for_extract ? Kind::kExtract : Kind::kCorrupted, *opened);
      if (LooksCompressed(real)) {
        if (!for_extract) {
          reader->SetEmpty();
          return std::nullopt;
        }
        return Wrap(Kind::kFormatDetection, "format does not support extraction");
      }
      return Wrap(Kind::kFormatDetection, "no formats matched");
    }
    return std::nullopt;
  }

  // Reads every entry's data (verifyArchiveReadable); the error unwrapped.
  Failure Verify(const std::string& display, const Reader& opened) {
    if (opened.empty()) return std::nullopt;
    Reader r;
    std::optional<Format> format;
    if (!TrimSpace(cfg_.format).empty()) format = FormatFromString(std::string(TrimSpace(cfg_.format)));
    if (Failure f = r.Open(Real(display), format ? &*format : nullptr, cfg_.password)) return f;
    Entry e;
    Failure error;
    while (r.Next(&e, &error)) {
      if (e.IsDir()) continue;
      if (Failure f = r.ReadData(nullptr, cancelled_)) return f;
    }
    return error;
  }

  Failure Extract();
  Failure ExtractEntry(Reader* r, const Entry& e, const std::string& dest, int64_t* files, int64_t* bytes,
                       int64_t* skipped);
  Failure Create();
  Failure List();

  Config cfg_;
  StepOutput* out_;
  const std::atomic<bool>& cancelled_;
  std::string base_;
  std::chrono::steady_clock::time_point start_;
};

// filepath.Rel for two cleaned paths, both relative or both absolute.
std::string RelPath(const std::string& base, const std::string& target) {
  auto split = [](const std::string& p) {
    std::vector<std::string> parts;
    if (p == "." || p == "/") return parts;
    size_t i = p.front() == '/' ? 1 : 0;
    while (i <= p.size()) {
      size_t j = p.find('/', i);
      if (j == std::string::npos) j = p.size();
      parts.push_back(p.substr(i, j - i));
      i = j + 1;
    }
    return parts;
  };
  std::vector<std::string> b = split(base), t = split(target);
  size_t common = 0;
  while (common < b.size() && common < t.size() && b[common] == t[common]) ++common;
  std::vector<std::string> out;
  for (size_t i = common; i < b.size(); ++i) out.emplace_back("..");
  for (size_t i = common; i < t.size(); ++i) out.push_back(t[i]);
  std::string s;
  for (const auto& p : out) s += (s.empty() ? "" : "/") + p;
  return s.empty() ? "." : s;
}

Failure Operation::ExtractEntry(Reader* r, const Entry& e, const std::string& dest, int64_t* files, int64_t* bytes,
                                int64_t* skipped) {
  if (cancelled_) return Plain(KindText(Kind::kCanceled));
  const std::string rel = ap::SanitizeArchivePath(e.name, static_cast<int>(cfg_.strip), cfg_.preserve_paths);
  if (rel.empty()) {
    if (e.IsDir()) return std::nullopt;
    Warn("skipping unnamed file in archive");
    ++*skipped;
    return std::nullopt;
  }
  if (!ap::MatchesFilters(rel, cfg_.include, cfg_.exclude)) {
    ++*skipped;
    return std::nullopt;
  }
  std::string target = rel == "." ? dest : ap::Join({dest, rel});
  if (!ap::PathWithin(dest, target)) return Wrap(Kind::kCorrupted, "target " + GoQuote(rel) + " escapes destination");
  if (e.IsDir()) return EnsureDir(target);
  const std::string parent = ap::Dir(target);
  if (!parent.empty() && parent != ".") {
    if (Failure f = EnsureDir(parent)) return f;
  }
  if (cfg_.dry_run) {
    ++*files;
    *bytes += e.size;
    return std::nullopt;
  }
  const std::string real = Real(target);
  struct stat st;
  if (!cfg_.overwrite && ::stat(real.c_str(), &st) == 0) {
    return Wrap(Kind::kDestination, "destination " + GoQuote(target) + " exists (overwrite disabled)");
  }
  if (e.mode.symlink) {
    if (e.link_target.empty()) return Wrap(Kind::kCorrupted, "empty symlink target");
    if (e.link_target.front() == '/') {
      return Wrap(Kind::kCorrupted, "symlink target " + GoQuote(e.link_target) + " is absolute");
    }
    const std::string link_parent = ap::Dir(target);
    const std::string resolved = ap::Clean(ap::Join({link_parent, e.link_target}));
    if (!ap::PathWithin(ap::Clean(dest), resolved)) {
      return Wrap(Kind::kCorrupted, "symlink target " + GoQuote(e.link_target) + " escapes destination");
    }
    const std::string safe = RelPath(ap::Clean(link_parent), resolved);
    ::unlink(real.c_str());
    if (::symlink(safe.c_str(), real.c_str()) != 0) {
      int err = errno;
      std::string text = "symlink " + safe + " " + target + ": " + ErrnoText(err);
      return Wrap(err == EACCES || err == EPERM ? Kind::kPermission : Kind::kDestination, text);
    }
    ++*files;
    return std::nullopt;
  }
  mode_t perm = e.mode.perm | (e.mode.setuid ? S_ISUID : 0) | (e.mode.setgid ? S_ISGID : 0) |
                (e.mode.sticky ? S_ISVTX : 0);
  if (e.mode.IsZero()) perm = 0644;
  int fd = ::open(real.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, perm);
  if (fd < 0) {
    int err = errno;
    return Wrap(err == EACCES || err == EPERM ? Kind::kPermission : Kind::kDestination,
                PathErrorText("open", target, err));
  }
  int64_t written = 0;
  Failure copied = r->ReadData(
      [&](const char* data, size_t n) -> Failure {
        while (n > 0) {
          ssize_t w = ::write(fd, data, n);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) return Plain(PathErrorText("write", target, errno));
          data += w;
          n -= static_cast<size_t>(w);
          written += w;
        }
        return std::nullopt;
      },
      cancelled_);
  ::close(fd);
  if (copied) return Wrap(Kind::kExtract, *copied);
  ++*files;
  *bytes += written;
  return std::nullopt;
}

Failure Operation::Extract() {
  const std::string real = Real(cfg_.source);
  struct stat st;
  if (::stat(real.c_str(), &st) != 0) return Wrap(Kind::kSourceNotFound, PathErrorText("stat", cfg_.source, errno));
  if (S_ISDIR(st.st_mode)) return Wrap(Kind::kConfig, "source must be a file");
  if (::access(real.c_str(), R_OK) != 0) return Wrap(Kind::kSourceNotFound, PathErrorText("open", cfg_.source, errno));
  Reader reader;
  if (Failure f = OpenForReading(&reader, true)) return f;
  bool verified = false;
  if (cfg_.verify) {
    if (Failure f = Verify(cfg_.source, reader)) return Wrap(Kind::kCorrupted, *f);
    verified = true;
  }
  const std::string dest = cfg_.destination.empty() ? "." : cfg_.destination;
  if (Failure f = EnsureDir(dest)) return f;
  int64_t files = 0, bytes = 0, skipped = 0;
  std::vector<std::string> errors;
  const bool zip = reader.IsZip();
  Entry e;
  Failure read_error;
  for (int index = 0; reader.Next(&e, &read_error); ++index) {
    Failure f = ExtractEntry(&reader, e, dest, &files, &bytes, &skipped);
    if (!f) continue;
    if (cfg_.continue_on_error) {
      errors.push_back(f->text);
      Warn("continuing after error: " + f->text);
      continue;
    }
    std::string where = zip ? "handling file " + std::to_string(index) + ": " + e.name + ": "
                            : "handling file: " + e.name + ": ";
    return Wrap(Kind::kExtract, Prefix(where, *f));
  }
  if (read_error) return Wrap(Kind::kExtract, *read_error);
  Json j;
  j["operation"] = "extract";
  j["source"] = cfg_.source;
  j["destination"] = cfg_.destination;
  j["filesExtracted"] = files;
  j["bytesExtracted"] = bytes;
  j["filesSkipped"] = skipped;
  j["duration"] = Elapsed();
  if (!errors.empty()) j["errors"] = errors;
  j["verifyPerformed"] = verified;
  WriteResult(j);
  return std::nullopt;
}

// A file to archive (archives.FilesFromDisk).
struct DiskFile {
  std::string path;  // on disk, as 1.30.2 names it (relative to the working directory)
  std::string name_in_archive;
  struct stat st;
  std::string link_target;
};

Failure Operation::Create() {
  const std::string real_source = Real(cfg_.source);
  struct stat src_st;
  if (::stat(real_source.c_str(), &src_st) != 0) {
    return Wrap(Kind::kSourceNotFound, PathErrorText("stat", cfg_.source, errno));
  }
  if (!cfg_.dry_run) {
    std::string dir = ap::Dir(cfg_.destination);
    if (!dir.empty()) {
      if (Failure f = EnsureDir(dir)) return f;
    }
  }
  std::string format_name = std::string(TrimSpace(cfg_.format));
  if (format_name.empty()) format_name = ExtensionToFormat(cfg_.destination);
  if (format_name.empty()) return Wrap(Kind::kFormatDetection, "could not infer format; specify config.format");
  std::optional<Format> format = FormatFromString(format_name);
  if (!format) return Plain("unknown format " + GoQuote(format_name));

  // nameOnDiskToNameInArchive and filepath.WalkDir, as FilesFromDisk uses them.
  std::vector<DiskFile> files;
  std::function<Failure(const std::string&, const std::string&)> walk_root;
  walk_root = [&](const std::string& root, const std::string& root_in_archive_given) -> Failure {
    std::string root_in_archive = root_in_archive_given;
    if (root.ends_with("/")) {
      // "enumerate contents only": trimTopDir
      size_t slash = root_in_archive.find('/', root_in_archive.starts_with("/") ? 1 : 0);
      if (slash != std::string::npos) root_in_archive = root_in_archive.substr(slash + 1);
    } else if (root_in_archive.empty()) {
      root_in_archive = ap::Base(root);
    }
    if (root_in_archive == ".") root_in_archive = "";
    if (root_in_archive.ends_with("/")) root_in_archive += ap::Base(root);
    auto name_of = [&](const std::string& on_disk) {
      std::string trunc = on_disk.starts_with(root) ? on_disk.substr(root.size()) : on_disk;
      std::string joined = root_in_archive.empty() ? trunc : trunc.empty() ? root_in_archive : root_in_archive + "/" + trunc;
      return joined.empty() ? std::string() : ap::Clean(joined);
    };
    std::function<Failure(const std::string&)> visit = [&](const std::string& path) -> Failure {
      if (cancelled_) return Plain(KindText(Kind::kCanceled));
      DiskFile f;
      f.path = path;
      if (::lstat(Real(path).c_str(), &f.st) != 0) return Plain(PathErrorText("lstat", path, errno));
      f.name_in_archive = name_of(path);
      const bool is_dir = S_ISDIR(f.st.st_mode);
      if (!(is_dir && f.name_in_archive.empty())) {
        bool add = true;
        if (S_ISLNK(f.st.st_mode)) {
          if (cfg_.follow_symlinks) {
            char* resolved = ::realpath(Real(path).c_str(), nullptr);
            if (resolved == nullptr) return Plain(PathErrorText("stat", path, errno));
            std::string target = resolved;
            std::free(resolved);
            struct stat tst;
            if (::stat(target.c_str(), &tst) != 0) return Plain(PathErrorText("stat", target, errno));
            if (S_ISDIR(tst.st_mode)) {
              add = false;
              if (Failure e = walk_root(target, f.name_in_archive)) return e;
            } else {
              f.st = tst;
              f.path = target;
            }
          } else {
            char buf[4096];
            ssize_t n = ::readlink(Real(path).c_str(), buf, sizeof buf);
            if (n < 0) return Plain(path + ": readlink: " + PathErrorText("readlink", path, errno));
            f.link_target.assign(buf, static_cast<size_t>(n));
          }
        }
        if (add) files.push_back(f);
      }
      if (!is_dir) return std::nullopt;
      DIR* d = ::opendir(Real(path).c_str());
      if (d == nullptr) return Plain(PathErrorText("open", path, errno));
      std::vector<std::string> names;
      while (struct dirent* de = ::readdir(d)) {
        std::string n = de->d_name;
        if (n != "." && n != "..") names.push_back(n);
      }
      ::closedir(d);
      std::sort(names.begin(), names.end());
      for (const auto& n : names) {
        if (Failure e = visit(ap::Join({path, n}))) return e;
      }
      return std::nullopt;
    };
    return visit(root);
  };
  const std::string source_root = S_ISDIR(src_st.st_mode) ? ap::Base(cfg_.source) : "";
  if (Failure f = walk_root(cfg_.source, source_root)) return Wrap(Kind::kCreate, *f);

  std::vector<DiskFile> filtered;
  for (auto& f : files) {
    if (f.name_in_archive.empty()) f.name_in_archive = ap::Base(f.path);
    if (ap::MatchesFilters(f.name_in_archive, cfg_.include, cfg_.exclude)) filtered.push_back(f);
  }
  int64_t added = 0, bytes = 0;
  for (const auto& f : filtered) {
    ++added;
    bytes += f.st.st_size;
  }
  auto result = [&](bool verified) {
    Json j;
    j["operation"] = "create";
    j["source"] = cfg_.source;
    j["destination"] = cfg_.destination;
    j["filesAdded"] = added;
    j["bytesArchived"] = bytes;
    j["duration"] = Elapsed();
    j["verifyPerformed"] = verified;
    WriteResult(j);
  };
  if (cfg_.dry_run) {
    result(false);
    return std::nullopt;
  }
  const std::string real_dest = Real(cfg_.destination);
  int fd = ::open(real_dest.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    int err = errno;
    return Wrap(err == EACCES || err == EPERM ? Kind::kPermission : Kind::kDestination,
                PathErrorText("open", cfg_.destination, err));
  }
  if (format->container != Format::Container::kTar && format->container != Format::Container::kZip) {
    ::close(fd);
    return Wrap(Kind::kCreate, "format " + format->go_type + " cannot create archives");
  }
  struct archive* a = archive_write_new();
  const bool zip = format->container == Format::Container::kZip;
  if (zip) {
    archive_write_set_format_zip(a);
    archive_write_set_options(a, "zip:compression=store");  // archives.Zip{}: entries stored
  } else {
    archive_write_set_format_pax_restricted(a);
    if (format->filter == "gzip") archive_write_add_filter_gzip(a);
    if (format->filter == "bzip2") archive_write_add_filter_bzip2(a);
    if (format->filter == "xz") archive_write_add_filter_xz(a);
    if (format->filter == "zstd") archive_write_add_filter_zstd(a);
    if (cfg_.compression_level >= 0 && (format->filter == "gzip" || format->filter == "bzip2")) {
      std::string opt = format->filter + ":compression-level=" + std::to_string(cfg_.compression_level);
      archive_write_set_options(a, opt.c_str());
    }
  }
  archive_write_set_bytes_in_last_block(a, 1);
  auto fail = [&](const std::string& text) {
    archive_write_free(a);
    ::close(fd);
    return Wrap(Kind::kCreate, text);
  };
  auto lib_error = [&]() {
    const char* s = archive_error_string(a);
    return std::string(s != nullptr ? s : "unknown libarchive error");
  };
  if (archive_write_open_fd(a, fd) != ARCHIVE_OK) return fail(lib_error());
  for (const auto& f : filtered) {
    if (cancelled_) return fail(KindText(Kind::kCanceled));
    struct archive_entry* entry = archive_entry_new();
    archive_entry_copy_stat(entry, &f.st);
    archive_entry_copy_pathname(entry, f.name_in_archive.c_str());
    if (!f.link_target.empty()) archive_entry_copy_symlink(entry, f.link_target.c_str());
    if (!S_ISREG(f.st.st_mode)) archive_entry_set_size(entry, 0);
    if (!zip) {
      // archive/tar rounds ModTime to the nearest second.
      time_t sec = f.st.st_mtim.tv_sec + (f.st.st_mtim.tv_nsec >= 500000000 ? 1 : 0);
      archive_entry_set_mtime(entry, sec, 0);
      char buf[4096];
      struct passwd pw, *pwp = nullptr;
      if (getpwuid_r(f.st.st_uid, &pw, buf, sizeof buf, &pwp) == 0 && pwp != nullptr) {
        archive_entry_copy_uname(entry, pwp->pw_name);
      }
      struct group gr, *grp = nullptr;
      if (getgrgid_r(f.st.st_gid, &gr, buf, sizeof buf, &grp) == 0 && grp != nullptr) {
        archive_entry_copy_gname(entry, grp->gr_name);
      }
    }
    int rc = archive_write_header(a, entry);
    archive_entry_free(entry);
    if (rc < ARCHIVE_WARN) return fail("file " + f.name_in_archive + ": writing header: " + lib_error());
    if (!S_ISREG(f.st.st_mode)) continue;
    int in = ::open(Real(f.path).c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return fail("file " + f.name_in_archive + ": writing data: " + PathErrorText("open", f.path, errno));
    char buf[64 * 1024];
    for (;;) {
      ssize_t n = ::read(in, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        ::close(in);
        return fail("file " + f.name_in_archive + ": writing data: " + PathErrorText("read", f.path, err));
      }
      if (n == 0) break;
      if (archive_write_data(a, buf, static_cast<size_t>(n)) < 0) {
        ::close(in);
        return fail("file " + f.name_in_archive + ": writing data: " + lib_error());
      }
    }
    ::close(in);
  }
  if (archive_write_close(a) != ARCHIVE_OK) return fail(lib_error());
  archive_write_free(a);
  if (::close(fd) != 0) return Wrap(Kind::kCreate, PathErrorText("close", cfg_.destination, errno));
  bool verified = false;
  if (cfg_.verify) {
    if (Failure f = Verify(cfg_.destination, Reader())) return Wrap(Kind::kCorrupted, *f);
    verified = true;
  }
  result(verified);
  return std::nullopt;
}

// archives.ArchiveFS walked with fs.WalkDir: entries by their cleaned path,
// the folders they imply filled in, each folder's entries sorted by name.
struct ListedInfo {
  bool implicit = true;
  Entry entry;
};

Failure Operation::List() {
  const std::string real = Real(cfg_.source);
  if (::access(real.c_str(), R_OK) != 0) return Wrap(Kind::kSourceNotFound, PathErrorText("open", cfg_.source, errno));
  Reader reader;
  if (Failure f = OpenForReading(&reader, false)) return f;
  bool verified = false;
  if (cfg_.verify) {
    if (Failure f = Verify(cfg_.source, reader)) return Wrap(Kind::kCorrupted, *f);
    verified = true;
  }
  const bool zip = reader.IsZip();
  std::map<std::string, std::vector<std::string>> dirs;  // folder -> sorted child names
  std::map<std::string, ListedInfo> contents;            // path -> info
  auto insert_child = [&](const std::string& dir, const std::string& name) {
    auto& v = dirs[dir];
    auto it = std::lower_bound(v.begin(), v.end(), name);
    if (it == v.end() || *it != name) v.insert(it, name);
  };
  Entry e;
  Failure read_error;
  while (reader.Next(&e, &read_error)) {
    if (cancelled_) return Plain(KindText(Kind::kCanceled));
    const std::string name = ap::Clean(e.name);
    if (name == ".") continue;
    ListedInfo info;
    info.implicit = false;
    info.entry = e;
    contents[name] = info;
    insert_child(ap::Dir(name), ap::Base(name));
    std::string starting = ap::Dir(name);
    if (starting.starts_with("/")) starting.erase(0, 1);
    for (std::string dir = ap::Dir(starting), base = ap::Base(starting); base != ".";
         base = ap::Base(dir), dir = ap::Dir(dir)) {
      insert_child(dir, base);
      if (contents.find(dir) == contents.end()) {
        ListedInfo implicit;
        implicit.entry.mode.dir = true;
        contents[dir] = implicit;
      }
      if (dir == "." || dir == "/") break;
    }
  }
  if (read_error) return Wrap(Kind::kCorrupted, Prefix("extract: ", *read_error));

  Json files = Json::array();
  int64_t total_size = 0;
  std::function<Failure(const std::string&)> walk = [&](const std::string& dir) -> Failure {
    auto it = dirs.find(dir);
    if (it == dirs.end()) return std::nullopt;
    for (const auto& child : it->second) {
      const std::string path = dir == "." ? child : dir + "/" + child;
      auto c = contents.find(path);
      ListedInfo info;
      if (c != contents.end()) {
        info = c->second;
      } else {
        info.entry.mode.dir = true;  // an implicit folder (path.Dir and this walk disagree)
      }
      Json j;
      j["path"] = path;
      j["size"] = info.implicit ? 0 : info.entry.size;
      j["mode"] = info.entry.mode.String();
      if (info.implicit) {
        j["modTime"] = "0001-01-01T00:00:00Z";
      } else {
        WallTime t = std::chrono::system_clock::from_time_t(info.entry.mtime);
        j["modTime"] = zip ? FormatRFC3339UTC(t) : FormatRFC3339Local(t);
      }
      j["isDir"] = info.entry.IsDir();
      if (ap::MatchesFilters(path, cfg_.include, cfg_.exclude)) {
        if (!info.entry.IsDir()) total_size += info.implicit ? 0 : info.entry.size;
        files.push_back(j);
      }
      if (info.entry.IsDir()) {
        // fs.ValidPath refuses "..": ReadDir fails and so does the walk.
        if (path == ".." || path.starts_with("../") || path.find("/../") != std::string::npos) {
          return Wrap(Kind::kCorrupted, "readdir " + path + ": invalid argument");
        }
        if (Failure f = walk(path)) return f;
      }
    }
    return std::nullopt;
  };
  if (Failure f = walk(".")) return f;
  Json j;
  j["operation"] = "list";
  j["source"] = cfg_.source;
  j["totalFiles"] = files.size();
  j["totalSize"] = total_size;
  j["files"] = files;
  j["verified"] = verified;
  j["duration"] = Elapsed();
  WriteResult(j);
  return std::nullopt;
}

StepResult RunArchive(const StepInvocation& inv, const std::atomic<bool>& cancelled) {
  StepResult result;
  result.started = true;
  StepOutput output(inv);
  Config cfg;
  Failure failure = ParseConfig(inv, &cfg);
  if (!failure) {
    if (Status loaded = LoadLazyLibrary(LazyLibrary::kArchive); !loaded.ok()) {
      failure = Plain(loaded.message());
    } else {
      failure = Operation(inv, std::move(cfg), &output, cancelled).Run();
    }
  }
  output.Finish(&result);
  if (cancelled) {
    result.exit_code = -1;
    return result;
  }
  if (failure) {
    result.exit_code = ExitCodeFor(*failure);
    result.error = failure->text;
  }
  return result;
}

}  // namespace

std::unique_ptr<RunningStep> ArchiveRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<CallbackStep>(
      [inv = invocation](const std::atomic<bool>& cancelled) { return RunArchive(inv, cancelled); });
}

}  // namespace dagu
