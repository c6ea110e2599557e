#include "store/queue_store.h"

#include <algorithm>
#include <atomic>
#include <unistd.h>

#include "core/time_format.h"
#include "store/json_fields.h"
#include "store/run_status.h"
#include "core/json_text.h"

namespace dagu {
namespace {

constexpr const char* kClaimPrefix = ".claim_";

bool Digits(const std::string& s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(pos), s.begin() + static_cast<std::ptrdiff_t>(pos + n),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

QueueStore::QueueStore(FileSystem* fs, const Clock* clock, std::string queue_dir)
    : fs_(fs), clock_(clock), queue_dir_(std::move(queue_dir)) {}

std::string QueueStore::ItemFileName(QueuePriority p, WallTime t, const std::string& run_id) {
  return std::string("item_") + (p == QueuePriority::kHigh ? "high_" : "low_") + FormatCompactNanosUTC(t) + "Z_" +
         run_id + ".json";
}

bool QueueStore::ParseItemFileName(const std::string& name, QueuePriority* p, WallTime* t, std::string* run_id) {
  std::string rest;
  if (name.rfind("item_high_", 0) == 0) {
    *p = QueuePriority::kHigh;
    rest = name.substr(10);
  } else if (name.rfind("item_low_", 0) == 0) {
    *p = QueuePriority::kLow;
    rest = name.substr(9);
  } else {
    return false;
  }
  // YYYYMMDD_HHMMSS_nnnnnnnnnZ_<id>.json
  if (rest.size() < 27 + 5 || rest[8] != '_' || rest[15] != '_' || rest[25] != 'Z' || rest[26] != '_') return false;
  if (!Digits(rest, 0, 8) || !Digits(rest, 9, 6) || !Digits(rest, 16, 9)) return false;
  if (rest.compare(rest.size() - 5, 5, ".json") != 0) return false;
  if (!ParseCompactFractionUTC(rest.substr(0, 25), t).ok()) return false;
  *run_id = rest.substr(27, rest.size() - 27 - 5);
  return !run_id->empty();
}

Status QueueStore::Enqueue(const std::string& queue, QueuePriority priority, const std::string& dag_name,
                           const std::string& run_id, QueueItem* out) {
  WallTime now = clock_->Now();
  QueueItem item;
  item.queue = queue;
  item.priority = priority;
  item.queued_at = now;
  item.dag_name = dag_name;
  item.run_id = run_id;
  item.file_name = ItemFileName(priority, now, run_id);
  const std::string dir = JoinPath(queue_dir_, queue);
  item.path = JoinPath(dir, item.file_name);
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(dir, 0750));
  Json content = Json::object();
  content["fileName"] = item.file_name;
  content["dagRun"] = Json{{"name", dag_name}, {"id", run_id}};
  content["queuedAt"] = FormatRFC3339NanoUTC(now);
  // Dagu writes "queue_*" temp files; WriteFileAtomic writes "<path>.tmp.*",
  // which Dagu's item glob never matches either.
  DAGU_RETURN_IF_ERROR(fs_->WriteFileAtomic(item.path, JsonText(content), 0600));
  // Current Dagu keeps a read index per queue that does not pick up items
  // of other writers; deleting it makes Dagu rebuild it.
  fs_->RemoveFile(JoinPath(dir, ".queue-index.json")).IgnoreError();  // usually absent
  *out = std::move(item);
  return Status::OK();
}

Status QueueStore::List(const std::string& queue, std::vector<QueueItem>* out) {
  out->clear();
  const std::string dir = JoinPath(queue_dir_, queue);
  std::vector<std::string> names;
  Status s = fs_->ListDir(dir, &names);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  for (const auto& n : names) {
    QueueItem item;
    if (!ParseItemFileName(n, &item.priority, &item.queued_at, &item.run_id)) continue;
    item.queue = queue;
    item.file_name = n;
    item.path = JoinPath(dir, n);
    std::string contents;
    item.content = fs_->ReadFile(item.path, &contents);
    if (item.content.ok()) {
      Json j = Json::parse(contents, nullptr, false);
      if (j.is_object() && j.contains("dagRun") && j["dagRun"].is_object()) {
        JsonFields f(j["dagRun"], "dagRun");
        f.Str("name", &item.dag_name);
      }
      if (item.dag_name.empty()) {
        item.content = Status::Corruption(item.path + ": not a queue item (no dagRun.name in JSON)");
      }
    }
    out->push_back(std::move(item));
  }
  std::sort(out->begin(), out->end(), [](const QueueItem& a, const QueueItem& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.queued_at != b.queued_at) return a.queued_at < b.queued_at;
    return a.file_name < b.file_name;
  });
  return Status::OK();
}

Status QueueStore::ListQueues(std::vector<std::string>* out) {
  out->clear();
  std::vector<std::string> names;
  Status s = fs_->ListDir(queue_dir_, &names);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    if (n.empty() || n[0] == '.') continue;
    std::vector<QueueItem> items;
    if (List(n, &items).ok() && !items.empty()) out->push_back(n);
  }
  return Status::OK();
}

