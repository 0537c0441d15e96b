// GraphDef <-> Cap'n Proto bytes (schemas/graph.capnp), and Tensor <->
// schema TensorProto. Reading never trusts its input: the reader's traversal
// and nesting limits are set, every index and enum is checked, and a
// malformed buffer is an InvalidArgument / DataLoss that names the field.
#pragma once

#include <string>

#include "graph/graph_def.h"

namespace tact {

StatusOr<std::string> SerializeGraphDef(const GraphDef& def);
StatusOr<GraphDef> ParseGraphDef(const std::string& bytes);

}  // namespace tact
