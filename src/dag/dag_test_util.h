// Helpers for the DAG loader's unit tests: load YAML text and look at the
// problems found.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dag/dag_loader.h"

namespace dagu::testing {

struct Loaded {
  Status status;
  Dag dag;
  std::vector<DagError> errors;  // errors and warnings

  std::vector<DagError> Errors() const {
    std::vector<DagError> out;
    for (const DagError& e : errors) {
      if (e.is_error()) out.push_back(e);
    }
    return out;
  }
  std::vector<DagError> Warnings() const {
    std::vector<DagError> out;
    for (const DagError& e : errors) {
      if (!e.is_error()) out.push_back(e);
    }
    return out;
  }
  // Every problem, one per line, for assertion messages.
  std::string Dump() const {
    std::string out;
    for (const DagError& e : errors) out += e.ToString() + "\n";
    return out;
  }
  // The first error whose ToString() contains `text`, or null.
  const DagError* Find(const std::string& text) const {
    for (const DagError& e : errors) {
      if (e.is_error() && e.ToString().find(text) != std::string::npos) return &e;
    }
    return nullptr;
  }
};

inline Loaded LoadYaml(const std::string& yaml, const LoadDagOptions& options = {},
                       const std::string& path = "/dags/sample.yaml") {
  Loaded l;
  l.status = LoadDagFromString(yaml, path, options, &l.dag, &l.errors);
  return l;
}

// Checks exactly one error, containing `text`, at `line`:`column`.
inline void ExpectOneError(const Loaded& l, const std::string& text, int line, int column) {
  EXPECT_FALSE(l.status.ok());
  ASSERT_EQ(l.Errors().size(), 1u) << l.Dump();
  const DagError e = l.Errors()[0];
  EXPECT_NE(e.ToString().find(text), std::string::npos) << "wanted: " << text << "\n" << l.Dump();
  EXPECT_EQ(e.line, line) << l.Dump();
  EXPECT_EQ(e.column, column) << l.Dump();
}

}  // namespace dagu::testing

// Asserts that loading succeeded without errors.
#define EXPECT_LOADS(loaded) EXPECT_TRUE((loaded).status.ok()) << (loaded).Dump()

#define EXPECT_ONE_ERROR(loaded, text, line_no, col_no)                   \
  do {                                                                    \
    SCOPED_TRACE("EXPECT_ONE_ERROR");                                     \
    ::dagu::testing::ExpectOneError((loaded), (text), (line_no), (col_no)); \
  } while (0)
