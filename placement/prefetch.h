// PrefetchNode: asks for a node of a graph to be brought into the cache a
// few steps before a walk over the nodes reaches it.
//
//   for (int id = 0; id < graph.num_node_ids(); ++id) {
//     PrefetchNode(graph, id + kPrefetchDistance);
//     ... graph.node(id) ...
//   }
//
// Why: nodes are allocated among their properties, attrs, shapes and edges,
// so the hardware cannot guess where the next one sits, and a walk that
// touches each node once (the placer's and the partitioner's, over tens of
// thousands of nodes) otherwise waits for one cache miss after another.
// Internal to placement/. A hint only: no effect on results.
#pragma once

#include "graph/graph.h"

namespace tact {

// Far enough ahead for the miss to complete, near enough for the node to
// still be in the cache when the walk gets there.
constexpr int kPrefetchDistance = 8;

inline void PrefetchNode(const Graph& graph, int id) {
  if (id < graph.num_node_ids()) __builtin_prefetch(graph.node(id));
}

}  // namespace tact
