// The step graph: names for unnamed steps, name and id rules, depends
// resolution, chain order and cycle detection.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "dag/dag_parse.h"

namespace dagu::dag_internal {
namespace {

constexpr size_t kMaxStepNameLength = 40;

std::string LineOf(const Field& f) { return "line " + std::to_string(PositionOf(f.value).first); }

bool IsValidStepId(const std::string& id) {
  if (id.empty() || !std::isalpha(static_cast<unsigned char>(id[0]))) return false;
  return std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
}

bool IsReservedId(const std::string& name) {
  std::string id = Lower(name);
  for (const char* word : {"env", "params", "args", "stdout", "stderr", "output", "outputs"}) {
    if (id == word) return true;
  }
  return false;
}

// As Dagu 1.30.2 names them: <kind>_<N>, the kind by executor type as
// written (a call is "dag" or "parallel"; `type: command` is "command"), then script (also a multi-line command, or a
// script with command: as its interpreter), then cmd; N is the position of
// the step's element in the list, 1-based (the members of a nested group
// share their group's), raised until the name differs from every name
// generated before it. Names written in the file are not looked at: a
// generated name equal to one of them is a duplicate step name, as in 1.30.2.
void NameUnnamedSteps(std::vector<ParsedStep>& steps) {
  std::set<std::string> generated;
  for (ParsedStep& parsed : steps) {
    Step& step = parsed.step;
    if (parsed.name_given) continue;
    std::string kind = !step.executor_type.empty()   ? step.executor_type
                       : !parsed.type_written.empty() ? parsed.type_written  // type: command -> command_N
                       : !step.script.empty()         ? "script"
                                                      : "cmd";
    size_t n = parsed.element + 1;
    std::string name = kind + "_" + std::to_string(n);
    while (generated.count(name) != 0) name = kind + "_" + std::to_string(++n);
    generated.insert(name);
    step.name = name;
  }
}

void CheckNamesAndIds(ParseContext& ctx, const std::vector<ParsedStep>& steps) {
  std::map<std::string, const ParsedStep*> names;
  for (const ParsedStep& s : steps) {
    const std::string& name = s.step.name;
    if (name.size() > kMaxStepNameLength) {
      ctx.ErrorAt(s.at.value, s.at.path + ".name",
                  "step name " + Quote(name) + " is " + std::to_string(name.size()) + " characters long (at most " +
                      std::to_string(kMaxStepNameLength) + ")",
                  name);
    }
    auto [it, inserted] = names.emplace(name, &s);
    if (!inserted) {
      ctx.ErrorAt(s.at.value, s.at.path + ".name",
                  "duplicate step name " + Quote(name) + " (first at " + LineOf(it->second->at) + ")", name);
    }
  }
  std::map<std::string, const ParsedStep*> ids;
  for (const ParsedStep& s : steps) {
    const std::string& id = s.step.id;
    if (id.empty()) continue;
    std::string path = s.at.path + ".id";
    if (!IsValidStepId(id)) {
      ctx.ErrorAt(s.at.value, path,
                  "step id " + Quote(id) + " must start with a letter and contain only letters, digits, '_' and '-'",
                  id);
    } else if (IsReservedId(id)) {
      ctx.ErrorAt(s.at.value, path, "step id " + Quote(id) + " is a reserved word", id);
    }
    auto [it, inserted] = ids.emplace(id, &s);
    if (!inserted) {
      ctx.ErrorAt(s.at.value, path, "duplicate step id " + Quote(id) + " (first at " + LineOf(it->second->at) + ")",
                  id);
    }
    auto named = names.find(id);
    if (named != names.end() && named->second != &s) {
      ctx.ErrorAt(s.at.value, path,
                  "step id " + Quote(id) + " is the name of another step (at " + LineOf(named->second->at) + ")", id);
    }
  }
}

// Resolves depends entries to step names; unknown targets are reported.
void ResolveDepends(ParseContext& ctx, std::vector<ParsedStep>& steps) {
  std::map<std::string, std::string> target;  // name or id -> name
  std::vector<std::string> known;
  for (const ParsedStep& s : steps) {
    if (!s.step.id.empty()) target.emplace(s.step.id, s.step.name);
    known.push_back(s.step.id.empty() ? s.step.name : s.step.id);
  }
  for (const ParsedStep& s : steps) target[s.step.name] = s.step.name;
  for (const ParsedStep& s : steps) {
    if (std::find(known.begin(), known.end(), s.step.name) == known.end()) known.push_back(s.step.name);
  }
  for (ParsedStep& s : steps) {
    for (const Field& dep : s.depends) {
      std::string ref;
      if (!dep.value.IsScalar() || KindOf(dep.value) == ScalarKind::kNull) {
        ctx.Error(dep, "a depends entry must be a step name");
        continue;
      }
      ref = Trim(dep.value.Scalar());
      auto it = target.find(ref);
      if (it == target.end()) {
        std::string msg = "step " + Quote(s.step.name) + " depends on unknown step " + Quote(ref);
        std::string near = ClosestMatch(ref, known);
        if (!near.empty()) msg += "; did you mean " + Quote(near) + "?";
        ctx.Error(dep, msg);
        continue;
      }
      if (it->second == s.step.name) {
        ctx.Error(dep, "step " + Quote(s.step.name) + " depends on itself");
        continue;
      }
      if (std::find(s.step.depends.begin(), s.step.depends.end(), it->second) == s.step.depends.end()) {
        s.step.depends.push_back(it->second);
      }
    }
  }
}

// type: chain -- each list element also depends on all steps of the element
// before it, unless it wrote depends: [].
void AddChainOrder(std::vector<ParsedStep>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    ParsedStep& s = steps[i];
    if (s.no_implicit_deps || s.element == 0) continue;
    // The previous element is the nearest lower element index present.
    size_t previous = 0;
    bool found = false;
    for (const ParsedStep& p : steps) {
      if (p.element < s.element && (!found || p.element > previous)) previous = p.element, found = true;
    }
    if (!found) continue;
    for (const ParsedStep& p : steps) {
      if (p.element != previous) continue;
      auto& deps = s.step.depends;
      if (std::find(deps.begin(), deps.end(), p.step.name) == deps.end()) deps.push_back(p.step.name);
    }
  }
}

class CycleFinder {
 public:
  // `warn_only`: as Dagu 1.30.2, which accepts a cycle at load and refuses
  // the run (CheckRunnable).
  CycleFinder(ParseContext& ctx, const std::vector<ParsedStep>& steps, bool warn_only)
      : ctx_(ctx), steps_(steps), warn_only_(warn_only) {
    for (size_t i = 0; i < steps.size(); ++i) index_.emplace(steps[i].step.name, i);
  }

