// The rendezvous of the steps running in one process (paper 3.2: a Send
// and its Recv meet in the step's rendezvous). Every partition of a step
// that runs in this process uses the same one, so a tensor sent from one
// device's partition reaches the Recv of another's, by reference. The
// first partition of a step to arrive creates it; the last to finish
// removes it, so a Send that runs before its Recv's partition has even
// started is kept.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "kernels/rendezvous.h"

namespace tact {

class RendezvousMgr {
 public:
  // The rendezvous of `step_id`, shared by the `users` partitions of the
  // step in this process (every caller of a step passes the same count).
  std::shared_ptr<Rendezvous> Find(int64_t step_id, int users);
  // One user of the step is done; the last one removes its rendezvous.
  void Release(int64_t step_id);
  // Fails the step's pending and future Recvs; false if the step has no
  // rendezvous here (finished, or not started in this process).
  bool Abort(int64_t step_id, const Status& status);
  // Steps that hold a rendezvous (for tests: it returns to 0).
  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<Rendezvous> rendezvous;
    int users_left = 0;
  };
  mutable std::mutex mu_;
  std::unordered_map<int64_t, Entry> steps_;
};

}  // namespace tact
