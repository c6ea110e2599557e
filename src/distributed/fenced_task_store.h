// FencedTaskStore: the coordinator's task records, written only while the
// coordinator holds its lock (docs/distributed.md, "Fencing").
//
// A coordinator that was paused (SIGSTOP, a VM freeze, a long GC-like stall)
// past the lock's stale threshold may run again after another instance took
// the lock over and loaded the records. Its task writes are fenced:
//
//  * before every Put and Remove the fence is checked (TaskFence::Check:
//    the lease deadline has not passed, and a look at the lock finds the
//    acquisition this coordinator made -- same directory, same owner
//    record, same token). A failed check refuses the write: nothing is
//    written, so the task board neither acknowledges a Dispatch
//    (UNAVAILABLE, the dispatcher tries the registry again) nor hands a task
//    to a poller (a waiting task stays waiting; the poller is put back);
//  * every record written carries the token of the acquisition that wrote
//    it ("fence" in the record), so a record can be traced to its writer;
//  * after a Put the fence is checked again: a write that took so long that
//    the lease ended meanwhile counts as not made (Put returns false: not
//    acknowledged, not handed out).
//
// What fencing cannot exclude: a process paused between the check and the
// rename for longer than the rest of its lease plus the renew interval I
// (the check ensures at least I of lease is left) may still land one record
// after a successor loaded the records; that record is not acknowledged nor
// handed out by its writer, and is seen by the next coordinator that loads
// the records (docs/distributed.md, "Limits").
//
// LoadAll is not fenced (reading is harmless). Thread-safe as far as the
// inner store and the fence are.
#pragma once

#include <string>
#include <vector>

#include "distributed/task_record.h"

namespace dagu::distributed {

class TaskFence {
 public:
  virtual ~TaskFence() = default;
  // True while writes may be made; false and *why otherwise. May make a
  // storage call (a look at the lock).
  virtual bool Check(std::string* why) const = 0;
  // The token of the acquisition the fence belongs to ("" when unknown).
  virtual std::string Token() const = 0;
};

class FencedTaskStore final : public TaskStore {
 public:
  // Both must outlive the store.
  FencedTaskStore(TaskStore* inner, const TaskFence* fence) : inner_(inner), fence_(fence) {}

  bool Put(const TaskRecord& record, std::string* error) override;
  bool Remove(const std::string& run_id, std::string* error) override;
  bool LoadAll(std::vector<TaskRecord>* out, std::vector<std::string>* skipped, std::string* error) override {
    return inner_->LoadAll(out, skipped, error);
  }

 private:
  TaskStore* inner_;
  const TaskFence* fence_;
};

}  // namespace dagu::distributed
