#include "web/dag_files.h"

#include <limits.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "dag/dag_names.h"

namespace dagu::web {
namespace {

bool IsYamlFile(const std::string& name) {
  return !name.empty() && name[0] != '.' && (name.ends_with(".yaml") || name.ends_with(".yml"));
}

std::string Stem(const std::string& name) {
  if (name.ends_with(".yaml")) return name.substr(0, name.size() - 5);
  if (name.ends_with(".yml")) return name.substr(0, name.size() - 4);
  return name;
}

// A short plain name: safe to show, whatever file it came from.
bool PlainName(std::string_view s) {
  if (s.empty() || s.size() > 80) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("_.-[] ").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = s->find(from); pos != std::string::npos; pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

// Each "quoted" part of `message` that is not a plain name becomes "...".
std::string ElideQuotes(const std::string& message) {
  std::string out;
  size_t i = 0;
  while (i < message.size()) {
    size_t open = message.find('"', i);
    if (open == std::string::npos) {
      out += message.substr(i);
      break;
    }
    out += message.substr(i, open - i);
    size_t close = message.find('"', open + 1);
    if (close == std::string::npos) {
      out += "\"...\"";
      break;
    }
    std::string inner = message.substr(open + 1, close - open - 1);
    out += PlainName(inner) ? "\"" + inner + "\"" : "\"...\"";
    i = close + 1;
  }
  return out;
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) == nullptr ? "" : std::string(buf);
}

// Fills `f` from a load of the file at `path`: the DAG when it loaded, else
// what was parsed (`partial`, when it has a name) and the errors, each naming
// the file as `shown` (this host's path is not shown).
void TakeLoadResult(const Status& s, Dag dag, const std::vector<DagError>& errors, const std::string& path,
                    const std::string& shown, DagFile* f) {
  for (const DagError& e : errors) {
    if (e.is_error()) f->errors.push_back(ApiErrorText(e, shown));
  }
  if (s.ok()) {
    f->dag = std::move(dag);
    return;
  }
  if (!dag.name.empty()) f->partial = std::move(dag);
  if (f->errors.empty()) {
    std::string message = s.message();
    ReplaceAll(&message, path, shown);
    f->errors.push_back(ElideQuotes(message));
  }
}

}  // namespace

Dag ListingFields(Dag&& dag) {
  Dag out;
  static_cast<DagHeader&>(out) = std::move(static_cast<DagHeader&>(dag));
  out.description = std::move(dag.description);
  out.tags = std::move(dag.tags);
  out.group = std::move(dag.group);
  return out;
}

std::string ApiErrorText(const DagError& e, const std::string& file_name) {
  std::string out = file_name + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": ";
  if (!e.is_error()) out += "warning: ";
  if (!e.key.empty()) out += (PlainName(e.key) ? e.key : std::string("...")) + ": ";
  std::string message = e.message;
  if (!PlainName(e.value)) ReplaceAll(&message, e.value, "...");
  if (!PlainName(e.key)) ReplaceAll(&message, e.key, "...");
  ReplaceAll(&message, e.file, file_name);
  return out + ElideQuotes(message);
}

Status CheckDagFileEntry(const std::string& dir, const std::string& name) {
  std::string path = JoinPath(dir, name);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound("no DAG file \"" + name + "\"");
    return Status::FromErrno(errno, "reading DAG file " + name);
  }
  if (S_ISREG(st.st_mode)) return Status::OK();
  if (!S_ISLNK(st.st_mode)) return Status::PermissionDenied(name + " is not a regular file; not loaded");
  std::string target = RealPath(path);
  std::string real_dir = RealPath(dir);
  if (target.empty() || real_dir.empty()) {
    return Status::PermissionDenied(name + " is a symbolic link that does not resolve; not loaded");
  }
  if (target.compare(0, real_dir.size() + 1, real_dir + "/") != 0) {
    return Status::PermissionDenied(name + " is a symbolic link out of the DAG directory; not loaded");
  }
  if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status::PermissionDenied(name + " is a symbolic link to something other than a regular file; not loaded");
  }
  return Status::OK();
}

