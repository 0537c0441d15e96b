#include "graph/ops/control_flow_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

Status SwitchShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return Status::OK();
}

// The most specific shape every input fits: a Merge's value comes from any
// one of them. An input not yet inferred (a loop's back edge, before the
// NextIteration is visited) makes the shape unknown.
Status MergeShape(InferenceContext* c) {
  PartialTensorShape merged = c->input(0);
  for (int i = 1; i < c->num_inputs() && !merged.unknown_rank(); ++i) {
    const PartialTensorShape& in = c->input(i);
    if (in.unknown_rank() || in.dims() != merged.dims()) {
      merged = PartialTensorShape::Unknown();
      break;
    }
    std::vector<int64_t> dims = merged.dim_sizes();
    for (int d = 0; d < in.dims(); ++d) {
      if (dims[d] != in.dim_size(d)) dims[d] = -1;
    }
    merged = PartialTensorShape(std::move(dims));
  }
  c->set_output(0, merged);
  c->set_output(1, PartialTensorShape({}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Switch").Input("data: T").Input("pred: bool").Output("output_false: T")
    .Output("output_true: T").Attr("T: type").SetShapeFn(SwitchShape);
REGISTER_OP("Merge").Input("inputs: N * T").Output("output: T").Output("value_index: int32")
    .Attr("T: type").Attr("N: int >= 1").SetShapeFn(MergeShape);
REGISTER_OP("Enter").Input("data: T").Output("output: T").Attr("T: type")
    .Attr("frame_name: string").Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10").SetShapeFn(shape_fn::UnchangedShape);
// Enter for a reference (a Variable, a TensorArray): every iteration's
// consumers read through it, so they see the variable as it is then.
REGISTER_OP("RefEnter").Input("data: Ref(T)").Output("output: Ref(T)").Attr("T: type")
    .Attr("frame_name: string").Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10").SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("Exit").Input("data: T").Output("output: T").Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("NextIteration").Input("data: T").Output("output: T").Attr("T: type")
    .SetAllowsCycles().SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("LoopCond").Input("input: bool").Output("output: bool")
    .SetShapeFn(shape_fn::UnchangedShape);

SwitchOutputs Switch(const Scope& scope, Input data, Input pred) {
  Node* n = OpBuilder(scope, "Switch").Input(data).Input(pred).Finalize();
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

MergeOutputs Merge(const Scope& scope, const std::vector<Input>& inputs) {
  Node* n = OpBuilder(scope, "Merge").InputList(inputs).Finalize();
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

Output Enter(const Scope& scope, Input data, const std::string& frame_name, bool is_constant,
             int parallel_iterations) {
  const bool ref = !data.is_constant() && IsRefType(data.output().type());
  return OpBuilder(scope, ref ? "RefEnter" : "Enter").Input(data).Attr("frame_name", frame_name)
      .Attr("is_constant", is_constant).Attr("parallel_iterations", parallel_iterations)
      .FinalizeOutput();
}

Output Exit(const Scope& scope, Input data) {
  return OpBuilder(scope, "Exit").Input(data).FinalizeOutput();
}

Output NextIteration(const Scope& scope, Input data) {
  return OpBuilder(scope, "NextIteration").Input(data).FinalizeOutput();
}

Output LoopCond(const Scope& scope, Input pred) {
  return OpBuilder(scope, "LoopCond").Input(pred).FinalizeOutput();
}

bool IsControlFlowOp(const std::string& op) {
  return op == "Switch" || op == "Merge" || op == "Enter" || op == "RefEnter" || op == "Exit" ||
         op == "NextIteration" || op == "LoopCond";
}

}  // namespace tact
