// NodeProperties: a NodeDef checked against its OpDef, with the attrs'
// defaults filled in and the dtype of every input and output resolved.
// Graph nodes and kernels are built from these.
//
// Every error names the node and its op: "node 'relu' (op 'Relu'): ...".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/graph_def.h"
#include "graph/op_def.h"

namespace tact {

struct NodeProperties {
  NodeDef def;  // with defaults filled in
  const OpDef* op_def = nullptr;
  std::vector<DataType> input_types;   // one per input port (lists expanded)
  std::vector<DataType> output_types;  // one per output port

  // Looks up the op, fills defaults, validates every attr (present, of the
  // declared kind, allowed value, minimum) and rejects attrs the op does not
  // declare.
  static StatusOr<std::shared_ptr<const NodeProperties>> Create(NodeDef def);

  // "node 'name' (op 'Op'): ", the prefix of every error about this node;
  // "fetch 'y:0': " and "feed 'x:0': " for the _Send and _Recv that a
  // session adds for the client's fetches and feeds.
  std::string ErrorPrefix() const;
};

std::string NodeErrorPrefix(const std::string& node, const std::string& op);

// Fills attrs the NodeDef lacks from the OpDef's defaults.
void AddDefaultAttrs(const OpDef& op, AttrMap* attrs);
// The checks of NodeProperties::Create, without the prefix.
Status ValidateAttrs(const OpDef& op, const AttrMap& attrs);
// The dtypes of every input and output port of a node with these attrs.
Status InOutTypes(const OpDef& op, const AttrMap& attrs, std::vector<DataType>* inputs,
                  std::vector<DataType>* outputs);
// Sets the type and length attrs that `attrs` lacks from the dtypes given
// for each input arg (one vector per arg of `op`; a list arg may hold any
// number): T from the first dtype of an arg typed T, N from a list's length,
// a list(type) attr from the dtypes of its list. Refs count as their base type.
Status InferAttrsFromInputs(const OpDef& op, const std::vector<std::vector<DataType>>& arg_types,
                            AttrMap* attrs);
// The ports [first, first+count) that arg `arg_index` of `args` occupies.
Status ArgPorts(const std::vector<OpDef::ArgDef>& args, const AttrMap& attrs, int arg_index,
                int* first, int* count);

}  // namespace tact