Status ValidateDagFileName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 255 && name[0] != '.';
  for (char c : name) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                c == '-' || c == '.');
  }
  if (!ok) return Status::InvalidArgument("invalid DAG file name \"" + name + "\"");
  return Status::OK();
}

DagFiles::DagFiles(FileSystem* fs, std::string dags_dir, std::string suspend_flags_dir, LoadDagOptions options)
    : fs_(fs), dags_dir_(std::move(dags_dir)), suspend_dir_(std::move(suspend_flags_dir)), options_(std::move(options)) {
  options_.fs = fs_;
}

std::string DagFiles::FlagPath(const std::string& path) const {
  return JoinPath(suspend_dir_, SuspendFlagFileName(path));
}

DagFile DagFiles::Load(const std::string& file_name, const std::string& path, bool metadata_only) const {
  DagFile f;
  f.file_name = Stem(file_name);
  f.path = path;
  FileInfo info;
  f.suspended = fs_->Stat(FlagPath(path), &info).ok();
  if (Status entry = CheckDagFileEntry(dags_dir_, file_name); !entry.ok()) {
    f.errors.push_back(entry.message());
    return f;
  }
  LoadDagOptions options = options_;
  options.metadata_only = metadata_only;
  Dag dag;
  std::vector<DagError> errors;
  Status s = LoadDag(path, options, &dag, &errors);
  if (metadata_only) dag = ListingFields(std::move(dag));
  TakeLoadResult(s, std::move(dag), errors, path, file_name, &f);
  return f;
}

void DagFiles::CheckBaseConfig() const {
  if (options_.base_config.empty()) return;
  FileInfo now;
  std::optional<FileInfo> version;
  if (fs_->Stat(options_.base_config, &now).ok()) version = now;
  std::lock_guard<std::mutex> l(cache_mu_);
  const bool same = version.has_value() == base_version_.has_value() &&
                    (!version || SameFileVersion(*version, *base_version_));
  if (same) return;
  cache_.clear();
  for (auto& listing : listings_) listing.reset();
  base_version_ = version;
}

void DagFiles::WatchForChanges() {
  tracker_ = std::make_unique<DirTracker>(/*max_watches=*/2);
}

std::shared_ptr<const DagFile> DagFiles::LoadShared(const std::string& file_name, const std::string& path,
                                                    bool metadata_only, bool* plain) const {
  const std::string key = metadata_only ? path + "\nm" : path;
  FileInfo version;
  FileInfo flag;
  const bool suspended = fs_->Stat(FlagPath(path), &flag).ok();
  // lstat-level checks first (a FIFO or a link out is never opened), then
  // the version of what a load would read. A regular file (the usual case)
  // needs one lstat for both.
  struct stat st {};
  bool usable = false;
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    version.size = static_cast<uint64_t>(st.st_size);
    version.mtime = WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::seconds(st.st_mtim.tv_sec) +
                                                                             std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
    version.inode = st.st_ino;
    version.device = st.st_dev;
    usable = true;
  } else {
    *plain = false;
    usable = CheckDagFileEntry(dags_dir_, file_name).ok() && fs_->Stat(path, &version).ok();
  }
  if (!usable) {
    std::lock_guard<std::mutex> l(cache_mu_);
    cache_.erase(key);
    return std::make_shared<const DagFile>(Load(file_name, path, metadata_only));
  }
  {
    std::lock_guard<std::mutex> l(cache_mu_);
    auto it = cache_.find(key);
    if (it != cache_.end() && SameFileVersion(it->second.version, version)) {
      if (it->second.file->suspended == suspended) return it->second.file;
      auto copy = std::make_shared<DagFile>(*it->second.file);
      copy->suspended = suspended;
      it->second.file = copy;
      return copy;
    }
  }
  auto loaded = std::make_shared<const DagFile>(Load(file_name, path, metadata_only));
  // Kept only when the version is older than a timestamp tick or two (see
  // the header comment); the stat came before the read, so a write after it
  // shows as a new version next time.
  const bool racy = std::chrono::system_clock::now() - version.mtime < kRacyWindow;
  std::lock_guard<std::mutex> l(cache_mu_);
  if (racy) {
    cache_.erase(key);
  } else {
    cache_[key] = Cached{version, loaded};
  }
  return loaded;
}

