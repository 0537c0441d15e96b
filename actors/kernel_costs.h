// Which of an executor's kernels are worth handing to another thread,
// learned from how long they run (TensorFlow's executor keeps such
// estimates too). Not the placer's costs (actors/measured_costs.h): these
// stay inside one executor and decide only where a ready node runs.
//
// Why: a kernel counts itself expensive unless it says otherwise
// (OpKernel::IsExpensive), and the executor hands an expensive node that
// became ready beside others to the device's threads. That hand-off costs
// a wake-up of microseconds and a cache miss or two, ten times an Add of
// two scalars: `tact bench executor`'s wide graph of 1,000 scalar Adds
// spent more time in the hand-offs than in the Adds. So the executor times
// the kernels declared expensive and keeps on its own thread those whose
// runs take less than kInlineBelowNs on average (a mean that falls fast and
// rises slowly: Record says why). One learned cheap is still
// timed on every kResampleEvery-th run, so that it goes back to the
// device's threads when its inputs grow (a larger batch fed later).
//
// A kernel learned cheap runs where a declared-cheap one does, on a thread
// that must not compute too (a CAF scheduler thread, a link's reader): a
// hand-off from there costs as much. If its inputs grow, it runs there at
// most kResampleEvery times before it is timed again and sent back.
//
// Where a node runs never changes what it computes.
//
// Thread-safe: relaxed atomics (a lost update only delays the learning).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace tact {

class KernelCosts {
 public:
  // Under this mean a kernel runs on the thread that made it ready. A
  // hand-off to a sleeping pool thread costs about this much (2-20 us on
  // the 2-vCPU machines this was measured on).
  static constexpr int64_t kInlineBelowNs = 2000;
  static constexpr uint32_t kResampleEvery = 64;

  // By node id: whether its kernel declares itself expensive. A kernel
  // declared cheap is never timed and never handed off.
  explicit KernelCosts(const std::vector<bool>& declared_expensive);

  // Whether node `id` is handed to the device's threads when other nodes
  // are ready beside it.
  bool Expensive(int id) const {
    return nodes_[id].mean_ns.load(std::memory_order_relaxed) >= kInlineBelowNs;
  }
  // Whether to time this run of node `id`; if so, Record it.
  bool Timed(int id) const {
    const Node& n = nodes_[id];
    const int64_t mean = n.mean_ns.load(std::memory_order_relaxed);
    if (mean == kDeclaredCheap) return false;
    if (mean >= kInlineBelowNs) return true;
    return n.runs.fetch_add(1, std::memory_order_relaxed) % kResampleEvery == 0;
  }
  // One run of node `id` took `ns`.
  void Record(int id, int64_t ns);

 private:
  static constexpr int64_t kDeclaredCheap = -1;
  static constexpr int64_t kUnmeasured = std::numeric_limits<int64_t>::max();
  struct Node {
    std::atomic<int64_t> mean_ns{kUnmeasured};
    mutable std::atomic<uint32_t> runs{0};  // of a node learned cheap
  };
  std::unique_ptr<Node[]> nodes_;
};

}  // namespace tact
