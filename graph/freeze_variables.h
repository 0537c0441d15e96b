// Freezing a graph for inference (TensorFlow's freeze_graph): each
// Variable the outputs read becomes a Const holding its trained value, and
// only the nodes the outputs need remain, with no device asked for. The
// result runs in any Session, on any device, without a checkpoint.
//
//   StatusOr<GraphDef> frozen = FreezeVariables(def, {"probabilities:0"}, checkpoint.variables);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/graph_def.h"
#include "graph/tensor.h"

namespace tact {

// `outputs` are "node:port" or "node" names; `values` hold a value for every
// Variable they need (others are ignored). Errors: NotFound naming an
// output or an input that is no node; NotFound naming a Variable without a
// value; InvalidArgument naming a Variable whose value has another dtype
// or shape; InvalidArgument naming a node that writes a Variable (an
// Assign, an optimizer's update): a frozen graph only reads them.
StatusOr<GraphDef> FreezeVariables(const GraphDef& graph, const std::vector<std::string>& outputs,
                                   const std::vector<std::pair<std::string, Tensor>>& values);

// The names of the Variables `outputs` need, in the graph's order; the
// errors FreezeVariables gives for the outputs and the nodes they need.
StatusOr<std::vector<std::string>> VariablesNeeded(const GraphDef& graph,
                                                   const std::vector<std::string>& outputs);

}  // namespace tact