  void Run() {
    state_.assign(steps_.size(), 0);
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (state_[i] == 0) Visit(i);
    }
  }

 private:
  void Visit(size_t i) {
    state_[i] = 1;
    stack_.push_back(i);
    for (const std::string& dep : steps_[i].step.depends) {
      auto it = index_.find(dep);
      if (it == index_.end()) continue;
      size_t j = it->second;
      if (state_[j] == 1) {
        Report(j);
      } else if (state_[j] == 0) {
        Visit(j);
      }
    }
    stack_.pop_back();
    state_[i] = 2;
  }

  // The stack from j to the top is a cycle (each depends on the next).
  void Report(size_t j) {
    auto start = std::find(stack_.begin(), stack_.end(), j);
    std::string path;
    for (auto it = start; it != stack_.end(); ++it) path += Quote(steps_[*it].step.name) + " -> ";
    path += Quote(steps_[j].step.name);
    const ParsedStep& s = steps_[j];
    const YAML::Node& where = s.depends.empty() ? s.at.value : s.depends.front().value;
    std::string msg = "cyclic dependency: " + path + " (A -> B: A depends on B)";
    if (warn_only_) ctx_.WarningAt(where, s.at.path + ".depends", msg + "; a run of this DAG fails to start");
    else ctx_.ErrorAt(where, s.at.path + ".depends", msg);
  }

  ParseContext& ctx_;
  const std::vector<ParsedStep>& steps_;
  bool warn_only_;
  std::map<std::string, size_t> index_;
  std::vector<int> state_;  // 0 new, 1 on the stack, 2 done
  std::vector<size_t> stack_;
};

}  // namespace

std::vector<Step> FinalizeSteps(ParseContext& ctx, std::vector<ParsedStep> steps, DagType type, bool list_form,
                                DagDialect dialect) {
  ParseContext::StepScope scope(&ctx);
  if (dialect == DagDialect::kDagu130) {
    for (ParsedStep& s : steps) ResolveRunCall(ctx, s, &s.step);
  }
  NameUnnamedSteps(steps);
  CheckNamesAndIds(ctx, steps);
  ResolveDepends(ctx, steps);
  if (type == DagType::kChain && list_form) AddChainOrder(steps);
  CycleFinder(ctx, steps, dialect == DagDialect::kDagu130).Run();
  std::vector<Step> out;
  out.reserve(steps.size());
  for (ParsedStep& s : steps) out.push_back(std::move(s.step));
  return out;
}

}  // namespace dagu::dag_internal
