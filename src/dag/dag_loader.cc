#include "dag/dag_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "dag/dag_names.h"
#include "dag/dag_parse.h"
#include "dag/yaml_limits.h"

namespace dagu {
namespace {

using dag_internal::ParseContext;
using dag_internal::Quote;
using dag_internal::Trim;
using dag_internal::RootOptions;

FileSystem* FsOf(const LoadDagOptions& options) {
  return options.fs != nullptr ? options.fs : PosixFileSystem();
}

DagError FileError(const std::string& file, std::string message) {
  DagError e;
  e.file = file;
  e.message = std::move(message);
  return e;
}

// Parses every YAML document of `text` within the limits of a DAG file
// (dag/yaml_limits.h); false (after reporting) on a syntax error or a file
// over the limits.
bool ParseYaml(const std::string& file, std::string_view text, std::vector<YAML::Node>* docs,
               std::vector<DagError>* errors) {
  YamlProblem problem;
  if (ParseYamlBounded(text, kDagYamlLimits, docs, &problem)) return true;
  DagError err = FileError(file, problem.message);
  if (problem.line >= 0) {
    err.line = problem.line + 1;
    err.column = problem.column + 1;
  }
  errors->push_back(std::move(err));
  return false;
}

// Applies the base config's values to *dag. A missing base file is no error.
void ApplyBase(const LoadDagOptions& options, Dag* dag, std::vector<DagError>* errors) {
  if (options.base_config.empty()) return;
  std::string text;
  Status s = FsOf(options)->ReadFile(options.base_config, &text);
  if (s.IsNotFound()) return;
  if (!s.ok()) {
    errors->push_back(FileError(options.base_config, "cannot read the base config: " + s.message()));
    return;
  }
  std::vector<YAML::Node> docs;
  if (!ParseYaml(options.base_config, text, &docs, errors)) return;
  if (docs.empty() || docs[0].IsNull()) return;
  ParseContext ctx(options.base_config, errors, options.metadata_only);
  RootOptions root_options;
  root_options.zone = options.default_zone;
  root_options.is_base = true;
  dag_internal::ParseRoot(ctx, docs[0], root_options, dag);
  if (options.skip_base_handlers) dag->handler_on = HandlerOn();
}

std::string AbsolutePath(const std::string& path) {
  if (path.empty()) return "";
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec) return path;
  return abs.lexically_normal().string();
}

// Empty -> the default (or the DAG file's directory); a plain relative path
// -> joined to the DAG file's directory.
void ResolveWorkingDir(const std::string& default_dir, Dag* dag) {
  if (dag->location.empty()) return;
  std::string dir = DirName(dag->location);
  std::string& wd = dag->working_dir;
  if (wd.empty()) {
    wd = default_dir.empty() ? dir : AbsolutePath(default_dir);
  } else if (wd[0] != '/' && wd[0] != '$' && wd[0] != '~') {
    wd = std::filesystem::path(JoinPath(dir, wd)).lexically_normal().string();
    if (wd.size() > 1 && wd.back() == '/') wd.pop_back();
  }
}

Status Summarize(const std::string& path, const std::vector<DagError>& errors, size_t first) {
  size_t count = 0;
  const DagError* first_error = nullptr;
  for (size_t i = first; i < errors.size(); ++i) {
    if (!errors[i].is_error()) continue;
    if (first_error == nullptr) first_error = &errors[i];
    ++count;
  }
  if (first_error == nullptr) return Status::OK();
  std::string msg = path + ": " + std::to_string(count) + (count == 1 ? " error" : " errors") + "; first: " +
                    first_error->ToString();
  return Status::InvalidArgument(msg);
}

// The value node of the root's name key, whatever its spelling.
YAML::Node NameValue(const YAML::Node& root) {
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.IsScalar() && dag_internal::FoldKey(it->first.Scalar()) == "name") return it->second;
  }
  return YAML::Node();
}

bool IsDagFileName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  auto ends = [&](const std::string& ext) {
    return name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

}  // namespace

