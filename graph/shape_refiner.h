// Static shape inference over a Graph: each node's shape function runs on
// the shapes inferred for its inputs (and on the values of Const inputs),
// and the results are stored on the node (Node::output_shape). The builder
// runs it as each node is added, so `MatMul(s, [2,3], [4,5])` fails at
// construction, naming the node, as TensorFlow's C++ API does; the placer's
// cost model reads the shapes later.
#pragma once

#include "graph/graph.h"

namespace tact {

// Infers `node`'s output shapes from its inputs' current shapes. The error
// of a shape function names the node and its op.
Status InferNodeShapes(Node* node);
// Every node, in topological order.
Status InferShapes(Graph* graph);

}  // namespace tact
