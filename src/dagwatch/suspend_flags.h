// Suspension of a DAG's schedules (docs/dag-format.md, "Names derived from a DAG"): the
// DAG is suspended while the empty file
// <suspend_flags_dir>/<file stem, normalised>.suspend exists. The stem is of
// the DAG *file* (not its name: field); dag/dag_names.h derives the name.
// A suspended DAG gets no start, stop or restart from its schedules and no
// replayed slots; manual runs and queued runs are not affected.
#pragma once

#include <string>

#include "core/file_system.h"
#include "core/status.h"
#include "dag/dag.h"

namespace dagu {

class SuspendFlags {
 public:
  // `fs` must outlive this.
  SuspendFlags(FileSystem* fs, std::string suspend_flags_dir);

  // *suspended tells whether the DAG's flag file exists. An error other than
  // "not found" is returned (callers treat the DAG as suspended for safety:
  // an operator's suspension must not be overridden by a storage hiccup).
  Status IsSuspended(const DagHeader& dag, bool* suspended) const;

  // The flag file of `dag`.
  std::string FlagPath(const DagHeader& dag) const;

 private:
  FileSystem* fs_;
  std::string dir_;
};

}  // namespace dagu
