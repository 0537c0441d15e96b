// CSE as the master runs it, before placement and partitioning: the merged
// graph, split over three devices, computes bitwise what the original
// computes whole on one.
#include <gtest/gtest.h>

#include <random>

#include "graph/cse.h"
#include "graph/ops/all_ops.h"
#include "tests/placement/partition_test_util.h"

namespace tact {
namespace {

using test::Dev;

Tensor Seeded(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t(DT_FLOAT, {rows, cols});
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

// Two helper calls that compute the same layer, a random draw consumed
// twice, and fetches of everything.
void Build(const Scope& s) {
  auto x = Const(s.WithOpName("x"), Seeded(4, 8, 1));
  auto W = Const(s.WithOpName("W"), Seeded(8, 8, 2));
  auto layer = [&](const Scope& sub) { return Tanh(sub, Add(sub, MatMul(sub, x, W), 0.25f)); };
  auto a = layer(s.NewSubScope("first"));
  auto b = layer(s.NewSubScope("second"));
  auto noise = RandomUniform(s, {4, 8}, DT_FLOAT, 5, 6);
  auto noise2 = RandomUniform(s, {4, 8}, DT_FLOAT, 5, 6);  // same seeds: same draw, kept apart
  test::Fetch(s, Add(s, Mul(s, a, b), noise), "ab");
  test::Fetch(s, Sub(s, Sum(s, b, {0, 1}), Sum(s, noise2, {0, 1})), "sum");
  test::Fetch(s, a, "a");
}

TEST(CsePartitionTest, MergedAndPartitionedGraphComputesTheSameBits) {
  const std::vector<std::string> fetches = {"ab", "sum", "a"};
  Scope original = Scope::NewRootScope();
  Build(original);
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  auto devices = std::vector<std::unique_ptr<Device>>();
  std::map<std::string, Device*> by_name;
  for (int d = 0; d < 3; ++d) {
    devices.push_back(NewCpuDevice(Dev(d), 2));
    by_name[Dev(d)] = devices.back().get();
  }
  auto whole = test::RunWhole(original.shared_graph(), devices[0].get(), fetches);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();

  Scope merged = Scope::NewRootScope();
  Build(merged);
  const int before = merged.graph()->num_nodes();
  // The second layer's MatMul, Const 0.25, Add and Tanh; the second random
  // draw's shape Const and the second Sum's axes. The random ops stay.
  EXPECT_EQ(EliminateCommonSubexpressions(merged.graph()), 6);
  EXPECT_EQ(merged.graph()->num_nodes(), before - 6);
  test::Place(merged.graph(), [](const Node* n) { return n->id() % 3; });
  auto parts = Partition(*merged.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  auto run = test::PartitionedRun::Create(*parts, by_name);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  auto split = (*run)->Step(fetches);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  test::ExpectBitwiseEqual(*whole, *split);
}

}  // namespace
}  // namespace tact
