#include "support/faulty_file_system.h"

namespace dagu::testing {

void FaultyFileSystem::FailWith(const std::string& op, const std::string& path_part, Status status) {
  std::lock_guard<std::mutex> l(mu_);
  faults_.push_back(Fault{op, path_part, false, std::move(status)});
}

void FaultyFileSystem::Block(const std::string& op, const std::string& path_part) {
  std::lock_guard<std::mutex> l(mu_);
  faults_.push_back(Fault{op, path_part, true, Status::OK()});
}

void FaultyFileSystem::Unblock() {
  std::lock_guard<std::mutex> l(mu_);
  std::erase_if(faults_, [](const Fault& f) { return f.block; });
  ++unblock_generation_;
  cv_.notify_all();
}

void FaultyFileSystem::BeforeOnce(const std::string& op, const std::string& path_part, std::function<void()> hook) {
  std::lock_guard<std::mutex> l(mu_);
  hooks_.push_back(Hook{op, path_part, std::move(hook)});
}

void FaultyFileSystem::Clear() {
  std::lock_guard<std::mutex> l(mu_);
  faults_.clear();
  hooks_.clear();
  ++unblock_generation_;
  cv_.notify_all();
}

int FaultyFileSystem::blocked_calls() const {
  std::lock_guard<std::mutex> l(mu_);
  return waiting_;
}

bool FaultyFileSystem::Intercept(const char* op, const std::string& path, Status* out) {
  std::unique_lock<std::mutex> l(mu_);
  for (auto it = hooks_.begin(); it != hooks_.end(); ++it) {
    if ((it->op == "*" || it->op == op) && path.find(it->path_part) != std::string::npos) {
      std::function<void()> fn = std::move(it->fn);
      hooks_.erase(it);
      l.unlock();
      fn();
      l.lock();
      break;
    }
  }
  for (const Fault& f : faults_) {
    if ((f.op == "*" || f.op == op) && path.find(f.path_part) != std::string::npos) {
      if (f.block) {
        uint64_t gen = unblock_generation_;
        ++waiting_;
        cv_.wait(l, [&] { return unblock_generation_ != gen; });
        --waiting_;
        return true;
      }
      *out = f.status;
      return false;
    }
  }
  return true;
}

#define DAGU_FAULTY_FORWARD(op, path, call) \
  Status s;                                 \
  if (!Intercept(op, path, &s)) return s;   \
  return base_->call;

#define DAGU_FAULTY_DIR(op, path, call)         \
  Status s;                                     \
  if (!fs_->Intercept(op, path, &s)) return s;  \
  return base_->call;

Status FaultyFileSystem::Stat(const std::string& p, FileInfo* i) { DAGU_FAULTY_FORWARD("Stat", p, Stat(p, i)) }
Status FaultyFileSystem::ReadFile(const std::string& p, std::string* c) {
  DAGU_FAULTY_FORWARD("ReadFile", p, ReadFile(p, c))
}
Status FaultyFileSystem::WriteFile(const std::string& p, const std::string& c, int m) {
  DAGU_FAULTY_FORWARD("WriteFile", p, WriteFile(p, c, m))
}
Status FaultyFileSystem::WriteFileAtomic(const std::string& p, const std::string& c, int m) {
  DAGU_FAULTY_FORWARD("WriteFileAtomic", p, WriteFileAtomic(p, c, m))
}
Status FaultyFileSystem::CreateFileExclusive(const std::string& p, const std::string& c, int m) {
  DAGU_FAULTY_FORWARD("CreateFileExclusive", p, CreateFileExclusive(p, c, m))
}
Status FaultyFileSystem::AppendFileSync(const std::string& p, const std::string& c, int m) {
  DAGU_FAULTY_FORWARD("AppendFileSync", p, AppendFileSync(p, c, m))
}
Status FaultyFileSystem::MakeDir(const std::string& p, int m) { DAGU_FAULTY_FORWARD("MakeDir", p, MakeDir(p, m)) }
Status FaultyFileSystem::MakeDirs(const std::string& p, int m) { DAGU_FAULTY_FORWARD("MakeDirs", p, MakeDirs(p, m)) }
Status FaultyFileSystem::RemoveFile(const std::string& p) { DAGU_FAULTY_FORWARD("RemoveFile", p, RemoveFile(p)) }
Status FaultyFileSystem::RemoveDir(const std::string& p) { DAGU_FAULTY_FORWARD("RemoveDir", p, RemoveDir(p)) }
Status FaultyFileSystem::RemoveAll(const std::string& p) { DAGU_FAULTY_FORWARD("RemoveAll", p, RemoveAll(p)) }
Status FaultyFileSystem::Rename(const std::string& f, const std::string& t) {
  DAGU_FAULTY_FORWARD("Rename", f, Rename(f, t))
}
Status FaultyFileSystem::ListDir(const std::string& p, std::vector<std::string>* n) {
  DAGU_FAULTY_FORWARD("ListDir", p, ListDir(p, n))
}
Status FaultyFileSystem::SetMtime(const std::string& p, WallTime w) {
  DAGU_FAULTY_FORWARD("SetMtime", p, SetMtime(p, w))
}

Status FaultyFileSystem::ReadRegularFile(const std::string& p, const std::string& confine_to, uint64_t max_bytes,
                                         std::string* c) {
  Status s;
  if (!Intercept("ReadRegularFile", p, &s) || !Intercept("ReadFile", p, &s)) return s;
  return base_->ReadRegularFile(p, confine_to, max_bytes, c);
}

namespace {

// A DirectoryHandle whose calls go through the FaultyFileSystem's faults.
class FaultyDirectory final : public DirectoryHandle {
 public:
  FaultyDirectory(FaultyFileSystem* fs, std::unique_ptr<DirectoryHandle> base)
      : fs_(fs), base_(std::move(base)) {}
  const std::string& path() const override { return base_->path(); }
  Status Stat(FileInfo* i) override { DAGU_FAULTY_DIR("Stat", path(), Stat(i)) }
  Status ReadFile(const std::string& n, std::string* c) override {
    DAGU_FAULTY_DIR("ReadFile", JoinPath(path(), n), ReadFile(n, c))
  }
  Status WriteFile(const std::string& n, const std::string& c, int m) override {
    DAGU_FAULTY_DIR("WriteFile", JoinPath(path(), n), WriteFile(n, c, m))
  }
  Status Rename(const std::string& f, const std::string& t) override {
    DAGU_FAULTY_DIR("Rename", JoinPath(path(), f), Rename(f, t))
  }
  Status RemoveFile(const std::string& n) override {
    DAGU_FAULTY_DIR("RemoveFile", JoinPath(path(), n), RemoveFile(n))
  }
  Status SetMtime(WallTime w) override { DAGU_FAULTY_DIR("SetMtime", path(), SetMtime(w)) }

 private:
  FaultyFileSystem* fs_;
  std::unique_ptr<DirectoryHandle> base_;
};

}  // namespace

Status FaultyFileSystem::OpenDirectory(const std::string& p, std::unique_ptr<DirectoryHandle>* out) {
  Status s;
  if (!Intercept("OpenDirectory", p, &s)) return s;
  std::unique_ptr<DirectoryHandle> base;
  DAGU_RETURN_IF_ERROR(base_->OpenDirectory(p, &base));
  *out = std::make_unique<FaultyDirectory>(this, std::move(base));
  return Status::OK();
}

#undef DAGU_FAULTY_DIR
#undef DAGU_FAULTY_FORWARD

}  // namespace dagu::testing
