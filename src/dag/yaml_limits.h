// The one way DAG YAML (a DAG file, its base config, each document of a
// multi-DAG file) is parsed: bounded, so that no file can make a load slow or
// end the process (docs/dag-format.md, "Limits of a DAG file").
//
// yaml-cpp shares an aliased node instead of copying it, so parsing a
// "billion laughs" file (a0: &x0 [lol, ...], a1: &x1 [*x0, *x0, ...], ...) is
// cheap; what is not is every walk of the tree that follows the aliases
// (an env or params value printed as Go prints it, an executor config turned
// into JSON, a merge key): each visits the expanded tree, 10^8 nodes for a
// 500-byte file. An alias to a node that contains it (`a: &a [*a]`) makes the
// tree a cycle that such a walk never leaves (it ended the process on a stack
// overflow). So before the tree is built, one pass over the parser's events
// (linear in the file) checks:
//
//   - nodes: at most kMaxNodes per file, counting each alias as the number
//     of nodes it stands for, so the expanded tree every later walk may visit
//     is bounded, and so is the time of that walk;
//   - depth: at most kMaxDepth nested lists and mappings;
//   - an alias must name a node that is complete (not one it is inside);
//   - every document must advance the parser (yaml-cpp 0.7 never ends
//     YAML::LoadAll on a ',' where a node should be: found by fuzzing).
//
// The limits are deterministic (no clock): whether a file is valid never
// depends on the host's load. The pass stops at the first excess, so a
// rejected file costs at most kMaxNodes events.
//
// Thread-compatible: no state.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dagu {

struct YamlLimits {
  // Nodes per file (all documents), each alias counted as the nodes of what
  // it names. A large real DAG (1,000 steps of 20 keys) has ~50,000.
  uint64_t max_nodes = 200'000;
  // Lists and mappings nested in one another (the root mapping is 1). A DAG
  // nests ~5 deep; an executor config a few more.
  int max_depth = 64;
};

inline constexpr YamlLimits kDagYamlLimits{};

// Why a parse failed: the message, and where (0-based line/column; -1 when
// the parser gave no position).
struct YamlProblem {
  std::string message;
  int line = -1;
  int column = -1;
};

// Checks `text` against `limits` and parses every document into *docs.
// False, with *problem set, on a syntax error ("YAML syntax error: ...") or
// a file over the limits (the message names the limit and says what counted).
bool ParseYamlBounded(std::string_view text, const YamlLimits& limits, std::vector<YAML::Node>* docs,
                      YamlProblem* problem);

// As ParseYamlBounded, for text that must be one document (or none: *doc is
// then Null).
bool ParseYamlDocumentBounded(std::string_view text, const YamlLimits& limits, YAML::Node* doc,
                              YamlProblem* problem);

}  // namespace dagu
