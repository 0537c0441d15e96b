#include "graph/op_builder.h"

#include "graph/op_registry.h"
#include "graph/shape_refiner.h"

namespace tact {

OpBuilder::OpBuilder(const Scope& scope, std::string op) : scope_(scope), op_(std::move(op)) {}

Output OpBuilder::Resolve(const ::tact::Input& x) {
  // The Const gets its own unique name: a WithOpName meant for this node
  // must not name the constant (both would claim it).
  if (x.is_constant()) return Const(scope_.WithOpName(""), x.constant());
  return x.output();
}

OpBuilder& OpBuilder::Input(const ::tact::Input& x) {
  args_.push_back(Arg{{Resolve(x)}, false});
  return *this;
}

OpBuilder& OpBuilder::InputList(const std::vector<::tact::Input>& xs) {
  Arg arg{{}, true};
  for (const auto& x : xs) arg.outputs.push_back(Resolve(x));
  args_.push_back(std::move(arg));
  return *this;
}

OpBuilder& OpBuilder::Attr(const std::string& name, AttrValue value) {
  attrs_[name] = std::move(value);
  return *this;
}

Node* OpBuilder::Finalize() {
  if (!scope_.ok()) return nullptr;
  for (const Arg& a : args_) {
    for (const Output& o : a.outputs) {
      if (!o.ok()) {
        scope_.UpdateStatus(errors::InvalidArgument("an input of a new '", op_, "' node is empty"));
        return nullptr;
      }
      // A node without that output (a NoOp, as a train op is) can only be
      // a control dependency.
      if (o.index < 0 || o.index >= o.node->num_outputs()) {
        scope_.UpdateStatus(errors::InvalidArgument(
            "an input of a new '", op_, "' node is output ", o.index, " of ", o.node->ErrorPrefix(),
            "which has ", o.node->num_outputs(), " output(s); a node without outputs can only be a ",
            "control dependency"));
        return nullptr;
      }
    }
  }
  const std::string name = scope_.NodeName(op_);
  auto fail = [&](const Status& s) -> Node* {
    scope_.UpdateStatus(s.WithPrefix(NodeErrorPrefix(name, op_)));
    return nullptr;
  };
  StatusOr<const OpDef*> op = OpRegistry::Global()->LookUp(op_);
  if (!op.ok()) return fail(op.status());
  const OpDef& def = **op;
  std::vector<std::vector<DataType>> arg_types;
  for (size_t i = 0; i < args_.size(); ++i) {
    if (i < def.inputs.size() && def.inputs[i].is_list() != args_[i].is_list) {
      return fail(errors::InvalidArgument("input '", def.inputs[i].name, "' ",
                                          def.inputs[i].is_list() ? "is a list" : "is not a list"));
    }
    std::vector<DataType> types;
    for (const Output& o : args_[i].outputs) types.push_back(o.type());
    arg_types.push_back(std::move(types));
  }
  Status inferred = InferAttrsFromInputs(def, arg_types, &attrs_);
  if (!inferred.ok()) return fail(inferred);
  if (!scope_.colocation().empty()) {
    attrs_["_class"] = AttrValue::StringList(scope_.colocation());
  }
  NodeDef nd;
  nd.name = name;
  nd.op = op_;
  nd.device = scope_.device();
  nd.attrs = attrs_;
  Graph* g = scope_.graph();
  StatusOr<Node*> node = g->AddNode(std::move(nd));
  if (!node.ok()) {
    scope_.UpdateStatus(node.status());
    return nullptr;
  }
  int port = 0;
  for (const Arg& a : args_) {
    for (const Output& o : a.outputs) {
      StatusOr<const Edge*> e = g->AddEdge(o.node, o.index, *node, port++);
      if (!e.ok()) {
        g->RemoveNode(*node);
        scope_.UpdateStatus(e.status());
        return nullptr;
      }
    }
  }
  Status shapes = InferNodeShapes(*node);
  if (!shapes.ok()) {
    g->RemoveNode(*node);
    scope_.UpdateStatus(shapes);
    return nullptr;
  }
  for (Node* dep : scope_.control_deps()) g->AddControlEdge(dep, *node);
  return *node;
}

Output OpBuilder::FinalizeOutput(int i) {
  Node* n = Finalize();
  if (n == nullptr) return Output();
  if (i >= n->num_outputs()) {
    scope_.UpdateStatus(errors::Internal(n->ErrorPrefix(), "has no output ", i));
    return Output();
  }
  return Output(n, i);
}

std::vector<Output> OpBuilder::FinalizeOutputs() {
  Node* n = Finalize();
  std::vector<Output> out;
  if (n == nullptr) return out;
  for (int i = 0; i < n->num_outputs(); ++i) out.emplace_back(n, i);
  return out;
}

Output Const(const Scope& scope, const Tensor& value) {
  return OpBuilder(scope, "Const")
      .Attr("value", AttrValue::FromTensor(value))
      .Attr("dtype", value.dtype())
      .FinalizeOutput();
}

}  // namespace tact
