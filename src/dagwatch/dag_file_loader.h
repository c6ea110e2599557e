// The DagCatalog's loader over the real DAG loader (dag/dag_loader.h), in
// the scheduler's mode: metadata-only, so a DAG whose steps are broken is
// still scheduled (its run fails when it loads the file fully), as Dagu's
// scheduler does. Every error and warning of a file is logged with the file,
// line and key; the returned Status names the file and its first error.
//
// Reads are bounded (dagwatch/bounded_reader.h): the DAG file must be a
// regular file inside the DAG directory (a symlink may point elsewhere in
// it), of at most kDagFileMaxBytes, opened with O_NONBLOCK|O_NOFOLLOW, and
// read within kDagReadLimit; the same holds for the base config it merges
// (which may live anywhere). A FIFO, device or escaping symlink is refused
// (InvalidArgument); a read that hangs is TimedOut, and the catalog tries the
// file again at its next rescan.
#pragma once

#include <chrono>

#include "dag/dag_loader.h"
#include "dagwatch/bounded_reader.h"
#include "dagwatch/dag_catalog.h"

namespace dagu {

// `options.metadata_only` is forced on. `dags_dir` confines the DAG files.
DagFileLoader MakeDagFileLoader(LoadDagOptions options, std::string dags_dir,
                                std::chrono::milliseconds read_limit = kDagReadLimit);

}  // namespace dagu
