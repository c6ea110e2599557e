#include "web/dag_files.h"

#include <algorithm>

#include "dag/dag_names.h"

namespace dagu::web {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsYamlFile(const std::string& name) {
  return !name.empty() && name[0] != '.' && (EndsWith(name, ".yaml") || EndsWith(name, ".yml"));
}

std::string Stem(const std::string& name) {
  if (EndsWith(name, ".yaml")) return name.substr(0, name.size() - 5);
  if (EndsWith(name, ".yml")) return name.substr(0, name.size() - 4);
  return name;
}

}  // namespace

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
  LoadDagOptions options = options_;
  options.metadata_only = metadata_only;
  Dag dag;
  std::vector<DagError> errors;
  Status s = LoadDag(path, options, &dag, &errors);
  for (const DagError& e : errors) {
    if (e.is_error()) f.errors.push_back(e.ToString());
  }
  if (s.ok()) {
    f.dag = std::move(dag);
  } else if (f.errors.empty()) {
    f.errors.push_back(s.message());
  }
  FileInfo info;
  f.suspended = fs_->Stat(FlagPath(path), &info).ok();
  return f;
}

Status DagFiles::List(bool metadata_only, std::vector<DagFile>* out) const {
  out->clear();
  std::vector<std::string> names;
  Status s = fs_->ListDir(dags_dir_, &names);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s.WithContext("listing the DAG directory " + dags_dir_);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (!IsYamlFile(name)) continue;
    out->push_back(Load(name, JoinPath(dags_dir_, name), metadata_only));
  }
  return Status::OK();
}

Status DagFiles::Find(const std::string& file_name, DagFile* out) const {
  DAGU_RETURN_IF_ERROR(ValidateDagFileName(file_name));
  std::string stem = Stem(file_name);
  for (const char* ext : {".yaml", ".yml"}) {
    std::string path = JoinPath(dags_dir_, stem + ext);
    FileInfo info;
    if (fs_->Stat(path, &info).ok() && !info.is_dir) {
      *out = Load(stem + ext, path, /*metadata_only=*/false);
      return Status::OK();
    }
  }
  return Status::NotFound("no DAG file \"" + stem + ".yaml\" in " + dags_dir_);
}

Status DagFiles::FindByDagName(const std::string& dag_name, DagFile* out) const {
  if (Find(dag_name, out).ok() && out->DagName() == dag_name) return Status::OK();
  std::vector<DagFile> all;
  DAGU_RETURN_IF_ERROR(List(/*metadata_only=*/true, &all));
  for (DagFile& f : all) {
    if (f.DagName() == dag_name) return Find(f.file_name, out);
  }
  return Status::NotFound("no DAG named \"" + dag_name + "\" in " + dags_dir_);
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

}  // namespace dagu::web
