#include "graph/freeze_variables.h"

#include <map>
#include <set>

#include "graph/node_properties.h"
#include "graph/op_registry.h"
#include "graph/printable.h"

namespace tact {
namespace {

// A Variable's node as a Const of `value`, checked against the Variable's
// own dtype and shape.
StatusOr<NodeDef> AsConst(const NodeDef& variable, const Tensor& value) {
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;
  if (auto it = variable.attrs.find("dtype"); it != variable.attrs.end()) dtype = it->second.type();
  if (auto it = variable.attrs.find("shape"); it != variable.attrs.end()) shape = it->second.shape();
  if (value.dtype() != dtype || !shape.IsCompatibleWith(value.shape())) {
    return errors::InvalidArgument("variable '", variable.name, "' is ", DataTypeString(dtype), " ",
                                   shape.DebugString(), ", but its value is ", DataTypeString(value.dtype()),
                                   " ", value.shape().DebugString());
  }
  NodeDef c;
  c.name = variable.name;
  c.op = "Const";
  c.attrs["dtype"] = AttrValue::Type(dtype);
  c.attrs["value"] = AttrValue::FromTensor(value);
  return c;
}

// The names of the nodes `outputs` need: their inputs, data and control,
// back to the Variables (which have none). None may write a Variable.
StatusOr<std::set<std::string>> NodesNeeded(const std::map<std::string, const NodeDef*>& by_name,
                                            const std::vector<std::string>& outputs) {
  std::set<std::string> needed;
  std::vector<std::string> todo;
  for (const std::string& output : outputs) {
    TACT_ASSIGN_OR_RETURN(InputRef ref, ParseInputRef(output));
    if (by_name.count(ref.node) == 0) {
      return errors::NotFound("output '", Printable(output), "' names no node of the graph");
    }
    todo.push_back(ref.node);
  }
  while (!todo.empty()) {
    const std::string name = std::move(todo.back());
    todo.pop_back();
    if (!needed.insert(name).second) continue;
    const NodeDef& n = *by_name.at(name);
    TACT_ASSIGN_OR_RETURN(const OpDef* op, OpRegistry::Global()->LookUp(n.op));
    for (const OpDef::ArgDef& arg : op->inputs) {
      if (arg.is_ref) {
        return errors::InvalidArgument(NodeErrorPrefix(n.name, n.op),
                                       "writes a variable; a frozen graph only reads them");
      }
    }
    for (const std::string& input : n.inputs) {
      TACT_ASSIGN_OR_RETURN(InputRef ref, ParseInputRef(input));
      if (by_name.count(ref.node) == 0) {
        return errors::NotFound("node '", Printable(n.name), "' reads '", Printable(input),
                                "', which is no node of the graph");
      }
      todo.push_back(ref.node);
    }
  }
  return needed;
}

std::map<std::string, const NodeDef*> ByName(const GraphDef& graph) {
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : graph.nodes) by_name[n.name] = &n;
  return by_name;
}

}  // namespace

StatusOr<std::vector<std::string>> VariablesNeeded(const GraphDef& graph,
                                                   const std::vector<std::string>& outputs) {
  TACT_ASSIGN_OR_RETURN(std::set<std::string> needed, NodesNeeded(ByName(graph), outputs));
  std::vector<std::string> variables;
  for (const NodeDef& n : graph.nodes) {
    if (n.op == "Variable" && needed.count(n.name) > 0) variables.push_back(n.name);
  }
  return variables;
}

StatusOr<GraphDef> FreezeVariables(const GraphDef& graph, const std::vector<std::string>& outputs,
                                   const std::vector<std::pair<std::string, Tensor>>& values) {
  const std::map<std::string, Tensor> value_of(values.begin(), values.end());
  TACT_ASSIGN_OR_RETURN(std::set<std::string> needed, NodesNeeded(ByName(graph), outputs));

  GraphDef frozen;
  frozen.version = graph.version;
  for (const NodeDef& n : graph.nodes) {
    if (needed.count(n.name) == 0) continue;
    if (n.op != "Variable") {
      frozen.nodes.push_back(n);
      frozen.nodes.back().device.clear();
      continue;
    }
    auto v = value_of.find(n.name);
    if (v == value_of.end()) return errors::NotFound("no value for variable '", n.name, "'");
    TACT_ASSIGN_OR_RETURN(NodeDef c, AsConst(n, v->second));
    frozen.nodes.push_back(std::move(c));
  }
  return frozen;
}

}  // namespace tact
