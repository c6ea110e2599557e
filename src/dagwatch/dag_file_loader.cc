#include "dagwatch/dag_file_loader.h"

#include <spdlog/spdlog.h>

namespace dagu {

DagFileLoader MakeDagFileLoader(LoadDagOptions options) {
  options.metadata_only = true;
  return [options](const std::string& path, Dag* out) {
    std::vector<DagError> problems;
    Status s = LoadDag(path, options, out, &problems);
    for (const DagError& e : problems) {
      if (e.is_error()) {
        spdlog::error("{}", e.ToString());
      } else {
        spdlog::warn("{}", e.ToString());
      }
    }
    return s;
  };
}

}  // namespace dagu
