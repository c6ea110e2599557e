// UserStore: the builtin mode's users, one "<id>.json" file each under the
// users directory, in Dagu 1.30.2's format (internal/auth/user.go
// UserForStorage):
//
//   {"id": "<uuid>", "username": "...", "password_hash": "$2a$12$...",
//    "role": "admin", "created_at": "<RFC3339Nano>", "updated_at": "..."}
//
// so a user either binary created logs in on the other. Usernames are
// unique (checked by reading the directory; two processes creating the same
// name at the same instant can both succeed, as with 1.30.2's per-process
// index). A file that does not parse is skipped by List and GetByUsername
// (1.30.2 skips it too) and is Corruption for GetById.
#pragma once

#include <string>
#include <vector>

#include "auth/record_dir.h"
#include "auth/role.h"
#include "core/clock.h"

namespace dagu::auth {

struct User {
  std::string id;
  std::string username;
  std::string password_hash;
  Role role = Role::kViewer;
  WallTime created_at;
  WallTime updated_at;
  // Ours (1.30.2 has no way to disable a user): a disabled user cannot log
  // in and its tokens are refused. Kept in the file as "disabled": true only
  // when set, so the file of an enabled user is 1.30.2's text; 1.30.2 reads
  // past the key (and drops it when it rewrites the file).
  bool disabled = false;
};

// The file's text for `user` (Go's json.MarshalIndent with two spaces).
std::string UserToJson(const User& user);
// Corruption naming what is wrong when `text` is not a user record.
Status UserFromJson(const std::string& text, User* out);

class UserStore {
 public:
  UserStore(FileSystem* fs, std::string users_dir) : dir_(fs, std::move(users_dir)) {}

  Status Init() { return dir_.Init(); }

  // AlreadyExists when the id or the username is taken; InvalidArgument for
  // an empty id or username.
  Status Create(const User& user);
  // NotFound when missing.
  StatusOr<User> GetById(const std::string& id);
  StatusOr<User> GetByUsername(const std::string& username);
  StatusOr<std::vector<User>> List();
  // NotFound when the id is missing; AlreadyExists when a renamed username
  // belongs to another user.
  Status Update(const User& user);
  Status Delete(const std::string& id);
  StatusOr<size_t> Count();

 private:
  RecordDir dir_;
};

}  // namespace dagu::auth
