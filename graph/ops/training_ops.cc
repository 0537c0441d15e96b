#include "graph/ops/training_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

// Output = var's shape; every dense input of the same shape must be
// compatible with it and every hyper-parameter must be a scalar.
Status ApplyShape(InferenceContext* c, std::initializer_list<int> same,
                  std::initializer_list<int> scalars) {
  const PartialTensorShape& var = c->input(0);
  for (int i : same) {
    if (!var.IsCompatibleWith(c->input(i))) {
      return errors::InvalidArgument("input ", i, " of shape ", c->input(i).DebugString(),
                                     " does not match var of shape ", var.DebugString());
    }
  }
  for (int i : scalars) {
    if (c->input(i).dims() > 0) {
      return errors::InvalidArgument("input ", i, " must be a scalar, got shape ",
                                     c->input(i).DebugString());
    }
  }
  c->set_output(0, var);
  return Status::OK();
}

// The sparse form: as ApplyShape, and grad holds the rows of var that the
// vector `indices` picks.
Status SparseApplyShape(InferenceContext* c, std::initializer_list<int> same,
                        std::initializer_list<int> scalars, int grad, int indices) {
  const PartialTensorShape& ids = c->input(indices);
  if (!ids.unknown_rank() && ids.dims() != 1) {
    return errors::InvalidArgument("indices must be a vector, got shape ", ids.DebugString());
  }
  TACT_RETURN_IF_ERROR(shape_fn::CheckSlices(c, 0, indices, grad));
  return ApplyShape(c, same, scalars);
}

}  // namespace

REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)").Input("alpha: T").Input("delta: T").Output("out: Ref(T)")
    .Attr("T: {float, double}").Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {2}, {1}); });
REGISTER_OP("ApplyMomentum")
    .Input("var: Ref(T)").Input("accum: Ref(T)").Input("lr: T").Input("grad: T")
    .Input("momentum: T").Output("out: Ref(T)")
    .Attr("T: {float, double}").Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 3}, {2, 4}); });
REGISTER_OP("ApplyAdam")
    .Input("var: Ref(T)").Input("m: Ref(T)").Input("v: Ref(T)").Input("beta1_power: T")
    .Input("beta2_power: T").Input("lr: T").Input("beta1: T").Input("beta2: T")
    .Input("epsilon: T").Input("grad: T").Output("out: Ref(T)")
    .Attr("T: {float, double}").Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 2, 9}, {3, 4, 5, 6, 7, 8}); });
REGISTER_OP("ApplyRMSProp")
    .Input("var: Ref(T)").Input("ms: Ref(T)").Input("mom: Ref(T)").Input("lr: T")
    .Input("rho: T").Input("momentum: T").Input("epsilon: T").Input("grad: T")
    .Output("out: Ref(T)").Attr("T: {float, double}").Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 2, 7}, {3, 4, 5, 6}); });
REGISTER_OP("ApplyAdagrad")
    .Input("var: Ref(T)").Input("accum: Ref(T)").Input("lr: T").Input("grad: T")
    .Output("out: Ref(T)").Attr("T: {float, double}").Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 3}, {2}); });
REGISTER_OP("ApplyAdagradV2")
    .Input("var: Ref(T)").Input("accum: Ref(T)").Input("lr: T").Input("epsilon: T")
    .Input("grad: T").Output("out: Ref(T)").Attr("T: {float, double}")
    .Attr("use_locking: bool = false").Attr("update_slots: bool = true")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 4}, {2, 3}); });
REGISTER_OP("SparseApplyMomentum")
    .Input("var: Ref(T)").Input("accum: Ref(T)").Input("lr: T").Input("grad: T")
    .Input("indices: Tindices").Input("momentum: T").Output("out: Ref(T)")
    .Attr("T: {float, double}").Attr("Tindices: {int32, int64}").Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) { return SparseApplyShape(c, {1}, {2, 5}, 3, 4); });
REGISTER_OP("SparseApplyRMSProp")
    .Input("var: Ref(T)").Input("ms: Ref(T)").Input("mom: Ref(T)").Input("lr: T")
    .Input("rho: T").Input("momentum: T").Input("epsilon: T").Input("grad: T")
    .Input("indices: Tindices").Output("out: Ref(T)").Attr("T: {float, double}")
    .Attr("Tindices: {int32, int64}").Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return SparseApplyShape(c, {1, 2}, {3, 4, 5, 6}, 7, 8); });
REGISTER_OP("SparseApplyAdagrad")
    .Input("var: Ref(T)").Input("accum: Ref(T)").Input("lr: T").Input("grad: T")
    .Input("indices: Tindices").Output("out: Ref(T)").Attr("T: {float, double}")
    .Attr("Tindices: {int32, int64}").Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn([](InferenceContext* c) { return SparseApplyShape(c, {1}, {2}, 3, 4); });
