// FlatGraph: what placement reads of a graph's structure, gathered in one
// walk over its nodes into flat arrays by node id, so that colocation, the
// topological order and the simulation (placer.h) read arrays instead of
// each walking pointer-linked nodes and separately allocated edges again.
// On a graph of tens of thousands of nodes every such walk costs a cache
// miss at each step (node, its edge vector, the Edge, the node at its other
// end), whatever it computes: 5-10 ms on 36,000 nodes.
//
//   FlatGraph flat = FlatGraph::Gather(graph);
//   for (int id : flat.TopologicalOrder())
//     for (const FlatGraph::InEdge* e = flat.in_begin(id); e != flat.in_end(id); ++e) ...
//
// Internal to placement/. A snapshot: describes the graph as it was when
// gathered. Immutable; concurrent const use is fine.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "placement/prefetch.h"

namespace tact {

class FlatGraph {
 public:
  struct InEdge {
    int src;         // node id
    int src_output;  // Edge::kControlSlot for a control edge
    int dst_input;   // Edge::kControlSlot for a control edge
    bool ref;        // a data edge into a Ref(T) input of its destination
    bool IsControlEdge() const { return src_output == Edge::kControlSlot; }
  };

  // Linear in nodes + edges.
  static FlatGraph Gather(const Graph& graph);

  int num_ids() const { return static_cast<int>(live_.size()); }
  int num_live() const { return num_live_; }
  int num_edges() const { return static_cast<int>(in_.size()); }
  bool live(int id) const { return live_[id]; }
  // Every edge into node `id`, data and control, in Node::in_edges() order.
  const InEdge* in_begin(int id) const { return in_.data() + first_in_[id]; }
  const InEdge* in_end(int id) const { return in_.data() + first_in_[id + 1]; }
  bool has_inputs(int id) const { return first_in_[id] != first_in_[id + 1]; }
  // Edges out of node `id`, data and control.
  int num_out(int id) const { return num_out_[id]; }

  // Graph::TopologicalOrder()'s order, as node ids. Fewer ids than
  // num_live() when the graph has a cycle; Graph::TopologicalOrder() then
  // says which.
  std::vector<int> TopologicalOrder() const;

 private:
  std::vector<char> live_;
  std::vector<char> allows_cycles_;  // its out-edges do not count for the order
  std::vector<int> first_in_;        // num_ids() + 1 offsets into in_
  std::vector<InEdge> in_;
  std::vector<int> num_out_;
  int num_live_ = 0;
};

}  // namespace tact
