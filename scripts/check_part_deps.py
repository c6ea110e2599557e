#!/usr/bin/env python3
"""Checks that every part includes only the parts its dagu_part() lists.

Each src/<part>/ folder is one library, declared in CMakeLists.txt as
  dagu_part(<part> DEPS dagu_a dagu_b ... [TEST_DEPS dagu_c ...])
A production file of <part> (src/<part>/*.h, *.cc except *_test.cc) may
include "<other>/x.h" only if dagu_<other> is in DEPS; a unit test
(src/<part>/*_test.cc) also if it is in TEST_DEPS. Other includes ("dagu/...",
system and third-party headers) are not parts and are not checked.

Usage: check_part_deps.py [SOURCE_DIR]   (default: the repository root)
Prints one line per include of an unlisted part and exits 1 if there is any.
"""
import pathlib
import re
import sys

PART_RE = re.compile(r"^\s*dagu_part\(\s*(\w+)([^)]*)\)", re.M)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/', re.M)


def declared_parts(cmake_text):
    """{part: (deps, test_deps)} from the dagu_part() calls."""
    parts = {}
    for name, args in PART_RE.findall(cmake_text):
        deps, test_deps, into = set(), set(), None
        for word in args.split():
            if word in ("DEPS", "TEST_DEPS"):
                into = deps if word == "DEPS" else test_deps
            elif into is not None and word.startswith("dagu_"):
                into.add(word[len("dagu_"):])
        parts[name] = (deps, test_deps)
    return parts


def violations(root):
    root = pathlib.Path(root)
    parts = declared_parts((root / "CMakeLists.txt").read_text())
    src = root / "src"
    found = []
    for folder in sorted(p for p in src.iterdir() if p.is_dir()):
        if not any(folder.glob("*.cc")) and not any(folder.glob("*.h")):
            continue
        if folder.name not in parts:
            found.append(f"src/{folder.name}/: a folder with code but no dagu_part({folder.name} ...)")
            continue
        deps, test_deps = parts[folder.name]
        for f in sorted(folder.iterdir()):
            if f.suffix not in (".h", ".cc"):
                continue
            is_test = f.name.endswith("_test.cc") or f.name.endswith("_test_util.h")
            allowed = deps | (test_deps if is_test else set()) | {folder.name}
            text = f.read_text(errors="replace")
            for m in INCLUDE_RE.finditer(text):
                other = m.group(1)
                if not (src / other).is_dir() or other in allowed:
                    continue
                line = text.count("\n", 0, m.start()) + 1
                kind = "TEST_DEPS" if is_test else "DEPS"
                found.append(f"src/{folder.name}/{f.name}:{line}: includes part '{other}', "
                             f"which dagu_part({folder.name} {kind} ...) does not list (add dagu_{other})")
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    found = violations(root)
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