Status LoadDagFromString(std::string_view yaml, const std::string& path, const LoadDagOptions& options, Dag* out,
                         std::vector<DagError>* errors) {
  const size_t first = errors->size();
  *out = Dag();
  out->location = AbsolutePath(path);
  out->yaml_data = std::string(yaml);
  ApplyBase(options, out, errors);

  std::vector<YAML::Node> docs;
  if (ParseYaml(path, yaml, &docs, errors)) {
    ParseContext ctx(path, errors, options.metadata_only);
    ctx.set_crlf(yaml.find("\r\n") != std::string_view::npos);
    if (docs.empty() || docs[0].IsNull()) {
      errors->push_back(FileError(path, "the file is empty; a DAG needs at least steps:"));
    } else {
      RootOptions root_options;
      root_options.zone = options.default_zone;
      bool name_given = dag_internal::ParseRoot(ctx, docs[0], root_options, out);
      if (!name_given) out->name = DagNameFromPath(path);
      std::string problem = DagNameProblem(out->name);
      if (!problem.empty()) {
        if (name_given) {
          ctx.ErrorAt(NameValue(docs[0]), "name", problem, out->name);
        } else {
          ctx.ErrorAt(YAML::Node(), "name", problem + "; the name comes from the file name: add name: or rename",
                      out->name);
        }
      }
      if (docs.size() > 1) dag_internal::LoadLocalDags(ctx, yaml, path, options, out, errors);
    }
  }
  ResolveWorkingDir(options.default_working_dir, out);
  return Summarize(path, *errors, first);
}

Status LoadDag(const std::string& path, const LoadDagOptions& options, Dag* out, std::vector<DagError>* errors) {
  std::string text;
  Status s = FsOf(options)->ReadFile(path, &text);
  if (!s.ok()) {
    *out = Dag();
    errors->push_back(FileError(path, "cannot read the DAG file: " + s.message()));
    return s;
  }
  return LoadDagFromString(text, path, options, out, errors);
}

Status CheckRunnable(const Dag& dag) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < dag.steps.size(); ++i) index[dag.steps[i].name] = i;
  std::vector<int> state(dag.steps.size(), 0);  // 0 new, 1 on the path, 2 done
  std::function<bool(size_t)> cyclic = [&](size_t i) {
    state[i] = 1;
    for (const auto& dep : dag.steps[i].depends) {
      auto it = index.find(dep);
      if (it == index.end()) continue;
      if (state[it->second] == 1 || (state[it->second] == 0 && cyclic(it->second))) return true;
    }
    state[i] = 2;
    return false;
  };
  for (size_t i = 0; i < dag.steps.size(); ++i) {
    if (state[i] == 0 && cyclic(i)) {
      return Status::InvalidArgument("failed to setup execution plan: cyclic plan detected");
    }
  }
  return Status::OK();
}

std::vector<DagLoadResult> LoadDagDirectory(const std::string& dir, const LoadDagOptions& options) {
  std::vector<DagLoadResult> results;
  std::vector<std::string> names;
  Status s = FsOf(options)->ListDir(dir, &names);
  if (!s.ok()) {
    DagLoadResult r;
    r.path = dir;
    r.errors.push_back(FileError(dir, "cannot list the DAGs directory: " + s.message()));
    results.push_back(std::move(r));
    return results;
  }
  names.erase(std::remove_if(names.begin(), names.end(), [](const std::string& n) { return !IsDagFileName(n); }),
              names.end());
  std::sort(names.begin(), names.end());
  std::map<std::string, std::string> owner;  // DAG name -> first file
  for (const std::string& name : names) {
    DagLoadResult r;
    r.path = JoinPath(dir, name);
    Dag dag;
    if (LoadDag(r.path, options, &dag, &r.errors).ok()) {
      auto [it, inserted] = owner.emplace(dag.name, r.path);
      if (inserted) {
        r.dag = std::move(dag);
      } else {
        r.errors.push_back(FileError(r.path, "DAG name \"" + dag.name + "\" is already used by " + it->second +
                                                 "; DAGs sharing a name share history, queue and run IDs"));
        r.errors.back().key = "name";
      }
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace dagu
