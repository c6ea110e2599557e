// The DagCatalog's loader over the real DAG loader (dag/dag_loader.h), in
// the scheduler's mode: metadata-only, so a DAG whose steps are broken is
// still scheduled (its run fails when it loads the file fully), as Dagu's
// scheduler does. Every error and warning of a file is logged with the file,
// line and key; the returned Status names the file and its first error.
#pragma once

#include "dag/dag_loader.h"
#include "dagwatch/dag_catalog.h"

namespace dagu {

// `options.metadata_only` is forced on.
DagFileLoader MakeDagFileLoader(LoadDagOptions options);

}  // namespace dagu
