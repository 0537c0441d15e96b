#include "actors/task_steps.h"

#include <cstdio>

#include "actors/partition.h"
#include "actors/rendezvous_mgr.h"
#include "actors/step_link.h"
#include "graph/logging.h"

namespace tact {
namespace {

void Complain(const std::string& task, const LinkSender& from, const Status& s) {
  LogWarning("tact worker ", task, ": a step message from ", from.task, ": ", s.ToString());
}

}  // namespace

TaskSteps::TaskSteps(std::string task, std::shared_ptr<RendezvousMgr> rendezvous)
    : task_(std::move(task)), rendezvous_(std::move(rendezvous)) {}

void TaskSteps::AddPartition(const std::string& handle, std::shared_ptr<Partition> partition) {
  std::lock_guard<std::mutex> lock(mu_);
  partitions_[handle] = std::move(partition);
}

void TaskSteps::RemovePartition(const std::string& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  partitions_.erase(handle);
}

void TaskSteps::Take(const LinkSender& from, int64_t step_id, const std::string& key, const Tensor& t) {
  if (key == kRunStepKey) {
    RunStep(from, t);
  } else if (key == kAbortStepKey) {
    WireAbortStep abort;
    Status s = DecodeMessage(t, &abort);
    if (!s.ok()) {
      Complain(task_, from, s);
      return;
    }
    rendezvous_->Abort(abort.step_id, abort.status);
    std::vector<std::shared_ptr<Partition>> partitions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [handle, p] : partitions_) partitions.push_back(p);
    }
    for (const auto& p : partitions) p->AbortWaiting(abort);
  } else {
    Complain(task_, from, errors::InvalidArgument("no task takes '", key, "' (step ", step_id, ")"));
  }
}

void TaskSteps::RunStep(const LinkSender& from, const Tensor& t) {
  WireRunStep run;
  Status s = DecodeMessage(t, &run);
  if (!s.ok()) {
    // Without the message there is no port to answer on; the master's
    // step ends by its deadline or by this task's loss.
    Complain(task_, from, s);
    return;
  }
  TensorLinks* links = links_;
  auto reply = [links, from, port = run.reply_port, epoch = run.reply_epoch, task = task_](WireStepDone done) {
    Status sent = SendStepDone(links, from, port, epoch, std::move(done));
    if (!sent.ok()) Complain(task, from, sent);
  };
  std::shared_ptr<Partition> partition;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = partitions_.find(run.handle);
    if (it != partitions_.end()) partition = it->second;
  }
  if (partition == nullptr) {
    reply(WireStepDone{run.step_id, run.handle,
                       errors::Unavailable("task ", task_, " has no partition '", run.handle,
                                           "' (it was started afresh since it was registered)"),
                       {}, {}, {}});
    return;
  }
  partition->Run(run, std::move(reply));
}

}  // namespace tact
