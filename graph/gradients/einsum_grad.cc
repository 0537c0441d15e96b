// Einsum's gradient. An operand's gradient is itself an Einsum: of the
// output's gradient with the other operand, into the operand's subscript
// ("ij,jk->ik": "ik,jk->ij" for the first operand, "ik,ij->jk" for the
// second). Two things an Einsum alone cannot express follow it:
// - labels the operand alone had and summed away (in "ij->i", j), and
//   "..." dimensions summed away: the gradient repeats along them, an
//   Einsum with OnesLike(operand) that broadcasts it there;
// - ellipsis dimensions that broadcast between the operands: the gradient
//   is summed back to the operand's own (grad::SumToShapeOf).
// The other operand is conjugated where complex, as MatMul's gradient does.
#include <algorithm>
#include <string>

#include "graph/attr_value.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/all_ops.h"
#include "graph/ops/einsum_equation.h"

namespace tact {
namespace {

using Grads = std::vector<Output>;

bool Has(const std::vector<int>& subscript, int label) {
  return std::find(subscript.begin(), subscript.end(), label) != subscript.end();
}

// True if the shapes inferred for `op`'s operands show that operand i's
// ellipsis dimensions are the broadcast ones: its gradient needs no sum
// over them, wherever its "..." stands.
bool EllipsisIsBroadcast(const Node* op, const EinsumEquation& eq, int i) {
  std::vector<PartialTensorShape> shapes;
  for (size_t j = 0; j < eq.inputs.size(); ++j) {
    const Output in = grad::In(op, static_cast<int>(j));
    shapes.push_back(in.node->output_shape(in.index));
  }
  StatusOr<EinsumDims> dims = ResolveEinsumDims(eq, shapes);
  if (!dims.ok() || !dims->ellipsis_known) return false;
  const int e = static_cast<int>(dims->ellipsis.size());
  if (dims->operand_ellipsis_rank[i] != e) return false;
  const std::vector<int>& sub = eq.inputs[i];
  const int before = static_cast<int>(
      std::find(sub.begin(), sub.end(), EinsumEquation::kEllipsis) - sub.begin());
  for (int t = 0; t < e; ++t) {
    const int64_t d = shapes[i].dim_size(before + t);
    if (d < 0 || d != dims->ellipsis[t]) return false;
  }
  return true;
}

Status OperandGrad(const Scope& s, Node* op, const EinsumEquation& eq, int i, Output dy,
                   Output* grad) {
  const int n = static_cast<int>(eq.inputs.size());
  const std::vector<int>& sub = eq.inputs[i];
  const std::vector<int>* other = n == 2 ? &eq.inputs[1 - i] : nullptr;
  std::vector<int> kept;  // the labels of the operand that the gradient's Einsum can produce
  for (int l : sub) {
    if (Has(eq.output, l) || (other != nullptr && Has(*other, l))) kept.push_back(l);
  }
  std::vector<std::vector<int>> subs = {eq.output};
  std::vector<Input> args = {dy};
  if (other != nullptr) {
    subs.push_back(*other);
    args.push_back(grad::ConjIfComplex(s, grad::In(op, 1 - i)));
  }
  const Output x = grad::In(op, i);
  *grad = Einsum(s, EquationString(subs, kept), args);
  // Labels the operand summed alone, or "..." dimensions that the output
  // lacks (the other operand's may be fewer or of size 1): the gradient is
  // broadcast to them.
  const bool ellipsis_summed =
      Has(sub, EinsumEquation::kEllipsis) && !Has(eq.output, EinsumEquation::kEllipsis);
  if (kept.size() != sub.size() || ellipsis_summed) {
    *grad = Einsum(s, EquationString({kept, sub}, sub), {*grad, OnesLike(s, x)});
  }
  // Ellipsis dimensions broadcast only between two operands that both have
  // "...". Then the gradient has the broadcast ones where the operand has
  // its own. SumToShapeOf aligns them from the right, which is where they
  // stand when "..." leads the subscript.
  if (other == nullptr || !Has(sub, EinsumEquation::kEllipsis) ||
      !Has(*other, EinsumEquation::kEllipsis)) {
    return s.status();
  }
  if (sub.front() == EinsumEquation::kEllipsis) {
    *grad = grad::SumToShapeOf(s, *grad, x);
  } else if (!EllipsisIsBroadcast(op, eq, i)) {
    std::string equation;
    TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "equation", &equation));
    return errors::Unimplemented(
        "the gradient of Einsum '", op->name(), "' (", equation, ") for operand ", i,
        ": its '...' does not lead its subscript and may broadcast against the other operand's; "
        "put '...' first, or give the operands shapes whose '...' dimensions are equal");
  }
  return s.status();
}

Status EinsumGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  std::string equation;
  int n = 0;
  TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "equation", &equation));
  TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "N", &n));
  TACT_ASSIGN_OR_RETURN(EinsumEquation eq, ParseEinsumEquation(equation, n));
  for (int i = 0; i < n; ++i) {
    Output grad;
    TACT_RETURN_IF_ERROR(OperandGrad(s, op, eq, i, g[0], &grad));
    out->push_back(grad);
  }
  return s.status();
}

}  // namespace

REGISTER_GRADIENT_OP("Einsum", EinsumGrad);

}  // namespace tact
