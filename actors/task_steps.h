// A task's end of the step links (actors/step_link.h): a RunStep that
// arrives on a link runs on the link's reader thread, as a tensor that
// arrives runs the kernels it readies (a hop to the partition actor's
// thread cost a thread wake-up per step), and its StepDone goes back on a
// link to the master that sent it; an AbortStep fails the step in this
// task's rendezvous.
//
// Thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "actors/tensor_link.h"

namespace tact {

class Partition;
class RendezvousMgr;

class TaskSteps {
 public:
  TaskSteps(std::string task, std::shared_ptr<RendezvousMgr> rendezvous);

  // The links StepDones go back on; set once they have started, before
  // any master can know their port.
  void SetLinks(TensorLinks* links) { links_ = links; }
  // A partition registered here (called by its device actor).
  void AddPartition(const std::string& handle, std::shared_ptr<Partition> partition);
  // One whose master is gone; its running steps keep what they use.
  void RemovePartition(const std::string& handle);
  // A frame whose key IsStepMessage, on a reader thread.
  void Take(const LinkSender& from, int64_t step_id, const std::string& key, const Tensor& t);

 private:
  void RunStep(const LinkSender& from, const Tensor& t);

  const std::string task_;
  const std::shared_ptr<RendezvousMgr> rendezvous_;
  std::atomic<TensorLinks*> links_{nullptr};
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Partition>> partitions_;  // by handle
};

}  // namespace tact
