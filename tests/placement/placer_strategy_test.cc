// The placer's baselines (PlacerOptions::strategy), which `tact bench place
// --runtime` judges the greedy placement against: all on the first feasible
// device, or groups dealt out round-robin in topological order. Colocation
// and requested devices hold for them as for the greedy placement.
#include <gtest/gtest.h>

#include <set>

#include "graph/ops/all_ops.h"
#include "placement/placer.h"
#include "tests/placement/placement_test_util.h"

namespace tact {
namespace {

using placement_test::LocalCpus;

// Four independent Exp chains of two, and a Variable with its Assign (one
// colocation group through the reference edge).
struct Branches {
  Scope s = Scope::NewRootScope();
  std::vector<Output> heads, tails;
  Output var, assign;
  Branches() {
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({64}));
    for (int i = 0; i < 4; ++i) {
      heads.push_back(Exp(s.WithOpName("head" + std::to_string(i)), x));
      tails.push_back(Exp(s.WithOpName("tail" + std::to_string(i)), heads.back()));
    }
    var = Variable(s.WithOpName("v"), PartialTensorShape({64}));
    assign = Assign(s.WithOpName("init"), var, tails[0]);
  }
};

TEST(PlacerStrategyTest, OneDevicePutsEveryNodeOnTheFirst) {
  Branches b;
  PlacerOptions o;
  o.strategy = PlacementStrategy::kOneDevice;
  auto r = Place(b.s.graph(), LocalCpus(3), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (Node* n : b.s.graph()->nodes()) EXPECT_EQ(n->assigned_device(), LocalCpus(3)[0]) << n->name();
  EXPECT_EQ(r->bytes_across_devices, 0);
}

TEST(PlacerStrategyTest, RoundRobinDealsGroupsOutAndKeepsColocation) {
  Branches b;
  PlacerOptions o;
  o.strategy = PlacementStrategy::kRoundRobin;
  auto r = Place(b.s.graph(), LocalCpus(2), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::set<std::string> used;
  for (Node* n : b.s.graph()->nodes()) used.insert(n->assigned_device());
  EXPECT_EQ(used.size(), 2u);
  // Each Exp is a group of its own, dealt in turn: the eight split evenly.
  int on_first = 0;
  for (const auto* outs : {&b.heads, &b.tails}) {
    for (const Output& e : *outs) on_first += e.node->assigned_device() == LocalCpus(2)[0];
  }
  EXPECT_EQ(on_first, 4);
  EXPECT_EQ(b.var.node->assigned_device(), b.assign.node->assigned_device());
}

TEST(PlacerStrategyTest, RequestedDevicesHoldForEveryStrategy) {
  for (PlacementStrategy strategy : {PlacementStrategy::kOneDevice, PlacementStrategy::kRoundRobin}) {
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
    auto y = Exp(s.WithOpName("y").WithDevice("/device:CPU:1"), x);
    PlacerOptions o;
    o.strategy = strategy;
    auto r = Place(s.graph(), LocalCpus(2), o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(y.node->assigned_device(), LocalCpus(2)[1]);
  }
}

}  // namespace
}  // namespace tact