REGISTER_OP("SparseApplyAdagradV2")
    .Input("var: Ref(T)").Input("accum: Ref(T)").Input("lr: T").Input("epsilon: T")
    .Input("grad: T").Input("indices: Tindices").Output("out: Ref(T)").Attr("T: {float, double}")
    .Attr("Tindices: {int32, int64}").Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn([](InferenceContext* c) { return SparseApplyShape(c, {1}, {2, 3}, 4, 5); });
REGISTER_OP("CheckNumerics")
    .Input("tensor: T").Output("output: T").Attr("T: {float, double}")
    .Attr("message: string").SetShapeFn(shape_fn::UnchangedShape);

Output ApplyGradientDescent(const Scope& s, Input var, Input alpha, Input delta, bool use_locking) {
  return OpBuilder(s, "ApplyGradientDescent").Input(var).Input(alpha).Input(delta)
      .Attr("use_locking", use_locking).FinalizeOutput();
}

Output ApplyMomentum(const Scope& s, Input var, Input accum, Input lr, Input grad, Input momentum,
                     bool use_locking, bool use_nesterov) {
  return OpBuilder(s, "ApplyMomentum").Input(var).Input(accum).Input(lr).Input(grad)
      .Input(momentum).Attr("use_locking", use_locking).Attr("use_nesterov", use_nesterov)
      .FinalizeOutput();
}

Output ApplyAdam(const Scope& s, Input var, Input m, Input v, Input beta1_power, Input beta2_power,
                 Input lr, Input beta1, Input beta2, Input epsilon, Input grad, bool use_locking) {
  return OpBuilder(s, "ApplyAdam").Input(var).Input(m).Input(v).Input(beta1_power)
      .Input(beta2_power).Input(lr).Input(beta1).Input(beta2).Input(epsilon).Input(grad)
      .Attr("use_locking", use_locking).FinalizeOutput();
}

Output ApplyRMSProp(const Scope& s, Input var, Input ms, Input mom, Input lr, Input rho,
                    Input momentum, Input epsilon, Input grad, bool use_locking) {
  return OpBuilder(s, "ApplyRMSProp").Input(var).Input(ms).Input(mom).Input(lr).Input(rho)
      .Input(momentum).Input(epsilon).Input(grad).Attr("use_locking", use_locking)
      .FinalizeOutput();
}

Output ApplyAdagrad(const Scope& s, Input var, Input accum, Input lr, Input grad, bool use_locking,
                    bool update_slots) {
  return OpBuilder(s, "ApplyAdagrad").Input(var).Input(accum).Input(lr).Input(grad)
      .Attr("use_locking", use_locking).Attr("update_slots", update_slots).FinalizeOutput();
}

Output ApplyAdagradV2(const Scope& s, Input var, Input accum, Input lr, Input epsilon, Input grad,
                      bool use_locking, bool update_slots) {
  return OpBuilder(s, "ApplyAdagradV2").Input(var).Input(accum).Input(lr).Input(epsilon)
      .Input(grad).Attr("use_locking", use_locking).Attr("update_slots", update_slots)
      .FinalizeOutput();
}

Output SparseApplyMomentum(const Scope& s, Input var, Input accum, Input lr, Input grad,
                           Input indices, Input momentum, bool use_locking, bool use_nesterov) {
  return OpBuilder(s, "SparseApplyMomentum").Input(var).Input(accum).Input(lr).Input(grad)
      .Input(indices).Input(momentum).Attr("use_locking", use_locking)
      .Attr("use_nesterov", use_nesterov).FinalizeOutput();
}

Output SparseApplyRMSProp(const Scope& s, Input var, Input ms, Input mom, Input lr, Input rho,
                          Input momentum, Input epsilon, Input grad, Input indices,
                          bool use_locking) {
  return OpBuilder(s, "SparseApplyRMSProp").Input(var).Input(ms).Input(mom).Input(lr).Input(rho)
      .Input(momentum).Input(epsilon).Input(grad).Input(indices).Attr("use_locking", use_locking)
      .FinalizeOutput();
}

Output SparseApplyAdagrad(const Scope& s, Input var, Input accum, Input lr, Input grad,
                          Input indices, bool use_locking, bool update_slots) {
  return OpBuilder(s, "SparseApplyAdagrad").Input(var).Input(accum).Input(lr).Input(grad)
      .Input(indices).Attr("use_locking", use_locking).Attr("update_slots", update_slots)
      .FinalizeOutput();
}

Output SparseApplyAdagradV2(const Scope& s, Input var, Input accum, Input lr, Input epsilon,
                            Input grad, Input indices, bool use_locking, bool update_slots) {
  return OpBuilder(s, "SparseApplyAdagradV2").Input(var).Input(accum).Input(lr).Input(epsilon)
      .Input(grad).Input(indices).Attr("use_locking", use_locking)
      .Attr("update_slots", update_slots).FinalizeOutput();
}

Output CheckNumerics(const Scope& s, Input tensor, const std::string& message) {
  return OpBuilder(s, "CheckNumerics").Input(tensor).Attr("message", message).FinalizeOutput();
}

}  // namespace tact
