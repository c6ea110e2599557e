#!/usr/bin/env python3
"""Tests of check_part_deps.py on small trees of its own (run as the ctest part_deps_check)."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_part_deps  # noqa: E402


def make_tree(root, cmake, files):
    root = pathlib.Path(root)
    (root / "CMakeLists.txt").write_text(cmake)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


class CheckPartDepsTest(unittest.TestCase):
    def check(self, cmake, files):
        with tempfile.TemporaryDirectory() as d:
            make_tree(d, cmake, files)
            return check_part_deps.violations(d)

    def test_an_unlisted_part_is_refused_with_file_line_and_fix(self):
        found = self.check("dagu_part(core DEPS spdlog::spdlog)\ndagu_part(store DEPS dagu_dag)\n",
                           {"src/core/a.h": "#pragma once\n",
                            "src/dag/d.h": "#pragma once\n",
                            "src/store/s.cc": '#include <string>\n#include "core/a.h"\n'})
        self.assertEqual(found, ["src/dag/: a folder with code but no dagu_part(dag ...)",
                                 "src/store/s.cc:2: includes part 'core', which dagu_part(store DEPS ...) "
                                 "does not list (add dagu_core)"])

    def test_listed_parts_own_files_and_non_parts_pass(self):
        found = self.check("dagu_part(core DEPS x)\ndagu_part(store\n  DEPS dagu_core)\n",
                           {"src/core/a.h": "#pragma once\n",
                            "src/store/s.h": '#include "core/a.h"\n#include "store/s.h"\n'
                                             '#include "dagu/version.h"\n#include "nlohmann/json.hpp"\n'})
        self.assertEqual(found, [])

    def test_test_deps_count_for_unit_tests_only(self):
        cmake = "dagu_part(core DEPS x)\ndagu_part(cron DEPS dagu_core)\ndagu_part(tick DEPS dagu_core TEST_DEPS dagu_cron)\n"
        files = {"src/core/a.h": "", "src/cron/c.h": "",
                 "src/tick/t_test.cc": '#include "cron/c.h"\n',
                 "src/tick/t.cc": '#include "cron/c.h"\n'}
        found = self.check(cmake, files)
        self.assertEqual(len(found), 1)
        self.assertTrue(found[0].startswith("src/tick/t.cc:1: includes part 'cron'"), found[0])

    def test_this_repository_passes(self):
        root = pathlib.Path(__file__).resolve().parent.parent
        self.assertEqual(check_part_deps.violations(root), [])


if __name__ == "__main__":
    unittest.main()
