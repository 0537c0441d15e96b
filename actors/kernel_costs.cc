#include "actors/kernel_costs.h"

namespace tact {

KernelCosts::KernelCosts(const std::vector<bool>& declared_expensive)
    : nodes_(new Node[declared_expensive.size()]) {
  for (size_t i = 0; i < declared_expensive.size(); ++i) {
    if (!declared_expensive[i]) nodes_[i].mean_ns.store(kDeclaredCheap, std::memory_order_relaxed);
  }
}

void KernelCosts::Record(int id, int64_t ns) {
  std::atomic<int64_t>& mean = nodes_[id].mean_ns;
  const int64_t old = mean.load(std::memory_order_relaxed);
  if (old == kDeclaredCheap) return;
  // The first run sets the mean. A kernel's first runs are its slowest
  // (cold caches, first allocations), so a faster run moves the mean half
  // way down, and a slower one (mostly a preemption or a page fault) only
  // an eighth of the way up; a run many times slower still crosses
  // kInlineBelowNs at once.
  const int64_t next = old == kUnmeasured ? ns : old + (ns - old) / (ns < old ? 2 : 8);
  mean.store(next < 0 ? 0 : next, std::memory_order_relaxed);
}

}  // namespace tact
