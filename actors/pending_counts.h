// PendingCounts: per step, how many of each node's incoming edges (data and
// control) have not yet delivered (paper 3.1). A node is ready when its
// count drops to zero. Counts are atomic because the producers of one
// node's inputs may finish on different threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace tact {

class PendingCounts {
 public:
  explicit PendingCounts(const std::vector<int32_t>& initial)
      : counts_(new std::atomic<int32_t>[initial.size()]) {
    for (size_t i = 0; i < initial.size(); ++i) {
      counts_[i].store(initial[i], std::memory_order_relaxed);
    }
  }
  // True exactly once per node: for the edge that delivers last.
  bool DecrementIsReady(int node_id) {
    // acq_rel: the consumer must see every producer's write to its inputs.
    return counts_[node_id].fetch_sub(1, std::memory_order_acq_rel) == 1;
  }

 private:
  std::unique_ptr<std::atomic<int32_t>[]> counts_;
};

}  // namespace tact
