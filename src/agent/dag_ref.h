// How run commands find the DAG they are given: `dagu start hello` means
// <dagsDir>/hello.yaml (or .yml), `dagu start ./x/hello.yaml` means that
// file. Commands about existing runs (status, stop, retry, dequeue) need only
// the DAG's name: a file argument gives the name of the DAG in it, anything
// else is taken as the name.
#pragma once

#include <string>

#include "core/status.h"
#include "dag/dag_loader.h"

namespace dagu {

// The absolute path of the DAG file for `arg`. NotFound names what was tried.
Status FindDagFile(const std::string& arg, const std::string& dags_dir, std::string* path);

// The DAG name `arg` refers to (see above). Never fails: a file that does
// not load gives its file name without extension.
std::string DagNameFromArg(const std::string& arg, const std::string& dags_dir, const LoadDagOptions& options);

}  // namespace dagu
