#include "auth/user_store.h"

#include "auth/auth_layout.h"
#include "auth/record_json.h"

#include "core/json_text.h"
#include "core/time_format.h"

namespace dagu::auth {

std::string UserToJson(const User& user) {
  RecordJson j;
  j["id"] = user.id;
  j["username"] = user.username;
  j["password_hash"] = user.password_hash;
  j["role"] = std::string(RoleName(user.role));
  j["created_at"] = FormatRFC3339NanoUTC(user.created_at);
  j["updated_at"] = FormatRFC3339NanoUTC(user.updated_at);
  if (user.disabled) j["disabled"] = true;
  return JsonText(j, 2);
}

Status UserFromJson(const std::string& text, User* out) {
  RecordJson j = RecordJson::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption("not a JSON object");
  User u;
  std::string role;
  for (Status s : {ReadStringField(j, "id", &u.id), ReadStringField(j, "username", &u.username),
                   ReadStringField(j, "password_hash", &u.password_hash), ReadStringField(j, "role", &role),
                   ReadTimeField(j, "created_at", &u.created_at), ReadTimeField(j, "updated_at", &u.updated_at)}) {
    if (!s.ok()) return s;
  }
  std::optional<Role> parsed = ParseRole(role);
  if (!parsed) return Status::Corruption("unknown role \"" + role + "\"");
  u.role = *parsed;
  if (auto it = j.find("disabled"); it != j.end()) {
    if (!it->is_boolean()) return Status::Corruption("\"disabled\" is not a boolean");
    u.disabled = it->get<bool>();
  }
  *out = std::move(u);
  return Status::OK();
}

StatusOr<User> UserStore::GetById(const std::string& id) {
  if (id.empty()) return Status::InvalidArgument("user id is required");
  StatusOr<std::string> text = dir_.Read(id);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return Status::NotFound("user not found");
    return text.status();
  }
  User user;
  Status s = UserFromJson(*text, &user);
  if (!s.ok()) return s.WithContext(RecordPath(dir_.dir(), id));
  return user;
}

StatusOr<std::vector<User>> UserStore::List() {
  StatusOr<std::vector<std::string>> ids = dir_.ListIds();
  if (!ids.ok()) return ids.status();
  std::vector<User> users;
  for (const std::string& id : *ids) {
    StatusOr<User> user = GetById(id);
    if (user.ok()) {
      users.push_back(std::move(user).value());
    } else if (!user.status().IsNotFound()) {
      user.status().LogIfError("skipping a user file");
    }
  }
  return users;
}

StatusOr<User> UserStore::GetByUsername(const std::string& username) {
  if (username.empty()) return Status::InvalidArgument("username is required");
  StatusOr<std::vector<User>> users = List();
  if (!users.ok()) return users.status();
  for (User& u : *users) {
    if (u.username == username) return std::move(u);
  }
  return Status::NotFound("user not found");
}

Status UserStore::Create(const User& user) {
  if (user.id.empty()) return Status::InvalidArgument("user id is required");
  if (user.username.empty()) return Status::InvalidArgument("username is required");
  StatusOr<std::vector<User>> users = List();
  if (!users.ok()) return users.status();
  for (const User& u : *users) {
    if (u.id == user.id || u.username == user.username) return Status::AlreadyExists("user already exists");
  }
  return dir_.Write(user.id, UserToJson(user));
}

Status UserStore::Update(const User& user) {
  if (user.id.empty()) return Status::InvalidArgument("user id is required");
  if (user.username.empty()) return Status::InvalidArgument("username is required");
  StatusOr<std::vector<User>> users = List();
  if (!users.ok()) return users.status();
  bool found = false;
  for (const User& u : *users) {
    if (u.id == user.id) found = true;
    else if (u.username == user.username) return Status::AlreadyExists("user already exists");
  }
  if (!found) return Status::NotFound("user not found");
  return dir_.Write(user.id, UserToJson(user));
}

Status UserStore::Delete(const std::string& id) {
  if (id.empty()) return Status::InvalidArgument("user id is required");
  Status s = dir_.Remove(id);
  if (s.IsNotFound()) return Status::NotFound("user not found");
  return s;
}

StatusOr<size_t> UserStore::Count() {
  StatusOr<std::vector<User>> users = List();
  if (!users.ok()) return users.status();
  return users->size();
}

}  // namespace dagu::auth
