// The rendezvous of the steps running in one process (paper 3.2: a Send
// and its Recv meet in the step's rendezvous). Every partition of a step
// that runs in this process uses the same one. A Send and a Recv between
// two devices meet at their endpoint actors (actors/endpoints.h), which
// live across steps; the step's own table holds the client's feeds and
// fetches and the master's linked tensors. The first partition of a step
// to arrive creates its table; the last to finish removes it, so a feed
// that arrives before its partition has even started is kept.
//
// In a worker of a cluster, a Send whose Recv is in another task goes
// straight to that task (paper 3.3) through `remote`, and arrives there by
// Deliver: at the key's Recv endpoint, or, for a key without one (a linked
// feed that arrives before any partition of its step has started in that
// task), in the step's table, kept the same way.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <mutex>
#include <unordered_map>

#include "actors/endpoints.h"
#include "kernels/rendezvous.h"

namespace tact {

class RendezvousMgr {
 public:
  using RemoteSend = Endpoints::RemoteSend;

  // Every Send and Recv stays in this process.
  RendezvousMgr();
  // The rendezvous of task `local_task` ("/job:J/replica:R/task:T"): a Send
  // whose key's receiving device is in another task goes through `remote`.
  RendezvousMgr(std::string local_task, RemoteSend remote);

  // The endpoints of this process's partitions (their device actors add
  // them when they register a partition).
  Endpoints& endpoints() { return *endpoints_; }

  // The rendezvous of `step_id`, shared by the `users` partitions of the
  // step in this process (every caller of a step passes the same count).
  std::shared_ptr<Rendezvous> Find(int64_t step_id, int users);
  // One user of the step is done; the last one removes its rendezvous.
  void Release(int64_t step_id);
  // Fails the step's pending and future Recvs, at its endpoints and in its
  // table; false if the step has no table here (finished, or not started
  // in this process).
  bool Abort(int64_t step_id, const Status& status);
  // A tensor from another task's Send. One for a step already finished
  // here (aborted before its Recv ran) is dropped.
  Status Deliver(int64_t step_id, const std::string& key, const Tensor& tensor);
  // Steps that hold a rendezvous (for tests: it returns to 0).
  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<Rendezvous> rendezvous;
    int users_left = -1;  // -1: made by Deliver, before any partition came
  };
  Entry& FindEntry(int64_t step_id);  // holding mu_
  // Holding mu_: `step_id` was made by Deliver; drops the oldest such step
  // that no partition has started, past a bound.
  void ForgetOldUnstarted(int64_t step_id);

  // Whether finished steps are remembered: only a worker gets tensors
  // from other tasks, which may come late.
  const bool remembers_finished_;
  const std::shared_ptr<Endpoints> endpoints_;
  mutable std::mutex mu_;
  std::unordered_map<int64_t, Entry> steps_;
  // The last steps to finish, so that a late tensor does not bring one
  // back to life.
  std::deque<int64_t> finished_order_;
  std::unordered_set<int64_t> finished_;
  std::deque<int64_t> unstarted_order_;  // steps made by Deliver, oldest first
};

}  // namespace tact
