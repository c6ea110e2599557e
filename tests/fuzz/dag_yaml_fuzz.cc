// Fuzz target: DAG files (LoadDagFromString), in the full mode and in the
// scheduler's metadata-only mode. Property: a load fails exactly when it
// reported an error, and every error names the file.
#include <string>
#include <vector>

#include "dag/dag_loader.h"
#include "fuzz_check.h"
#include "mem_file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string yaml(reinterpret_cast<const char*>(data), size);
  dagu::fuzz::MemFileSystem fs;
  for (bool metadata_only : {false, true}) {
    dagu::LoadDagOptions options;
    options.fs = &fs;
    options.metadata_only = metadata_only;
    dagu::Dag dag;
    std::vector<dagu::DagError> errors;
    dagu::Status s = dagu::LoadDagFromString(yaml, "/fuzz/dags/fuzz.yaml", options, &dag, &errors);
    FUZZ_CHECK(s.ok() == !dagu::HasErrors(errors), "status %s but %zu error(s)", s.ToString().c_str(),
               errors.size());
    for (const auto& e : errors) FUZZ_CHECK(e.file == "/fuzz/dags/fuzz.yaml", "an error names \"%s\"", e.file.c_str());
    if (s.ok()) FUZZ_CHECK(!dag.name.empty(), "a DAG without a name loaded");
  }
  return 0;
}
