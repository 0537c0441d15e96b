// TopologicalSort: the order Graph::TopologicalOrder() defines (Kahn's
// algorithm, the lowest ready id first), over a graph given as flat arrays
// of node ids. Graph::TopologicalOrder builds them from its nodes; the placer
// builds them in the one walk over the graph it gathers everything else in
// (placement/flat_graph.h), so that the order costs no second walk over
// pointer-linked nodes and edges.
//
//   // ids 0 -> 2, 1 -> 2: edges as CSR by source
//   std::vector<int> order = TopologicalSort({1, 1, 1}, {0, 1, 2, 2}, {2, 2});  // {0, 1, 2}
#pragma once

#include <vector>

namespace tact {

// `live[id]`: whether id is a node (ids without one are skipped);
// `first_out` (live.size() + 1 offsets) and `out_dst`: the destinations of
// the edges that count, by source. Linear in ids + edges when every edge
// goes to a higher id; each edge to a lower id adds a log factor for its
// node. Returns fewer ids than there are live ones when the counted edges
// have a cycle (its nodes are the ones left out).
std::vector<int> TopologicalSort(const std::vector<char>& live, const std::vector<int>& first_out,
                                 const std::vector<int>& out_dst);

}  // namespace tact
