#include "auth/record_dir.h"

#include <cstdio>

#include "auth/auth_layout.h"
#include "auth/secret_hash.h"

namespace dagu::auth {

Status RecordDir::Init() { return fs_->MakeDirs(dir_, kRecordDirMode); }

StatusOr<std::string> RecordDir::Read(const std::string& id) {
  if (!IsSafeRecordId(id)) return Status::InvalidArgument("invalid id");
  std::string text;
  Status s = fs_->ReadFile(RecordPath(dir_, id), &text);
  if (!s.ok()) return s;
  return text;
}

Status RecordDir::Write(const std::string& id, const std::string& text) {
  if (!IsSafeRecordId(id)) return Status::InvalidArgument("invalid id");
  return fs_->WriteFileAtomic(RecordPath(dir_, id), text, kRecordFileMode);
}

Status RecordDir::Remove(const std::string& id) {
  if (!IsSafeRecordId(id)) return Status::InvalidArgument("invalid id");
  return fs_->RemoveFile(RecordPath(dir_, id));
}

StatusOr<std::vector<std::string>> RecordDir::ListIds() {
  std::vector<std::string> names;
  Status s = fs_->ListDir(dir_, &names);
  if (s.IsNotFound()) return std::vector<std::string>{};
  if (!s.ok()) return s;
  std::vector<std::string> ids;
  for (const std::string& name : names) {
    if (name.size() <= kRecordExtension.size() || !name.ends_with(kRecordExtension)) continue;
    std::string id = name.substr(0, name.size() - kRecordExtension.size());
    if (IsSafeRecordId(id)) ids.push_back(std::move(id));
  }
  return ids;
}

StatusOr<std::string> NewRecordId() {
  StatusOr<std::string> random = RandomBytes(16);
  if (!random.ok()) return random.status();
  auto b = reinterpret_cast<unsigned char*>(random->data());
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof(out), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return std::string(out);
}

}  // namespace dagu::auth
