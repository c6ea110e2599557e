#include "dagwatch/dag_file_loader.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <thread>

namespace dagu {
namespace {

// The FileSystem the DAG loader reads the base config through: every call
// goes to `base`, except reads, which go through the BoundedReader.
class BoundedReadFileSystem final : public FileSystem {
 public:
  explicit BoundedReadFileSystem(FileSystem* base, std::chrono::milliseconds limit)
      : base_(base), reader_(base, limit) {}

  BoundedReader* reader() { return &reader_; }

  Status ReadFile(const std::string& path, std::string* contents) override {
    return reader_.Read(path, "", contents);
  }
  Status ReadRegularFile(const std::string& path, const std::string& confine_to, uint64_t max_bytes,
                         std::string* contents) override {
    (void)max_bytes;  // the reader's own bound applies
    return reader_.Read(path, confine_to, contents);
  }

  Status Stat(const std::string& p, FileInfo* i) override { return base_->Stat(p, i); }
  Status WriteFile(const std::string& p, const std::string& c, int m) override { return base_->WriteFile(p, c, m); }
  Status WriteFileAtomic(const std::string& p, const std::string& c, int m) override {
    return base_->WriteFileAtomic(p, c, m);
  }
  Status CreateFileExclusive(const std::string& p, const std::string& c, int m) override {
    return base_->CreateFileExclusive(p, c, m);
  }
  Status AppendFileSync(const std::string& p, const std::string& c, int m) override {
    return base_->AppendFileSync(p, c, m);
  }
  Status MakeDir(const std::string& p, int m) override { return base_->MakeDir(p, m); }
  Status MakeDirs(const std::string& p, int m) override { return base_->MakeDirs(p, m); }
  Status RemoveFile(const std::string& p) override { return base_->RemoveFile(p); }
  Status RemoveDir(const std::string& p) override { return base_->RemoveDir(p); }
  Status RemoveAll(const std::string& p) override { return base_->RemoveAll(p); }
  Status Rename(const std::string& f, const std::string& t) override { return base_->Rename(f, t); }
  Status ListDir(const std::string& p, std::vector<std::string>* n) override { return base_->ListDir(p, n); }
  Status SetMtime(const std::string& p, WallTime w) override { return base_->SetMtime(p, w); }
  Status OpenDirectory(const std::string& p, std::unique_ptr<DirectoryHandle>* out) override {
    return base_->OpenDirectory(p, out);
  }

 private:
  FileSystem* base_;
  BoundedReader reader_;
};

// Test hook (process tests of a big DAG folder on slow storage): with
// DAGU_TEST_HOOK_DAG_READ_DELAY_MS=<n>, each DAG file read waits n ms first,
// as a read from a slow NFS server does. Nothing happens unless it is set.
std::chrono::milliseconds ReadDelayHook() {
  const char* value = std::getenv("DAGU_TEST_HOOK_DAG_READ_DELAY_MS");
  if (value == nullptr || *value == '\0') return std::chrono::milliseconds(0);
  char* end = nullptr;
  long n = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || n <= 0 || n > 10000) {
    spdlog::warn("DAGU_TEST_HOOK_DAG_READ_DELAY_MS={}: not a delay in ms (1-10000); ignored", value);
    return std::chrono::milliseconds(0);
  }
  spdlog::warn("Test hook DAGU_TEST_HOOK_DAG_READ_DELAY_MS={}: each DAG file read waits {} ms", n, n);
  return std::chrono::milliseconds(n);
}

}  // namespace

DagFileLoader MakeDagFileLoader(LoadDagOptions options, std::string dags_dir, std::chrono::milliseconds read_limit) {
  options.metadata_only = true;
  auto fs = std::make_shared<BoundedReadFileSystem>(options.fs != nullptr ? options.fs : PosixFileSystem(),
                                                    read_limit);
  options.fs = fs.get();
  const std::chrono::milliseconds delay = ReadDelayHook();
  return [options, fs, dags_dir, delay](const std::string& path, Dag* out) {
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    std::string text;
    Status s = fs->reader()->Read(path, dags_dir, &text);
    if (!s.ok()) return s;  // names the path; the catalog says "DAG file ... skipped"
    std::vector<DagError> problems;
    s = LoadDagFromString(text, path, options, out, &problems);
    for (const DagError& e : problems) {
      if (e.is_error()) {
        spdlog::error("{}", e.ToString());
      } else {
        spdlog::warn("{}", e.ToString());
      }
    }
    return s;
  };
}

}  // namespace dagu
