// Timeline: the idle gaps of one simulated device, which the simulation's
// insertion policy fills (placement/timeline.h).
#include "placement/timeline.h"

#include <gtest/gtest.h>

namespace tact {
namespace {

TEST(Timeline, AnIdleDeviceStartsANodeWhenItIsReady) {
  Timeline t;
  Timeline::Slot s = t.EarliestSlot(1.5, 2.0);
  EXPECT_EQ(s.start, 1.5);
  t.Occupy(s, 2.0);
  EXPECT_EQ(t.end(), 3.5);
  EXPECT_EQ(t.num_gaps(), 2);  // [0, 1.5) and [3.5, inf)
}

TEST(Timeline, AShortNodeFillsTheGapBeforeALaterOne) {
  Timeline t;
  t.Occupy(t.EarliestSlot(10, 5), 5);  // busy [10, 15)
  // Fits before it: starts when ready, not after 15.
  Timeline::Slot s = t.EarliestSlot(2, 3);
  EXPECT_EQ(s.start, 2);
  t.Occupy(s, 3);                 // busy [2, 5)
  EXPECT_EQ(t.num_gaps(), 3);     // [0, 2), [5, 10), [15, inf)
  // Too long for [5, 10): goes after the last node.
  EXPECT_EQ(t.EarliestSlot(4, 6).start, 15);
  // Exactly fills [5, 10), which disappears.
  s = t.EarliestSlot(5, 5);
  EXPECT_EQ(s.start, 5);
  t.Occupy(s, 5);
  EXPECT_EQ(t.num_gaps(), 2);     // [0, 2), [15, inf)
  EXPECT_EQ(t.end(), 15);
}

TEST(Timeline, ANodeThatTakesNoTimeLeavesTheGapsAlone) {
  Timeline t;
  t.Occupy(t.EarliestSlot(1, 1), 1);
  Timeline::Slot s = t.EarliestSlot(0.5, 0);
  EXPECT_EQ(s.start, 0.5);
  t.Occupy(s, 0);
  EXPECT_EQ(t.num_gaps(), 2);
}

}  // namespace
}  // namespace tact
