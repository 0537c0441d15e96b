#include "placement/timeline.h"

#include <algorithm>

namespace tact {

Timeline::Slot Timeline::EarliestSlot(double ready, double duration) const {
  // Ends increase with starts (the gaps are disjoint and sorted), so the
  // gaps that end at or before `ready` are a prefix.
  auto it = std::upper_bound(gaps_.begin(), gaps_.end(), ready,
                             [](double r, const Gap& g) { return r < g.end; });
  // The last gap never ends, so this stops.
  for (;; ++it) {
    const double start = std::max(it->start, ready);
    if (start + duration <= it->end) {
      return Slot{static_cast<int>(it - gaps_.begin()), start};
    }
  }
}

void Timeline::Occupy(const Slot& slot, double duration) {
  // A node that takes no time occupies nothing; splitting a gap for it
  // would only leave two gaps where one was.
  if (duration <= 0) return;
  Gap& g = gaps_[slot.gap];
  const double finish = slot.start + duration;
  const bool before = slot.start > g.start;
  const bool after = finish < g.end;
  if (before && after) {
    const Gap rest{finish, g.end};
    g.end = slot.start;
    gaps_.insert(gaps_.begin() + slot.gap + 1, rest);
  } else if (before) {
    g.end = slot.start;
  } else if (after) {
    g.start = finish;
  } else {
    gaps_.erase(gaps_.begin() + slot.gap);
  }
}

}  // namespace tact
