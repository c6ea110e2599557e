// The one test body of every API differential file: runs
// tests/compat/api/cases/<file> (api_diff_harness.h) and fails naming each
// case that differs from Dagu 1.30.2 without a `known_difference`; known
// differences and the file's summary are printed. Skips with the reason when
// the peer binary cannot be had.
#pragma once

#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "api_diff_harness.h"

namespace dagu::testing {

inline void ExpectApiCaseFileSameAsDagu(const std::string& file) {
  ApiDiffReport r = RunApiCaseFile(file);
  if (!r.skipped.empty()) GTEST_SKIP() << r.skipped;
  ASSERT_TRUE(r.problem.empty()) << r.problem;
  ASSERT_FALSE(r.cases.empty());
  for (const auto& c : r.cases) {
    if (!c.ok()) {
      ADD_FAILURE() << c.Describe();
    } else if (!c.same()) {
      std::cout << "known difference: " << c.Describe();
    }
  }
  std::cout << file << ": " << r.Summary() << "\n";
}

}  // namespace dagu::testing
