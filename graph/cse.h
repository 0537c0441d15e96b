// Common subexpression elimination (paper 5.1): a pass over the graph that
// canonicalizes multiple copies of an operation with identical inputs and
// operation type to a single node, and redirects the edges of the others
// to it. Graphs built by layers of abstraction (two helper calls that each
// compute the same thing) shrink before placement, so the work and the
// tensors exist once.
//
// Run it on the graph of one Run, after BuildSubgraph (subgraph.h): the
// fetches are _Send nodes by then and keep working, whereas on the full
// graph a node a client later fetches by name may have been merged away.
//
//   std::unique_ptr<Graph> g = ...;
//   int removed = EliminateCommonSubexpressions(g.get());
//
// Two nodes are merged when they have the same op, the same attrs
// (tensors compared bitwise), the same requested and assigned device, the
// same data inputs port by port (the same node and output, after earlier
// merges) and the same set of control inputs (their order has no meaning
// to the executor, so it is not compared). The node kept is the first in
// topological order with lowest-id tie-break, which is the lowest id for
// graphs whose ids follow construction order (every builder graph); the
// other's consumers are rewired to it and it is removed.
//
// Never merged, because running them once instead of twice changes what
// the graph does or what a client can name:
//  - stateful ops (OpDef::is_stateful: Variable, random ops, _Send/_Recv);
//  - ops with a ref input or output (Assign, AssignAdd, Apply*: their op
//    defs are not marked stateful, but each one is an update of its own);
//  - Placeholder (two placeholders of one dtype are two different feeds);
//  - ops without outputs (NoOp and friends exist to be named as targets or
//    control dependencies; merging them saves no work);
//  - ops that allow cycles (NextIteration), whose inputs are not yet
//    canonical when they are visited;
//  - nodes another node names in a colocation hint ("loc:@name" in its
//    _class attr), which would be left pointing at nothing.
#pragma once

#include "graph/graph.h"

namespace tact {

// Merges equivalent nodes in place and returns how many were removed.
// Graph::TopologicalOrder (linear on builder graphs), then a hash per node and expected O(1)
// lookups. A graph with a cycle (Graph::TopologicalOrder fails) is left
// unchanged and 0 returned: it is invalid anyway, and Validate names the
// cycle. Not thread-safe: the caller owns the graph exclusively.
int EliminateCommonSubexpressions(Graph* graph);

}  // namespace tact
