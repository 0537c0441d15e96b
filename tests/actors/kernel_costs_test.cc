#include "actors/kernel_costs.h"

#include <gtest/gtest.h>

namespace tact {
namespace {

constexpr int64_t kCheap = KernelCosts::kInlineBelowNs / 10;
constexpr int64_t kCostly = KernelCosts::kInlineBelowNs * 10;

TEST(KernelCostsTest, AKernelDeclaredCheapIsNeverTimedNorHandedOff) {
  KernelCosts costs({false});
  EXPECT_FALSE(costs.Expensive(0));
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(costs.Timed(0));
  costs.Record(0, kCostly * 100);  // ignored
  EXPECT_FALSE(costs.Expensive(0));
}

TEST(KernelCostsTest, ADeclaredExpensiveKernelIsTimedUntilItProvesCheap) {
  KernelCosts costs({true, true});
  EXPECT_TRUE(costs.Expensive(0));
  EXPECT_TRUE(costs.Timed(0));
  costs.Record(0, kCheap);
  EXPECT_FALSE(costs.Expensive(0));
  costs.Record(1, kCostly);
  EXPECT_TRUE(costs.Expensive(1));
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(costs.Timed(1));
}

TEST(KernelCostsTest, ASlowFirstRunIsForgottenWithinAFewFastOnes) {
  KernelCosts costs({true});
  costs.Record(0, 50 * KernelCosts::kInlineBelowNs);  // cold caches, page faults
  int runs = 0;
  while (costs.Expensive(0) && runs < 100) {
    costs.Record(0, kCheap);
    ++runs;
  }
  EXPECT_LE(runs, 7);  // halving from 50x the threshold
}

TEST(KernelCostsTest, ALearnedCheapKernelIsResampledAndGoesBackWhenItGrows) {
  KernelCosts costs({true});
  costs.Record(0, kCheap);
  int timed = 0;
  for (uint32_t i = 0; i < 10 * KernelCosts::kResampleEvery; ++i) timed += costs.Timed(0);
  EXPECT_EQ(timed, 10);
  // One preemption does not send it back ...
  costs.Record(0, 3 * KernelCosts::kInlineBelowNs);
  EXPECT_FALSE(costs.Expensive(0));
  // ... a run far above the threshold (its inputs grew) does.
  costs.Record(0, 100 * KernelCosts::kInlineBelowNs);
  EXPECT_TRUE(costs.Expensive(0));
}

}  // namespace
}  // namespace tact
