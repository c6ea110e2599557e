// Where the DAG a call step names is found, as Dagu 1.30.2 finds it:
//   1. a local DAG of the calling file (a document after `---` with that
//      name): written, with the file's other local DAGs as further
//      documents, to <temp>/dagu/local-dags/<name>-<random>.yaml for the
//      child process to load (removed when the step ends);
//   2. a path (the name has a '/'), with .yaml/.yml tried when it has no
//      extension;
//   3. <dags_dir>/<name>, then <the calling DAG's directory>/<name>, each
//      as given when it ends in .yaml/.yml, else with .yaml then .yml.
#pragma once

#include <string>

#include "core/status.h"
#include "dag/dag.h"

namespace dagu {

struct ChildDagFile {
  std::string path;        // absolute
  bool temporary = false;  // a local DAG written out: remove it afterwards
};

// NotFound with Dagu's message ("failed to find DAG \"x\": ...") when there
// is no such DAG; IOError when a local DAG cannot be written out.
Status LocateChildDag(const Dag& caller, const std::string& name, const std::string& dags_dir,
                      const std::string& temp_dir, ChildDagFile* out);

// Removes a temporary file (nothing for a DAG file of the user's).
void ReleaseChildDag(const ChildDagFile& file);

}  // namespace dagu
