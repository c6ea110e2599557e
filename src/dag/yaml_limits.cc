#include "dag/yaml_limits.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <unordered_map>

namespace dagu {
namespace {

// Thrown out of the parser by the scan at the first problem.
struct ScanStop {
  YamlProblem problem;
};

YamlProblem At(const YAML::Mark& mark, std::string message) {
  YamlProblem p;
  p.message = std::move(message);
  if (!mark.is_null()) {
    p.line = mark.line;
    p.column = mark.column;
  }
  return p;
}

// Counts the nodes of the expanded tree, the depth, and checks aliases and
// that each document advances the parser.
class LimitScan final : public YAML::EventHandler {
 public:
  explicit LimitScan(const YamlLimits& limits) : limits_(limits) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (previous_start_ >= 0 && mark.pos == previous_start_) {
      // yaml-cpp 0.7 would start this "document" here forever.
      throw ScanStop{At(mark, "YAML syntax error: did not find expected node content")};
    }
    previous_start_ = mark.pos;
    sizes_.clear();  // anchors are per document
    open_.clear();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    Leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = sizes_.find(anchor);
    if (it == sizes_.end()) {
      throw ScanStop{At(mark, "an alias names a node it is part of (a recursive alias); the DAG file cannot "
                              "refer to itself")};
    }
    Count(mark, it->second);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    YAML::anchor_t anchor;
    uint64_t start;  // nodes counted before this one
  };

  void Count(const YAML::Mark& mark, uint64_t n) {
    nodes_ += n;
    if (nodes_ > limits_.max_nodes) {
      throw ScanStop{At(mark, "the YAML has more than " + std::to_string(limits_.max_nodes) +
                                  " nodes (the limit of a DAG file; an alias counts as every node of what it "
                                  "names, so nested aliases multiply)")};
    }
  }
  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    Count(mark, 1);
    if (anchor != YAML::NullAnchor) sizes_[anchor] = 1;
  }
  void Open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (static_cast<int>(open_.size()) >= limits_.max_depth) {
      throw ScanStop{At(mark, "the YAML nests lists and mappings more than " + std::to_string(limits_.max_depth) +
                                  " deep (the limit of a DAG file)")};
    }
    open_.push_back(Frame{anchor, nodes_});
    Count(mark, 1);
  }
  void Close() {
    if (open_.empty()) return;
    Frame f = open_.back();
    open_.pop_back();
    if (f.anchor != YAML::NullAnchor) sizes_[f.anchor] = nodes_ - f.start;
  }

  const YamlLimits& limits_;
  uint64_t nodes_ = 0;  // over all documents
  int64_t previous_start_ = -1;
  std::unordered_map<YAML::anchor_t, uint64_t> sizes_;  // complete anchored nodes -> expanded size
  std::vector<Frame> open_;
};

YamlProblem SyntaxProblem(const YAML::Exception& e) {
  return At(e.mark, "YAML syntax error: " + e.msg);
}

}  // namespace

bool ParseYamlBounded(std::string_view text, const YamlLimits& limits, std::vector<YAML::Node>* docs,
                      YamlProblem* problem) {
  docs->clear();
  const std::string copy(text);
  try {
    std::istringstream in(copy);
    YAML::Parser parser(in);
    LimitScan scan(limits);
    while (parser.HandleNextDocument(scan)) {
    }
    *docs = YAML::LoadAll(copy);
    return true;
  } catch (const ScanStop& stop) {
    *problem = stop.problem;
  } catch (const YAML::Exception& e) {
    *problem = SyntaxProblem(e);
  }
  docs->clear();
  return false;
}

bool ParseYamlDocumentBounded(std::string_view text, const YamlLimits& limits, YAML::Node* doc,
                              YamlProblem* problem) {
  std::vector<YAML::Node> docs;
  if (!ParseYamlBounded(text, limits, &docs, problem)) return false;
  *doc = docs.empty() ? YAML::Node(YAML::NodeType::Null) : docs[0];
  return true;
}

}  // namespace dagu
