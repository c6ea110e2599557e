#include "distributed/fenced_task_store.h"

namespace dagu::distributed {

bool FencedTaskStore::Put(const TaskRecord& record, std::string* error) {
  std::string why;
  if (!fence_->Check(&why)) {
    *error = "refused (fenced): " + why;
    return false;
  }
  TaskRecord stamped = record;
  stamped.fence = fence_->Token();
  if (!inner_->Put(stamped, error)) return false;
  if (!fence_->Check(&why)) {
    *error = "written but not acknowledged (fenced after the write): " + why;
    return false;
  }
  return true;
}

bool FencedTaskStore::Remove(const std::string& run_id, std::string* error) {
  std::string why;
  if (!fence_->Check(&why)) {
    *error = "refused (fenced): " + why;
    return false;
  }
  return inner_->Remove(run_id, error);
}

}  // namespace dagu::distributed
