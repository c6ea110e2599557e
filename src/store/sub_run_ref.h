// SubRunRef: one child run a call step started, as a status node lists it
// in `children` ({dagRunId, params}). Its own header so that the step-runner
// contract (src/executors/step_runner.h) can name it without the store.
#pragma once

#include <string>

namespace dagu {

struct SubRunRef {
  std::string dag_run_id;
  std::string params;  // the child's params text ("" = not written)
  bool operator==(const SubRunRef& o) const { return dag_run_id == o.dag_run_id && params == o.params; }
};

}  // namespace dagu
