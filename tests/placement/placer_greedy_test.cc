// The greedy simulated placement (paper 3.2.1): it finds model parallelism,
// follows measured costs, and on the benchmark graphs is no worse than the
// obvious placements (everything on one device, round-robin by layer).
#include <gtest/gtest.h>

#include <cstdio>

#include "graph/ops/all_ops.h"
#include "placement/placer.h"
#include "tests/placement/placement_test_util.h"

namespace tact {
namespace {

using placement_test::AssignAll;
using placement_test::AssignRoundRobinByLayer;
using placement_test::Dev;
using placement_test::LocalCpus;
using placement_test::Makespan;

// x -> 4 MatMuls -> a;  x -> 4 MatMuls -> b;  a + b. The weights are fed
// (Placeholders), so each goes where its one MatMul goes.
void TwoBranches(const Scope& s) {
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({256, 1024}));
  std::vector<Output> ends;
  for (const char* branch : {"a", "b"}) {
    Scope b = s.NewSubScope(branch);
    Output h = x;
    for (int i = 0; i < 4; ++i) {
      std::string w = "w";  // appended: GCC 12 warns (-Wrestrict, wrongly) on "w" + to_string
      w += std::to_string(i);
      h = MatMul(b, h, Placeholder(b.WithOpName(w), DT_FLOAT, PartialTensorShape({1024, 1024})));
    }
    ends.push_back(h);
  }
  Add(s.WithOpName("sum"), ends[0], ends[1]);
}

TEST(GreedyPlacement, TwoHeavyBranchesRunInParallel) {
  Scope s = Scope::NewRootScope();
  TwoBranches(s);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto cost = NewStaticCostModel(*s.graph());
  PlacerOptions opt;
  opt.cost_model = cost.get();
  auto r = Place(s.graph(), LocalCpus(2), opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // The simulation Place ran is the one SimulatedMakespan runs, but for the
  // order in which the sources (the weights) were simulated.
  EXPECT_NEAR(Makespan(*s.graph(), *cost), r->makespan_seconds, 1e-4);
  // One branch per device.
  const Graph& g = *s.graph();
  for (int i = 0; i < 4; ++i) {
    std::string matmul = "a/MatMul";
    if (i > 0) {
      matmul += '_';
      matmul += std::to_string(i);
    }
    EXPECT_EQ(g.FindNode(matmul)->assigned_device(),
              g.FindNode("a/w0")->assigned_device());
  }
  EXPECT_NE(g.FindNode("a/w0")->assigned_device(), g.FindNode("b/w0")->assigned_device());
  // x goes to the branch that moved, and its result comes back for the sum:
  // two [256, 1024] float tensors.
  EXPECT_EQ(r->bytes_across_devices, 2 * 256 * 1024 * 4);

  const double placed = r->makespan_seconds;
  AssignAll(s.graph(), LocalCpus(2)[0]);
  const double one_device = Makespan(*s.graph(), *cost);
  // 8 MatMuls of 2*256*1024*1024 FLOPs at 1e10 FLOP/s: ~0.43 s on one
  // device, about half on two.
  EXPECT_NEAR(one_device, 8 * 2.0 * 256 * 1024 * 1024 / 1e10, 1e-3);
  EXPECT_LT(placed, 0.55 * one_device);
}

// x -> 4 MatMuls of [256, 1024] x [1024, 1024] (about 54 ms each at the
// static model's CPU rate), and beside them one [256, 1024] x [1024, 64]
// MatMul (about 3 ms): a second device could save that 3 ms, under 2% of
// the step.
void ABranchAndATwig(const Scope& s) {
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({256, 1024}));
  Output h = x;
  for (int i = 0; i < 4; ++i) {
    std::string w = "w";
    w += std::to_string(i);
    h = MatMul(s.WithOpName("branch" + std::to_string(i)), h,
               Placeholder(s.WithOpName(w), DT_FLOAT, PartialTensorShape({1024, 1024})));
  }
  MatMul(s.WithOpName("twig"), x,
         Placeholder(s.WithOpName("w_twig"), DT_FLOAT, PartialTensorShape({1024, 64})));
}

TEST(GreedyPlacement, ASmallSimulatedGainKeepsEverythingOnOneDevice) {
  Scope s = Scope::NewRootScope();
  ABranchAndATwig(s);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto cost = NewStaticCostModel(*s.graph());
  PlacerOptions opt;
  opt.cost_model = cost.get();
  // Without the margin the twig runs beside the branch, a little sooner.
  opt.min_spread_gain = 0;
  auto spread = Place(s.graph(), LocalCpus(2), opt);
  ASSERT_TRUE(spread.ok()) << spread.status().ToString();
  const Graph& g = *s.graph();
  EXPECT_NE(g.FindNode("twig")->assigned_device(), g.FindNode("branch0")->assigned_device());
  EXPECT_GT(spread->bytes_across_devices, 0);

  // With the default margin (10%), that is not worth a second device.
  for (Node* n : s.graph()->nodes()) n->set_assigned_device("");
  opt.min_spread_gain = PlacerOptions().min_spread_gain;
  auto r = Place(s.graph(), LocalCpus(2), opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (Node* n : s.graph()->nodes()) EXPECT_EQ(n->assigned_device(), LocalCpus(2)[0]) << n->name();
  EXPECT_EQ(r->nodes_per_device.at(LocalCpus(2)[1]), 0);
  EXPECT_EQ(r->bytes_across_devices, 0);
  // The report is the one-device plan's, which the spread plan beat a little.
  EXPECT_NEAR(r->makespan_seconds, Makespan(g, *cost), 1e-4);
  EXPECT_GT(r->makespan_seconds, spread->makespan_seconds);
  EXPECT_LT(r->makespan_seconds, spread->makespan_seconds / (1 - opt.min_spread_gain));
}

// Where the devices are of two types, the one-device plans are one per
// type, and the faster type's wins: without the margin the twig runs on
// the second GPU; with it every MatMul goes to the first GPU, the second
// gets nothing, and the Placeholders (fed on the host: no GPU kernel) stay
// on the CPU. (Those make the GPU's one-device plan a walk, not a sum.)
TEST(GreedyPlacement, TheOneDevicePlanIsTheFastestTypes) {
  Scope s = Scope::NewRootScope();
  ABranchAndATwig(s);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const std::vector<std::string> devices = {Dev(0, "CPU", 0), Dev(0, "GPU", 0), Dev(0, "GPU", 1)};
  // Measured: the branch's MatMuls 1 s each on a GPU, the twig 0.2 s (ten
  // times that on the CPU), so that a second GPU saves the twig's time (5%)
  // against transfers of microseconds.
  MeasuredCostModel cost(*s.graph());
  for (int i = 0; i < 4; ++i) {
    cost.Record("branch" + std::to_string(i), "GPU", 1.0);
    cost.Record("branch" + std::to_string(i), "CPU", 10.0);
  }
  cost.Record("twig", "GPU", 0.2);
  cost.Record("twig", "CPU", 2.0);
  PlacerOptions opt;
  opt.cost_model = &cost;
  opt.min_spread_gain = 0;
  auto spread = Place(s.graph(), devices, opt);
  ASSERT_TRUE(spread.ok()) << spread.status().ToString();
  EXPECT_GT(spread->nodes_per_device.at(devices[2]), 0);

  for (Node* n : s.graph()->nodes()) n->set_assigned_device("");
  opt.min_spread_gain = PlacerOptions().min_spread_gain;
  auto r = Place(s.graph(), devices, opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (Node* n : s.graph()->nodes()) {
    EXPECT_EQ(n->assigned_device(), n->op() == "MatMul" ? devices[1] : devices[0]) << n->name();
  }
  EXPECT_EQ(r->nodes_per_device.at(devices[2]), 0);
}

// Across tasks the spreading is the graph's own: no one-device plan is
// weighed, and the twig runs beside the branch on the other task.
TEST(GreedyPlacement, AcrossTasksNoOneDevicePlanIsWeighed) {
  Scope s = Scope::NewRootScope();
  ABranchAndATwig(s);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto r = Place(s.graph(), {Dev(0, "CPU", 0), Dev(1, "CPU", 0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->nodes_per_device.at(Dev(1, "CPU", 0)), 0);
}

TEST(GreedyPlacement, IsDeterministic) {
  auto place = [] {
    Scope s = Scope::NewRootScope();
    placement_test::BuildWideGraph(s, 6, 4, 128);
    EXPECT_TRUE(Place(s.graph(), LocalCpus(3)).ok());
    std::vector<std::string> out;
    for (Node* n : s.graph()->nodes()) out.push_back(n->assigned_device());
    return out;
  };
  EXPECT_EQ(place(), place());
}

TEST(GreedyPlacement, OneDeviceTakesEverything) {
  Scope s = Scope::NewRootScope();
  TwoBranches(s);
  auto r = Place(s.graph(), {Dev(0, "CPU", 7)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->nodes_per_device.at(Dev(0, "CPU", 7)), s.graph()->num_nodes());
  EXPECT_EQ(r->bytes_across_devices, 0);
}

TEST(GreedyPlacement, MeasuredCostsChangeThePlacement) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({512, 512}));
  auto mm = MatMul(s.WithOpName("mm"), x, x);
  ASSERT_TRUE(s.ok());
  const std::vector<std::string> devices = {Dev(0, "CPU", 0), Dev(0, "GPU", 0)};
  // Estimated: the GPU's FLOP rate wins.
  MeasuredCostModel measured(*s.graph());
  PlacerOptions opt;
  opt.cost_model = &measured;
  auto r = Place(s.graph(), devices, opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(mm.node->assigned_device(), Dev(0, "GPU", 0));
  // Measured: this MatMul is slow on the GPU (say, a poor kernel for its
  // shape), fast on the CPU.
  measured.Record("mm", "GPU", 0.5);
  measured.Record("mm", "CPU", 0.001);
  for (Node* n : s.graph()->nodes()) n->set_assigned_device("");
  r = Place(s.graph(), devices, opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(mm.node->assigned_device(), Dev(0, "CPU", 0));
  EXPECT_NEAR(r->makespan_seconds, 0.001 + 2e-6, 1e-9);  // the Placeholder's overhead first
}

// Place, then the two obvious alternatives, all by the same cost model.
void ExpectNoWorseThanTheObviousPlacements(const std::string& what, Graph* g, int devices) {
  auto cost = NewStaticCostModel(*g);
  PlacerOptions opt;
  opt.cost_model = cost.get();
  auto r = Place(g, LocalCpus(devices), opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const double greedy = Makespan(*g, *cost);  // re-simulated: the same rules for all three
  AssignAll(g, LocalCpus(devices)[0]);
  const double one = Makespan(*g, *cost);
  AssignRoundRobinByLayer(g, LocalCpus(devices));
  const double rr = Makespan(*g, *cost);
  std::printf("%s on %d devices (%d nodes): greedy %.6f s, one device %.6f s, "
              "round-robin by layer %.6f s\n",
              what.c_str(), devices, g->num_nodes(), greedy, one, rr);
  EXPECT_LE(greedy, one) << what;
  EXPECT_LE(greedy, rr) << what;
}

class BenchmarkGraphs : public ::testing::TestWithParam<int> {};

TEST_P(BenchmarkGraphs, MlpTraining) {
  Scope s = Scope::NewRootScope();
  ASSERT_TRUE(placement_test::BuildTrainingGraph(s, "mlp").ok()) << s.status().ToString();
  ExpectNoWorseThanTheObviousPlacements("mlp training", s.graph(), GetParam());
}

TEST_P(BenchmarkGraphs, CnnTraining) {
  Scope s = Scope::NewRootScope();
  ASSERT_TRUE(placement_test::BuildTrainingGraph(s, "cnn").ok()) << s.status().ToString();
  ExpectNoWorseThanTheObviousPlacements("cnn training", s.graph(), GetParam());
}

TEST_P(BenchmarkGraphs, Wide) {
  Scope s = Scope::NewRootScope();
  placement_test::BuildWideGraph(s, 16, 8, 512);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectNoWorseThanTheObviousPlacements("wide", s.graph(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Devices, BenchmarkGraphs, ::testing::Values(2, 4, 8));

}  // namespace
}  // namespace tact