Status QueueStore::FindRunItems(const std::string& queue, const std::string& run_id, std::vector<QueueItem>* out) {
  std::vector<QueueItem> all;
  DAGU_RETURN_IF_ERROR(List(queue, &all));
  out->clear();
  for (auto& i : all) {
    if (i.run_id == run_id) out->push_back(std::move(i));
  }
  return Status::OK();
}

Status QueueStore::RemoveItem(const QueueItem& item) {
  Status s = fs_->RemoveFile(item.path);
  if (!s.ok() && !s.IsNotFound()) return s;
  s = fs_->RemoveFile(ClaimPath(item));
  if (!s.ok() && !s.IsNotFound()) return s;
  fs_->RemoveDir(JoinPath(queue_dir_, item.queue)).IgnoreError();  // only succeeds when empty
  return Status::OK();
}

std::string QueueStore::ClaimPath(const QueueItem& item) const {
  return JoinPath(JoinPath(queue_dir_, item.queue), kClaimPrefix + item.file_name);
}

Status QueueStore::ClaimItem(const QueueItem& item, const std::string& owner) {
  FileInfo info;
  Status s = fs_->Stat(item.path, &info);
  if (s.IsNotFound()) return Status::NotFound("queue item " + item.path + " is gone");
  DAGU_RETURN_IF_ERROR(s);
  s = fs_->CreateFileExclusive(ClaimPath(item), owner, 0600);
  if (s.IsAlreadyExists()) return Status::AlreadyExists("queue item " + item.file_name + " is already claimed");
  return s;
}

Status QueueStore::ReadClaim(const QueueItem& item, QueueClaim* out) {
  const std::string path = ClaimPath(item);
  FileInfo info;
  DAGU_RETURN_IF_ERROR(fs_->Stat(path, &info));
  DAGU_RETURN_IF_ERROR(fs_->ReadFile(path, &out->owner));
  out->mtime = info.mtime;
  return Status::OK();
}

Status QueueStore::ReleaseClaim(const QueueItem& item) {
  Status s = fs_->RemoveFile(ClaimPath(item));
  return s.IsNotFound() ? Status::OK() : s;
}

Status QueueStore::BreakClaim(const QueueItem& item, const QueueClaim& observed) {
  // Move the claim aside first, so a fresh claim made after our check can
  // be recognised and put back instead of being deleted.
  static std::atomic<uint64_t> counter{0};
  const std::string path = ClaimPath(item);
  const std::string aside = path + ".breaking." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  Status s = fs_->Rename(path, aside);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  std::string owner;
  s = fs_->ReadFile(aside, &owner);
  if (s.ok() && owner != observed.owner) {
    // Someone re-claimed it meanwhile: restore unless yet another claim exists.
    FileInfo info;
    if (fs_->Stat(path, &info).IsNotFound()) {
      fs_->Rename(aside, path).LogIfError("restoring the claim " + path);
    } else {
      fs_->RemoveFile(aside).LogIfError("removing " + aside);
    }
    return Status::Aborted("claim of " + item.file_name + " changed; not broken");
  }
  fs_->RemoveFile(aside).LogIfError("removing " + aside);
  return s;
}

}  // namespace dagu