Status DagFiles::ListShared(bool metadata_only, std::vector<std::shared_ptr<const DagFile>>* out,
                            const std::atomic<bool>* cancel) const {
  out->clear();
  std::shared_ptr<const DagListing> listing;
  DAGU_RETURN_IF_ERROR(ListSnapshot(metadata_only, &listing, cancel));
  *out = listing->files;
  return Status::OK();
}

Status DagFiles::ListSnapshot(bool metadata_only, std::shared_ptr<const DagListing>* out,
                              const std::atomic<bool>* cancel) const {
  // The numbers first: a change after this call shows in the next one.
  std::optional<uint64_t> dags_gen, suspend_gen;
  if (tracker_) {
    tracker_->Sync();
    dags_gen = tracker_->Generation(dags_dir_);
    suspend_gen = tracker_->Generation(suspend_dir_);
  }
  const bool watched = dags_gen.has_value() && suspend_gen.has_value();
  CheckBaseConfig();
  std::optional<Listing>& listing = listings_[metadata_only ? 1 : 0];
  if (watched) {
    std::lock_guard<std::mutex> l(cache_mu_);
    if (listing && listing->dags_gen == dags_gen.value_or(0) && listing->suspend_gen == suspend_gen.value_or(0)) {
      *out = listing->files;
      return Status::OK();
    }
  }
  auto made = std::make_shared<DagListing>();
  std::vector<std::string> names;
  Status s = fs_->ListDir(dags_dir_, &names);
  if (s.IsNotFound()) {
    *out = std::move(made);
    return Status::OK();
  }
  if (!s.ok()) return s.WithContext("listing the DAG directory");
  std::sort(names.begin(), names.end());
  bool plain = true;
  for (const std::string& name : names) {
    if (!IsYamlFile(name)) continue;
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      return Status::Aborted("the DAG listing was cancelled");
    }
    made->files.push_back(LoadShared(name, JoinPath(dags_dir_, name), metadata_only, &plain));
  }
  *out = made;
  // Forget the files that are gone (the cache never outgrows the directory).
  std::lock_guard<std::mutex> l(cache_mu_);
  if (watched && plain) {
    listing = Listing{dags_gen.value_or(0), suspend_gen.value_or(0), std::move(made)};
  } else {
    listing.reset();
  }
  for (auto it = cache_.begin(); it != cache_.end();) {
    std::string path = it->first.substr(0, it->first.find('\n'));
    if (!std::binary_search(names.begin(), names.end(), BaseName(path))) {
      it = cache_.erase(it);
    } else {
      ++it;
    }
  }
  return Status::OK();
}

Status DagFiles::List(bool metadata_only, std::vector<DagFile>* out) const {
  out->clear();
  std::vector<std::shared_ptr<const DagFile>> shared;
  DAGU_RETURN_IF_ERROR(ListShared(metadata_only, &shared));
  out->reserve(shared.size());
  for (const auto& f : shared) out->push_back(*f);
  return Status::OK();
}

Status DagFiles::Find(const std::string& file_name, DagFile* out) const {
  std::shared_ptr<const DagFile> found;
  DAGU_RETURN_IF_ERROR(FindShared(file_name, &found));
  *out = *found;
  return Status::OK();
}

Status DagFiles::FindShared(const std::string& file_name, std::shared_ptr<const DagFile>* out) const {
  DAGU_RETURN_IF_ERROR(ValidateDagFileName(file_name));
  std::string stem = Stem(file_name);
  for (const char* ext : {".yaml", ".yml"}) {
    std::string path = JoinPath(dags_dir_, stem + ext);
    FileInfo info;
    if (fs_->Stat(path, &info).ok() && !info.is_dir) {
      CheckBaseConfig();
      bool plain = true;
      *out = LoadShared(stem + ext, path, /*metadata_only=*/false, &plain);
      return Status::OK();
    }
  }
  return Status::NotFound("no DAG file \"" + stem + ".yaml\"");
}

