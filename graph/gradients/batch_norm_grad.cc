// Gradient functions of batch normalization: the fused op's gradient is the
// fused gradient op, and that op's own gradient (a second derivative, as a
// gradient penalty needs) differentiates the same formulas written in plain
// ops, as TensorFlow's does.
#include <string>

#include "graph/attr_value.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {
using grad::In;
using Grads = std::vector<Output>;

Status ReadAttrs(const Node* op, FusedBatchNormAttrs* attrs) {
  TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "epsilon", &attrs->epsilon));
  TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "is_training", &attrs->is_training));
  return GetAttr(op->attrs(), "data_format", &attrs->data_format);
}

// x, scale and offset get the fused gradient; mean and variance none, as in
// TensorFlow: in training they only feed the running averages, and in
// inference they are statistics, not parameters.
Status FusedBatchNormGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  FusedBatchNormAttrs attrs;
  TACT_RETURN_IF_ERROR(ReadAttrs(op, &attrs));
  FusedBatchNormGradOutputs d = FusedBatchNormGrad(s, g[0], In(op, 0), In(op, 1), Output(op, 3),
                                                   Output(op, 4), Output(op, 5), attrs);
  *out = {d.x_backprop, d.scale_backprop, d.offset_backprop, Output(), Output()};
  return s.status();
}

// The fused gradient's formulas in plain ops, on inputs of the statistics'
// type U. Training recomputes the batch's mean and variance from x, so that
// their dependence on x is differentiated too.
FusedBatchNormGradOutputs PlainBatchNormGrad(const Scope& s, Output dy, Output x, Output scale,
                                             Output mean, Output variance,
                                             const FusedBatchNormAttrs& attrs) {
  const Output axes = Const(s, Tensor::FromVector<int32_t>({0, 1, 2}));
  const Output eps = grad::ScalarOf(s, scale.type(), attrs.epsilon);
  if (!attrs.is_training) {
    Output inv = Rsqrt(s, Add(s, variance, eps));
    return {Mul(s, dy, Mul(s, scale, inv)), Mul(s, Sum(s, Mul(s, dy, Sub(s, x, mean)), axes), inv),
            Sum(s, dy, axes)};
  }
  Output centred = Sub(s, x, Mean(s, x, axes));
  Output inv = Rsqrt(s, Add(s, Mean(s, Square(s, centred), axes), eps));
  Output dy_centred = Mul(s, dy, centred);
  // dx = scale * inv * (dy - mean(dy) - centred * inv^2 * mean(dy * centred))
  Output projected = Mul(s, centred, Mul(s, Square(s, inv), Mean(s, dy_centred, axes)));
  Output dx = Mul(s, Mul(s, scale, inv), Sub(s, Sub(s, dy, Mean(s, dy, axes)), projected));
  return {dx, Mul(s, inv, Sum(s, dy_centred, axes)), Sum(s, dy, axes)};
}

// FusedBatchNormGradV3's gradient for y_backprop, x and scale: the
// gradients of PlainBatchNormGrad's three results, weighted by g.
Status FusedBatchNormGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  FusedBatchNormAttrs attrs;
  TACT_RETURN_IF_ERROR(ReadAttrs(op, &attrs));
  if (attrs.data_format != "NHWC") {
    return errors::Unimplemented(op->ErrorPrefix(), "the second derivative of batch ",
                                 "normalization is built for NHWC only, not ", attrs.data_format);
  }
  const DataType u = In(op, 2).type();
  // half and bfloat16 compute in U; the Casts' gradients cast back.
  auto in_u = [&](Output v) { return v.type() == u ? v : Cast(s, v, u); };
  // Fresh leaves: y_backprop depends on x through the forward pass, and the
  // gradients below must treat the three as independent inputs.
  Output dy = Identity(s, In(op, 0)), x = Identity(s, In(op, 1)), scale = Identity(s, In(op, 2));
  FusedBatchNormGradOutputs d =
      PlainBatchNormGrad(s, in_u(dy), in_u(x), scale, In(op, 3), In(op, 4), attrs);
  Grads grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(
      s, {d.x_backprop, d.scale_backprop, d.offset_backprop}, {dy, x, scale},
      {in_u(g[0]), g[1], g[2]}, &grads));
  *out = {grads[0], grads[1], grads[2], Output(), Output(), Output()};
  return s.status();
}

}  // namespace

REGISTER_GRADIENT_OP("FusedBatchNormV3", FusedBatchNormGrad_);
REGISTER_GRADIENT_OP("FusedBatchNormGradV3", FusedBatchNormGradGrad);

}  // namespace tact
