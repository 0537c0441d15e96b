// The placer's simulation costs a small Const read on another device as the
// partitioner will run it: as a copy made there, not a transfer each step
// (placement/const_copies.h). A large Const, a device of another type, or
// copies turned off (0 bytes) still pay the transfer.
#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"
#include "placement/placer.h"
#include "tests/placement/placement_test_util.h"

namespace tact {
namespace {

using placement_test::Dev;
using placement_test::Makespan;

// A link latency far above any node's time, so that a transfer shows.
constexpr double kLatency = 1e-3;

std::unique_ptr<CostModel> SlowLinks(const Graph& g) {
  StaticCostOptions o;
  o.same_task = {kLatency, 1e10};
  return NewStaticCostModel(g, o);
}

// k, a Const of `elements` floats, read by x on `x_device` and by z on
// device 0 of the CPU.
struct TwoReaders {
  Scope s = Scope::NewRootScope();
  explicit TwoReaders(int64_t elements, const std::string& x_device = Dev(0, "CPU", 1)) {
    std::vector<float> v(static_cast<size_t>(elements), 0.5f);
    auto k = Const(s.WithOpName("k"), Tensor::FromVector<float>(v));
    Neg(s.WithOpName("x").WithDevice(x_device), k);
    Exp(s.WithOpName("z").WithDevice(Dev(0, "CPU", 0)), k);
  }
  // Places k with z, as the placer's generator rule does, and the others
  // where they asked to be.
  void AssignAsRequested() {
    for (Node* n : s.graph()->nodes()) {
      n->set_assigned_device(n->requested_device().empty() ? Dev(0, "CPU", 0) : n->requested_device());
    }
  }
};

TEST(PlacerConstCopies, ASmallConstOnAnotherCpuCostsNoTransfer) {
  TwoReaders small(3);  // 12 bytes
  ASSERT_TRUE(small.s.ok()) << small.s.status().ToString();
  small.AssignAsRequested();
  auto cost = SlowLinks(*small.s.graph());
  EXPECT_LT(Makespan(*small.s.graph(), *cost), kLatency);

  TwoReaders large(257);  // 1028 bytes: above the default 1 KiB
  ASSERT_TRUE(large.s.ok()) << large.s.status().ToString();
  large.AssignAsRequested();
  EXPECT_GT(Makespan(*large.s.graph(), *SlowLinks(*large.s.graph())), kLatency);
}

TEST(PlacerConstCopies, TheReportCountsNoBytesForACopyAndTheLimitIsAnOption) {
  for (int64_t limit : {PlacerOptions().duplicate_const_max_bytes, int64_t{0}}) {
    TwoReaders g(3);
    ASSERT_TRUE(g.s.ok()) << g.s.status().ToString();
    auto cost = SlowLinks(*g.s.graph());
    PlacerOptions o;
    o.cost_model = cost.get();
    o.duplicate_const_max_bytes = limit;
    auto r = Place(g.s.graph(), {Dev(0, "CPU", 0), Dev(0, "CPU", 1)}, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (limit > 0) {
      EXPECT_EQ(r->bytes_across_devices, 0);
      EXPECT_LT(r->makespan_seconds, kLatency);
    } else {
      EXPECT_EQ(r->bytes_across_devices, 12);
      EXPECT_GT(r->makespan_seconds, kLatency);
    }
  }
}

TEST(PlacerConstCopies, ADeviceOfAnotherTypeStillReceivesTheConst) {
  TwoReaders g(3, Dev(0, "GPU", 0));
  ASSERT_TRUE(g.s.ok()) << g.s.status().ToString();
  g.AssignAsRequested();
  EXPECT_GT(Makespan(*g.s.graph(), *SlowLinks(*g.s.graph())), kLatency);
}

}  // namespace
}  // namespace tact
