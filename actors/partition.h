// One registered partition (paper 3.2: each device's subgraph runs where it
// was placed): its executor, and each WireRunStep run once, answered with
// one WireStepDone. A step's feeds and fetches pass through the step's
// rendezvous in this task (paper 4.2), as do the tensors that its Sends and
// Recvs exchange with the step's other partitions here.
//
// Its partition actor (actors/messages.h) runs the steps that come as CAF
// messages; a worker's link readers run those that come on its links
// (actors/task_steps.h) without a hop to the actor's thread.
//
// Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "actors/wire.h"

namespace tact {

class Device;
class RendezvousMgr;

class Partition : public std::enable_shared_from_this<Partition> {
 public:
  using Reply = std::function<void(WireStepDone done)>;

  Partition(Device* device, std::shared_ptr<const Executor> executor,
            std::shared_ptr<RendezvousMgr> rendezvous, WireRegisterPartition reg);

  // Runs `step` and hands its StepDone to `reply` (on whichever thread
  // finishes it), unless this step has run here already: a master that
  // resends after a lost connection gets one answer.
  //
  // A step that follows another (WireRunStep::after_step) starts once that
  // one has ended here, on the thread that ends it; if that one failed, it
  // fails at once, without running: the master sent it ahead, before
  // knowing the outcome of the step it follows.
  void Run(WireRunStep& step, Reply reply);
  // Fails the step's pending and future Recvs in this task, and the step
  // itself if it still waits for the step it follows.
  void Abort(const WireAbortStep& abort);
  // Only the latter: for a task whose rendezvous the abort has reached.
  void AbortWaiting(const WireAbortStep& abort);
  // Aborts every step delivered here that has not ended, with `why`: the
  // master that runs them is gone, and nobody would end them else (a
  // Dequeue of such a step would take the next element from a live
  // consumer, a loop of one would run for ever).
  void AbortUnended(const Status& why);

 private:
  struct Follower {
    WireRunStep step;
    Reply reply;
  };

  // Holding mu_: false for a step delivered here already.
  bool FirstDelivery(int64_t step_id);
  void Start(WireRunStep& step, Reply reply);
  // `step_id` has ended with `status`: starts (or fails) its follower.
  void Ended(int64_t step_id, const Status& status);
  void Fail(Follower f, const Status& why);
  // Ends a follower that will not run, with `why`.
  void End(Follower f, const Status& why);

  Device* const device_;
  const std::shared_ptr<const Executor> executor_;
  const std::shared_ptr<RendezvousMgr> rendezvous_;
  // Fixed at registration; shared with every step's completion.
  const std::shared_ptr<const WireRegisterPartition> reg_;
  std::mutex mu_;  // guards the steps and the waiting followers
  // The last kRememberedSteps steps delivered here, and how each ended
  // (none yet: running, or waiting for the step it follows). A step
  // delivered twice runs once; a follower finds whether its step ended.
  std::unordered_map<int64_t, std::optional<Status>> steps_;
  std::deque<int64_t> steps_order_;
  std::unordered_map<int64_t, Follower> waiting_;  // by the step each follows
};

// The answer to a step sent, through CAF, for a partition that `where` (a
// task or device name) does not hold: NotFound, naming both.
WireStepDone NoSuchPartition(const WireRunStep& step, const std::string& where);

// How step `step` ends when step `followed`, which it follows, failed with
// `why`: Aborted, naming both.
Status FollowerAborted(int64_t followed, int64_t step, const Status& why);

}  // namespace tact
