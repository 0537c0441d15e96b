// TopologicalSort on flat arrays: the order Graph::TopologicalOrder keeps
// (graph_test.cc checks it through Graph), here with edges to lower ids,
// ids without a node, and a cycle.
#include "graph/topological_sort.h"

#include <gtest/gtest.h>

namespace tact {
namespace {

// CSR by source from (src, dst) pairs over `n` ids.
struct Csr {
  std::vector<int> first_out, out_dst;
};
Csr MakeCsr(int n, const std::vector<std::pair<int, int>>& edges) {
  Csr c;
  c.first_out.assign(n + 1, 0);
  for (auto [src, dst] : edges) ++c.first_out[src + 1];
  for (int i = 0; i < n; ++i) c.first_out[i + 1] += c.first_out[i];
  c.out_dst.resize(edges.size());
  std::vector<int> next(c.first_out.begin(), c.first_out.end() - 1);
  for (auto [src, dst] : edges) c.out_dst[next[src]++] = dst;
  return c;
}

TEST(TopologicalSortTest, LowestReadyIdFirstIncludingEdgesToLowerIds) {
  // 0 waits for 2 and 3; 4 waits for 1. Ready at first: 1, 2, 3.
  Csr c = MakeCsr(5, {{2, 0}, {3, 0}, {1, 4}});
  EXPECT_EQ(TopologicalSort({1, 1, 1, 1, 1}, c.first_out, c.out_dst),
            (std::vector<int>{1, 2, 3, 0, 4}));
}

TEST(TopologicalSortTest, SkipsIdsWithoutANode) {
  Csr c = MakeCsr(4, {{0, 3}});
  EXPECT_EQ(TopologicalSort({1, 0, 1, 1}, c.first_out, c.out_dst), (std::vector<int>{0, 2, 3}));
}

TEST(TopologicalSortTest, LeavesOutACycleAndWhatFollowsIt) {
  // 1 <-> 2, then 3; 0 is free.
  Csr c = MakeCsr(4, {{1, 2}, {2, 1}, {2, 3}});
  EXPECT_EQ(TopologicalSort({1, 1, 1, 1}, c.first_out, c.out_dst), (std::vector<int>{0}));
}

}  // namespace
}  // namespace tact
