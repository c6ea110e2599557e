// Pure functions on DAG names and the file names Dagu derives from them
// (docs/storage.md, "Runs" and "Logs": Dagu 1.30.2's layout). No I/O; the store owns the
// directories these names are used in.
#pragma once

#include <string>
#include <string_view>

namespace dagu {

// A DAG name's limits: 1..40 bytes of [A-Za-z0-9_.-], not starting with '-'.
inline constexpr size_t kMaxDagNameLength = 40;

// Empty when `name` is a valid DAG name, else why not (naming the name). A
// leading '-' is refused: every command line that starts, retries or stops a
// run names the DAG, and "-h" there would be read as a flag (Dagu 1.30.2
// accepts such names, then `dagu retry ... -h` prints its help;
// docs/dag-format.md, "Names").
std::string DagNameProblem(std::string_view name);
// DagNameProblem without the leading '-' rule: the names 1.30.2 accepted and
// may have recorded runs of, which can still be looked at and stopped.
std::string RecordedDagNameProblem(std::string_view name);

// The file's base name without a trailing ".yaml" / ".yml":
// "/x/dags/my-etl.yaml" -> "my-etl". Other extensions are kept.
std::string DagNameFromPath(std::string_view path);

// Dagu's fileutil.SafeName: every character (UTF-8 code point) outside
// [A-Za-z0-9_-] becomes '_', then at most 100 characters are kept. Used for
// log directories and socket names.
std::string SafeName(std::string_view name);

// The per-DAG directory name under the dag-runs dir: SafeName of the name
// without a ".yaml"/".yml" suffix; if that differs from the name, "-" and the
// first 4 hex digits of SHA-256 of `name` are appended ("my.dag" ->
// "my_dag-<4 hex>").
std::string DagDataDirName(std::string_view name);

// The suspend flag file name of a DAG file (not its name: field): the file's
// base name without its extension, with <>:"/\|?*, control characters and
// spaces replaced by '-', a Windows-reserved stem (con, prn, aux, nul,
// com1-9, lpt1-9) replaced by "-", then ".suspend". "/d/my etl.yaml" ->
// "my-etl.suspend".
std::string SuspendFlagFileName(std::string_view dag_file_path);

}  // namespace dagu
