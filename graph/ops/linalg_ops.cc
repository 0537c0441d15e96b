#include "graph/ops/linalg_ops.h"

#include <algorithm>

#include "graph/op_registry.h"
#include "graph/ops/einsum_equation.h"

namespace tact {
namespace {

Status MatrixBandPartShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (!in.unknown_rank() && in.dims() < 2) {
    return errors::InvalidArgument("input must be at least a matrix, got shape ", in.DebugString());
  }
  for (int i : {1, 2}) {
    if (!c->input(i).unknown_rank() && c->input(i).dims() != 0) {
      return errors::InvalidArgument(i == 1 ? "num_lower" : "num_upper", " must be a scalar, got ",
                                     "shape ", c->input(i).DebugString());
    }
  }
  c->set_output(0, in);
  return Status::OK();
}

Status EinsumShape(InferenceContext* c) {
  std::string equation;
  TACT_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  if (c->num_inputs() > 2) {
    return errors::InvalidArgument("the Einsum op takes one or two operands, got ", c->num_inputs(),
                                   " (the Einsum builder chains more)");
  }
  TACT_ASSIGN_OR_RETURN(EinsumEquation eq, ParseEinsumEquation(equation, c->num_inputs()));
  std::vector<PartialTensorShape> shapes;
  for (int i = 0; i < c->num_inputs(); ++i) shapes.push_back(c->input(i));
  TACT_ASSIGN_OR_RETURN(EinsumDims dims, ResolveEinsumDims(eq, shapes));
  c->set_output(0, EinsumOutputShape(eq, dims));
  return Status::OK();
}

// The labels of `a` and then `b` (each once, "..." first if either has it)
// that `needed` has: the subscript of an intermediate product.
std::vector<int> KeptLabels(const std::vector<int>& a, const std::vector<int>& b,
                            const std::vector<bool>& needed) {
  std::vector<int> out;
  if (EinsumEquation::HasEllipsis(a) || EinsumEquation::HasEllipsis(b)) {
    out.push_back(EinsumEquation::kEllipsis);
  }
  for (const auto* sub : {&a, &b}) {
    for (int l : *sub) {
      if (l != EinsumEquation::kEllipsis && needed[l] &&
          std::find(out.begin(), out.end(), l) == out.end()) {
        out.push_back(l);
      }
    }
  }
  return out;
}

}  // namespace

REGISTER_OP("Einsum").Input("inputs: N * T").Output("output: T").Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: {half, bfloat16, float, double, int32, int64, complex64, complex128}")
    .SetShapeFn(EinsumShape);

Output Einsum(const Scope& scope, const std::string& equation, const std::vector<Input>& inputs) {
  if (inputs.size() <= 2) {
    return OpBuilder(scope, "Einsum").InputList(inputs).Attr("equation", equation)
        .FinalizeOutput();
  }
  StatusOr<EinsumEquation> eq = ParseEinsumEquation(equation, static_cast<int>(inputs.size()));
  if (!eq.ok()) {
    scope.UpdateStatus(eq.status());
    return Output();
  }
  Input product = inputs[0];
  std::vector<int> sub = eq->inputs[0];
  for (size_t k = 1; k < inputs.size(); ++k) {
    std::vector<int> kept = eq->output;
    if (k + 1 < inputs.size()) {
      std::vector<bool> needed(EinsumEquation::kFirstEllipsisLabel, false);
      auto mark = [&needed](const std::vector<int>& labels) {
        for (int l : labels) {
          if (l != EinsumEquation::kEllipsis) needed[l] = true;
        }
      };
      for (size_t j = k + 1; j < inputs.size(); ++j) mark(eq->inputs[j]);
      mark(eq->output);
      kept = KeptLabels(sub, eq->inputs[k], needed);
    }
    product = Einsum(scope, EquationString({sub, eq->inputs[k]}, kept), {product, inputs[k]});
    sub = std::move(kept);
  }
  return product.output();
}

REGISTER_OP("MatrixBandPart").Input("input: T").Input("num_lower: Tindex")
    .Input("num_upper: Tindex").Output("band: T").Attr("T: type")
    .Attr("Tindex: {int32, int64} = int64").SetShapeFn(MatrixBandPartShape);

Output MatrixBandPart(const Scope& scope, Input input, Input num_lower, Input num_upper) {
  return OpBuilder(scope, "MatrixBandPart").Input(input).Input(num_lower).Input(num_upper)
      .FinalizeOutput();
}

}  // namespace tact