Status DagFiles::FindByDagName(const std::string& dag_name, DagFile* out) const {
  if (Find(dag_name, out).ok() && out->DagName() == dag_name) return Status::OK();
  std::vector<DagFile> all;
  DAGU_RETURN_IF_ERROR(List(/*metadata_only=*/true, &all));
  for (DagFile& f : all) {
    if (f.DagName() == dag_name) return Find(f.file_name, out);
  }
  return Status::NotFound("no DAG named \"" + dag_name + "\"");
}

Status DagFiles::SetSuspended(const DagFile& file, bool suspended) const {
  std::string flag = FlagPath(file.path);
  if (!suspended) {
    Status s = fs_->RemoveFile(flag);
    return s.IsNotFound() ? Status::OK() : s;
  }
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(suspend_dir_));
  return fs_->WriteFile(flag, "", 0750);
}

DagFile DagFiles::LoadText(const std::string& file_name, const std::string& yaml) const {
  DagFile f;
  f.file_name = Stem(file_name);
  f.path = JoinPath(dags_dir_, f.file_name + ".yaml");
  Dag dag;
  std::vector<DagError> errors;
  Status s = LoadDagFromString(yaml, f.path, options_, &dag, &errors);
  TakeLoadResult(s, std::move(dag), errors, f.path, f.file_name + ".yaml", &f);
  return f;
}

Status DagFiles::ReadSpec(const DagFile& file, std::string* yaml) const {
  DAGU_RETURN_IF_ERROR(CheckDagFileEntry(dags_dir_, BaseName(file.path)));
  return fs_->ReadFile(file.path, yaml);
}

Status DagFiles::WriteSpec(const DagFile& file, const std::string& yaml) const {
  DAGU_RETURN_IF_ERROR(CheckDagFileEntry(dags_dir_, BaseName(file.path)));
  return fs_->WriteFileAtomic(file.path, yaml, 0644);
}

Status DagFiles::Create(const std::string& file_name, const std::string& yaml) const {
  DAGU_RETURN_IF_ERROR(ValidateDagFileName(file_name));
  std::string stem = Stem(file_name);
  for (const char* ext : {".yaml", ".yml"}) {
    FileInfo info;
    if (fs_->Stat(JoinPath(dags_dir_, stem + ext), &info).ok()) {
      return Status::AlreadyExists("DAG " + stem + " already exists");
    }
  }
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(dags_dir_));
  return fs_->CreateFileExclusive(JoinPath(dags_dir_, stem + ".yaml"), yaml, 0644);
}

Status DagFiles::Rename(const DagFile& file, const std::string& new_file_name) const {
  DAGU_RETURN_IF_ERROR(ValidateDagFileName(new_file_name));
  std::string stem = Stem(new_file_name);
  for (const char* ext : {".yaml", ".yml"}) {
    FileInfo info;
    if (fs_->Stat(JoinPath(dags_dir_, stem + ext), &info).ok()) {
      return Status::AlreadyExists("DAG " + stem + " already exists");
    }
  }
  std::string target = JoinPath(dags_dir_, stem + ".yaml");
  DAGU_RETURN_IF_ERROR(fs_->Rename(file.path, target));
  FileInfo info;
  if (fs_->Stat(FlagPath(file.path), &info).ok()) {
    Status s = fs_->Rename(FlagPath(file.path), FlagPath(target));
    if (!s.ok()) return s.WithContext("moving the suspend flag");
  }
  return Status::OK();
}

Status DagFiles::Remove(const DagFile& file) const {
  DAGU_RETURN_IF_ERROR(fs_->RemoveFile(file.path));
  Status s = fs_->RemoveFile(FlagPath(file.path));
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace dagu::web
