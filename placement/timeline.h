// Timeline: when one simulated device is idle, for the simulation's
// insertion policy (simulation.h): a node may run in any idle gap of its
// device that starts late enough for its inputs and is long enough for it,
// not only after the last node placed there.
//
//   Timeline t;                                  // idle from 0 on
//   Timeline::Slot s = t.EarliestSlot(/*ready=*/1.0, /*duration=*/2.0);
//   t.Occupy(s, 2.0);                            // busy over [1, 3)
//   t.EarliestSlot(0.0, 0.5).start;              // 0: the gap before it
//
// Gaps are kept sorted and disjoint, the last one open-ended, so a query is
// a binary search for the first gap that ends after `ready`, then a walk
// over the gaps too short for the node. Internal to placement/.
#pragma once

#include <limits>
#include <vector>

namespace tact {

class Timeline {
 public:
  struct Slot {
    int gap;       // index of the idle gap it starts in
    double start;  // when the node would start
  };

  // The earliest start at or after `ready` of an idle stretch of at least
  // `duration` seconds.
  Slot EarliestSlot(double ready, double duration) const;
  // Marks [slot.start, slot.start + duration) busy. `slot` must come from
  // EarliestSlot with the same duration and no Occupy since.
  void Occupy(const Slot& slot, double duration);

  // When the device goes idle for good: the end of its last busy stretch.
  double end() const { return gaps_.back().start; }
  int num_gaps() const { return static_cast<int>(gaps_.size()); }

 private:
  struct Gap {
    double start;
    double end;
  };
  std::vector<Gap> gaps_ = {Gap{0, std::numeric_limits<double>::infinity()}};
};

}  // namespace tact
