#include "dag/dag_names.h"

#include <cctype>

#include "core/sha256.h"

namespace dagu {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

// Length in bytes of the UTF-8 sequence that starts with `lead` (1 for
// stray continuation bytes, so malformed input still advances).
size_t Utf8Length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

std::string_view BaseNameOf(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view StripYamlExtension(std::string_view name) {
  for (std::string_view ext : {".yaml", ".yml"}) {
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) {
      return name.substr(0, name.size() - ext.size());
    }
  }
  return name;
}

bool IsWindowsReservedStem(std::string_view stem) {
  std::string lower;
  for (char c : stem) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "con" || lower == "prn" || lower == "aux" || lower == "nul") return true;
  return lower.size() == 4 && (lower.rfind("com", 0) == 0 || lower.rfind("lpt", 0) == 0) && lower[3] >= '1' &&
         lower[3] <= '9';
}

}  // namespace

std::string DagNameProblem(std::string_view name) {
  if (std::string problem = RecordedDagNameProblem(name); !problem.empty()) return problem;
  if (name.front() == '-') {
    std::string quoted = "\"";
    quoted.append(name).append("\"");
    return "DAG name " + quoted + " may not start with '-' (it would be read as a flag)";
  }
  return "";
}

std::string RecordedDagNameProblem(std::string_view name) {
  // Built by appending: GCC 12 -O2 misreports -Wrestrict on "literal" + string.
  std::string quoted = "\"";
  quoted.append(name).append("\"");
  if (name.empty()) return "DAG name is empty";
  if (name.size() > kMaxDagNameLength) {
    return "DAG name " + quoted + " is " + std::to_string(name.size()) + " characters long (at most " +
           std::to_string(kMaxDagNameLength) + ")";
  }
  for (char c : name) {
    if (!IsNameChar(c)) {
      return "DAG name " + quoted + " may only contain letters, digits, '_', '.' and '-'";
    }
  }
  return "";
}

std::string DagNameFromPath(std::string_view path) { return std::string(StripYamlExtension(BaseNameOf(path))); }

std::string SafeName(std::string_view name) {
  constexpr size_t kMaxChars = 100;
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < name.size() && chars < kMaxChars; ++chars) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool allowed = c < 0x80 && (std::isalnum(c) || c == '_' || c == '-');
    out += allowed ? static_cast<char>(c) : '_';
    i += Utf8Length(c);
  }
  return out;
}

std::string DagDataDirName(std::string_view name) {
  std::string_view stem = StripYamlExtension(name);
  std::string safe = SafeName(stem);
  if (safe == stem) return safe;
  return safe + "-" + Sha256Hex(name).substr(0, 4);
}

std::string SuspendFlagFileName(std::string_view dag_file_path) {
  std::string_view base = BaseNameOf(dag_file_path);
  size_t dot = base.find_last_of('.');
  std::string_view stem = dot == std::string_view::npos || dot == 0 ? base : base.substr(0, dot);
  std::string out;
  for (char c : stem) {
    unsigned char u = static_cast<unsigned char>(c);
    bool reserved = u < 0x20 || c == ' ' || std::string_view("<>:\"/\\|?*").find(c) != std::string_view::npos;
    out += reserved ? '-' : c;
  }
  // As Go's NormalizeFilename: the Windows-reserved check looks at the part
  // before the last remaining dot.
  size_t ext = out.find_last_of('.');
  std::string inner_stem = ext == std::string::npos ? out : out.substr(0, ext);
  if (IsWindowsReservedStem(inner_stem)) {
    std::string replaced = "-";
    if (ext != std::string::npos) replaced.append(out, ext);
    out = replaced;
  }
  return out + ".suspend";
}

}  // namespace dagu
