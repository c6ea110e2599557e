#!/usr/bin/env python3
"""Generates embedded_assets.cc from the files under src/web/assets/ and the
built web UI (ui/build.sh's output: app.js, style.css).

Each file becomes a list of raw string literal chunks (short enough for any
compiler) joined once at first use. The build runs it (CMakeLists.txt) and
writes the output into the build tree, so the assets are kept only once:

    python3 src/web/embed_assets.py OUTPUT.cc [MORE_ASSET_DIR...]

A path found in two directories is an error.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.join(HERE, "assets")
DELIM = "dagu_asset"
CHUNK = 2000

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
}


# Unicode bidirectional controls (bundled libraries hold them in strings and
# regular expressions). In a raw string literal GCC warns about them
# (-Wbidi-chars, an error under -Werror), so each one becomes an ordinary
# literal of its UTF-8 bytes in escapes.
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def escaped(ch):
    return '"' + "".join(f"\\x{b:02x}" for b in ch.encode("utf-8")) + '"'


def literals(text):
    """The C++ literals whose concatenation is `text`."""
    out = []
    pos = 0
    for m in list(BIDI.finditer(text)) + [None]:
        end = m.start() if m else len(text)
        i = pos
        while i < end:
            out.append(f'R"{DELIM}({text[i:min(i + CHUNK, end)]}){DELIM}"')
            i += CHUNK
        if m:
            out.append(escaped(m.group()))
            pos = m.end()
    return out or ['""']


def generate(dirs):
    files = []
    seen = set()
    for base in dirs:
        if not os.path.isdir(base):
            sys.exit(f"embed_assets: {base}: no such directory")
        for root, _, names in os.walk(base):
            for name in names:
                full = os.path.join(root, name)
                rel = os.path.relpath(full, base).replace(os.sep, "/")
                if rel in seen:
                    sys.exit(f"embed_assets: {rel} is in more than one asset directory")
                seen.add(rel)
                ext = os.path.splitext(name)[1]
                if ext not in TYPES:
                    sys.exit(f"embed_assets: {rel}: no content type for '{ext}'")
                with open(full, encoding="utf-8") as f:
                    text = f.read()
                if ")" + DELIM + '"' in text:
                    sys.exit(f"embed_assets: {rel} contains the raw string delimiter")
                files.append((rel, TYPES[ext], text))
    files.sort()
    lines = [
        "// GENERATED at build time by src/web/embed_assets.py from src/web/assets/ and the built UI.",
        '#include "web/assets.h"',
        "",
        "#include <algorithm>",
        "#include <cstddef>",
        "#include <iterator>",
        "#include <string>",
        "",
        "namespace dagu::web {",
        "namespace {",
        "",
        "struct Source {",
        "  const char* path;",
        "  const char* content_type;",
        "  const char* const* chunks;",
        "  size_t chunk_count;",
        "};",
        "",
    ]
    for i, (rel, ctype, text) in enumerate(files):
        lines.append(f"// {rel}")
        lines.append(f"const char* const kChunks{i}[] = {{")
        for lit in literals(text):
            lines.append(f"    {lit},")
        lines.append("};")
        lines.append("")
    lines.append("const Source kSources[] = {")
    for i, (rel, ctype, text) in enumerate(files):
        lines.append(f'    {{"{rel}", "{ctype}", kChunks{i}, std::size(kChunks{i})}},')
    lines += [
        "};",
        "",
        "}  // namespace",
        "",
        "const std::vector<Asset>& EmbeddedAssets() {",
        "  static const std::vector<Asset>* assets = [] {",
        "    static std::vector<std::string> bodies;",
        "    bodies.reserve(std::size(kSources));",
        "    auto* out = new std::vector<Asset>();",
        "    for (const Source& s : kSources) {",
        "      std::string body;",
        "      for (size_t i = 0; i < s.chunk_count; ++i) body += s.chunks[i];",
        "      bodies.push_back(std::move(body));",
        "      out->push_back(Asset{s.path, s.content_type, bodies.back()});",
        "    }",
        "    return out;",
        "  }();",
        "  return *assets;",
        "}",
        "",
        "const Asset* FindAsset(std::string_view path) {",
        "  const auto& assets = EmbeddedAssets();",
        "  auto it = std::find_if(assets.begin(), assets.end(), [path](const Asset& a) { return a.path == path; });",
        "  return it == assets.end() ? nullptr : &*it;",
        "}",
        "",
        "}  // namespace dagu::web",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: embed_assets.py OUTPUT.cc [MORE_ASSET_DIR...]")
    text = generate([ASSETS] + sys.argv[2:])
    os.makedirs(os.path.dirname(os.path.abspath(sys.argv[1])), exist_ok=True)
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write(text)
