// Gradient functions of matrix products, reductions, neural-network ops and
// array ops.
#include <string>

#include "graph/attr_value.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {
using grad::In;
using grad::ScalarOf;
using grad::IsConstZero;
using Grads = std::vector<Output>;

bool BoolAttr(const Node* op, const char* name) {
  bool v = false;
  return GetAttr(op->attrs(), name, &v).ok() && v;
}

Status MatMulGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  const bool ta = BoolAttr(op, "transpose_a"), tb = BoolAttr(op, "transpose_b");
  // Conjugated where complex (ConjIfComplex); BatchMatMul's adjoints do that themselves.
  Output a = grad::ConjIfComplex(s, In(op, 0)), b = grad::ConjIfComplex(s, In(op, 1)), dz = g[0];
  if (!ta && !tb) {
    out->push_back(MatMul(s, dz, b, false, true));
    out->push_back(MatMul(s, a, dz, true, false));
  } else if (!ta && tb) {
    out->push_back(MatMul(s, dz, b));
    out->push_back(MatMul(s, dz, a, true, false));
  } else if (ta && !tb) {
    out->push_back(MatMul(s, b, dz, false, true));
    out->push_back(MatMul(s, a, dz));
  } else {
    out->push_back(MatMul(s, b, dz, true, true));
    out->push_back(MatMul(s, dz, a, true, true));
  }
  return s.status();
}

// Same as MatMul on the last two dims; each gradient is then summed over
// the batch dims its operand was broadcast along.
Output BatchDims(const Scope& s, Output x) {
  Output n = Reshape(s, Sub(s, Rank(s, x), 2), {1});
  return Slice(s, Shape(s, x), {0}, n);
}
Status BatchMatMulGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  const bool ta = BoolAttr(op, "adj_x"), tb = BoolAttr(op, "adj_y");
  Output a = In(op, 0), b = In(op, 1), dz = g[0];
  Output da, db;
  if (!ta && !tb) {
    da = BatchMatMul(s, dz, b, false, true);
    db = BatchMatMul(s, a, dz, true, false);
  } else if (!ta && tb) {
    da = BatchMatMul(s, dz, b);
    db = BatchMatMul(s, dz, a, true, false);
  } else if (ta && !tb) {
    da = BatchMatMul(s, b, dz, false, true);
    db = BatchMatMul(s, a, dz);
  } else {
    da = BatchMatMul(s, b, dz, true, true);
    db = BatchMatMul(s, dz, a, true, true);
  }
  std::vector<Output> r = BroadcastGradientArgs(s, BatchDims(s, a), BatchDims(s, b));
  if (r.size() != 2) return s.status();
  out->push_back(Reshape(s, Sum(s, da, r[0]), Shape(s, a)));
  out->push_back(Reshape(s, Sum(s, db, r[1]), Shape(s, b)));
  return s.status();
}

// g reshaped to the keep_dims shape of the reduction, broadcast back to x.
Output KeepDims(const Scope& s, Node* op, Output g) {
  Output x = In(op, 0), axis = In(op, 1);
  Output kept_shape = Shape(s, Sum(s, x, axis, /*keep_dims=*/true));
  return Reshape(s, g, kept_shape);
}

Status SumGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0);
  out->push_back(Mul(s, KeepDims(s, op, g[0]), OnesLike(s, x)));
  out->push_back(Output());
  return s.status();
}
Status MeanGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0);
  DataType t = x.type();
  Output count = Div(s, Cast(s, Size(s, x), t), Cast(s, Size(s, Output(op, 0)), t));
  out->push_back(Div(s, Mul(s, KeepDims(s, op, g[0]), OnesLike(s, x)), count));
  out->push_back(Output());
  return s.status();
}
// The gradient is split evenly among the elements equal to the extreme.
Status MaxMinReduceGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0), axis = In(op, 1);
  Output y = KeepDims(s, op, Output(op, 0));
  Output ind = Cast(s, Equal(s, x, y), x.type());
  Output num = Sum(s, ind, axis, true);
  out->push_back(Mul(s, Div(s, ind, num), KeepDims(s, op, g[0])));
  out->push_back(Output());
  return s.status();
}

// Prod: dx = g * prod / x. Valid only where x has no zero (a zero would
// need the product of the other elements, which no op here computes).
Status ProdGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0);
  Output prod = KeepDims(s, op, Output(op, 0));
  out->push_back(Div(s, Mul(s, KeepDims(s, op, g[0]), prod), x));
  out->push_back(Output());
  return s.status();
}

Status ReshapeLikeGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(Reshape(s, g[0], Shape(s, In(op, 0))));
  for (int i = 1; i < op->num_inputs(); ++i) out->push_back(Output());
  return s.status();
}

Status ReverseV2Grad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(ReverseV2(s, g[0], In(op, 1)));
  out->push_back(Output());
  return s.status();
}

// Summed over the dimensions the input was broadcast along.
Status BroadcastToGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0);
  Output x_shape = Shape(s, x);
  std::vector<Output> r = BroadcastGradientArgs(s, x_shape, Cast(s, In(op, 1), DT_INT32));
  if (r.size() != 2) return s.status();
  out->push_back(Reshape(s, Sum(s, g[0], r[0]), x_shape));
  out->push_back(Output());
  return s.status();
}

// Transpose by the inverse permutation; the permutation must be a Const.
Status TransposeGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output perm = In(op, 1);
  Tensor value;
  if (perm.node->op() != "Const" || !GetAttr(perm.node->attrs(), "value", &value).ok()) {
    return errors::Unimplemented("Transpose gradient needs a constant perm");
  }
  std::vector<int32_t> inv(value.NumElements());
  for (int64_t i = 0; i < value.NumElements(); ++i) {
    int64_t p = value.dtype() == DT_INT64 ? value.data<int64_t>()[i] : value.data<int32_t>()[i];
    if (p < 0 || p >= value.NumElements()) return errors::InvalidArgument("bad perm");
    inv[p] = static_cast<int32_t>(i);
  }
  out->push_back(Transpose(s, g[0], Const(s, Tensor::FromVector<int32_t>(inv))));
  out->push_back(Output());
  return s.status();
}

Status SplitGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  std::vector<Input> parts(g.begin(), g.end());
  out->push_back(Output());
  out->push_back(Concat(s, parts, In(op, 0)));
  return s.status();
}
Status PackGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  int64_t axis = 0;
  (void)GetAttr(op->attrs(), "axis", &axis);
  std::vector<Output> parts = Unpack(s, g[0], op->num_inputs(), axis);
  for (auto& p : parts) out->push_back(p);
  return s.status();
}
Status UnpackGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  int64_t axis = 0;
  (void)GetAttr(op->attrs(), "axis", &axis);
  std::vector<Input> parts(g.begin(), g.end());
  out->push_back(Pack(s, parts, axis));
  return s.status();
}
// Slice: pad g back to x's shape with begin in front.
// StridedSlice: dy goes back where the slice took it from (StridedSliceGrad,
// the same spec and masks); the spec's inputs get none.
Status StridedSliceGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output begin = In(op, 1);
  OpBuilder b(s, "StridedSliceGrad");
  b.Input(Shape(s, In(op, 0), begin.type())).Input(begin).Input(In(op, 2)).Input(In(op, 3)).Input(g[0]);
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    int64_t v = 0;
    TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), mask, &v));
    b.Attr(mask, v);
  }
  out->push_back(b.FinalizeOutput());
  out->push_back(Output());
  out->push_back(Output());
  out->push_back(Output());
  return s.status();
}

// StridedSliceGrad is linear in dy: its gradient is the same slice of g.
Status StridedSliceGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  OpBuilder b(s, "StridedSlice");
  b.Input(g[0]).Input(In(op, 1)).Input(In(op, 2)).Input(In(op, 3));
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    int64_t v = 0;
    TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), mask, &v));
    b.Attr(mask, v);
  }
  for (int i = 0; i < 4; ++i) out->push_back(Output());
  out->push_back(b.FinalizeOutput());
  return s.status();
}

Status SliceGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0), begin = In(op, 1);
  Output before = Cast(s, begin, DT_INT32);
  Output after = Sub(s, Sub(s, Shape(s, x), before), Shape(s, Output(op, 0)));
  out->push_back(Pad(s, g[0], Pack(s, {before, after}, 1)));
  out->push_back(Output());
  out->push_back(Output());
  return s.status();
}
// Pad: slice out the middle.
Status PadGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0), paddings = In(op, 1);
  Output before = Reshape(s, Slice(s, paddings, {0, 0}, {-1, 1}), {-1});
  out->push_back(Slice(s, g[0], before, Shape(s, x)));
  out->push_back(Output());
  return s.status();
}

Status BiasAddGrad_(const Scope& s, Node*, const Grads& g, Grads* out) {
  out->push_back(g[0]);
  out->push_back(BiasAddGrad(s, g[0]));
  return s.status();
}

struct Window {
  std::vector<int64_t> ksize, strides, dilations{1, 1, 1, 1};
  std::string padding;
};
Window WindowOf(const Node* op) {
  Window w;
  (void)GetAttr(op->attrs(), "ksize", &w.ksize);
  (void)GetAttr(op->attrs(), "strides", &w.strides);
  (void)GetAttr(op->attrs(), "dilations", &w.dilations);
  (void)GetAttr(op->attrs(), "padding", &w.padding);
  return w;
}
// Conv2D's gradients, and DepthwiseConv2dNative's, which have the same
// form in terms of that op's own two gradient ops.
template <auto Conv, auto BackpropInput, auto BackpropFilter>
Status ConvGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Window w = WindowOf(op);
  Output x = In(op, 0), f = In(op, 1);
  out->push_back(BackpropInput(s, Shape(s, x), f, g[0], w.strides, w.padding, w.dilations));
  out->push_back(BackpropFilter(s, x, Shape(s, f), g[0], w.strides, w.padding, w.dilations));
  return s.status();
}
Status MaxPoolGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Window w = WindowOf(op);
  out->push_back(MaxPoolGrad(s, In(op, 0), Output(op, 0), g[0], w.ksize, w.strides, w.padding));
  return s.status();
}
Status AvgPoolGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Window w = WindowOf(op);
  out->push_back(AvgPoolGrad(s, Shape(s, In(op, 0)), g[0], w.ksize, w.strides, w.padding));
  return s.status();
}

// The gradients of the gradient ops, for second derivatives. Each is linear
// in its gradient input, and its adjoint is the forward op (or its other
// gradient); a shape input gets none. Which element MaxPoolGrad routes to
// changes only where two inputs tie, so its orig inputs get zeros.
Status BiasAddGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(BiasAdd(s, ZerosLike(s, In(op, 0)), g[0]));  // g broadcast along the channels
  return s.status();
}
template <auto Conv, auto BackpropInput, auto BackpropFilter>
Status ConvBackpropInputGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Window w = WindowOf(op);
  Output filter = In(op, 1), out_backprop = In(op, 2);
  out->push_back(Output());
  out->push_back(BackpropFilter(s, g[0], Shape(s, filter), out_backprop, w.strides, w.padding,
                                w.dilations));
  out->push_back(Conv(s, g[0], filter, w.strides, w.padding, w.dilations));
  return s.status();
}
template <auto Conv, auto BackpropInput, auto BackpropFilter>
Status ConvBackpropFilterGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Window w = WindowOf(op);
  Output input = In(op, 0), out_backprop = In(op, 2);
  out->push_back(BackpropInput(s, Shape(s, input), g[0], out_backprop, w.strides, w.padding,
                               w.dilations));
  out->push_back(Output());
  out->push_back(Conv(s, input, g[0], w.strides, w.padding, w.dilations));
  return s.status();
}
#define TACT_CONV_FAMILY(prefix) prefix, prefix##BackpropInput, prefix##BackpropFilter
constexpr auto Conv2DGrad = ConvGrad<TACT_CONV_FAMILY(Conv2D)>;
constexpr auto Conv2DBackpropInputGrad = ConvBackpropInputGrad<TACT_CONV_FAMILY(Conv2D)>;
constexpr auto Conv2DBackpropFilterGrad = ConvBackpropFilterGrad<TACT_CONV_FAMILY(Conv2D)>;
constexpr auto DepthwiseGrad = ConvGrad<TACT_CONV_FAMILY(DepthwiseConv2dNative)>;
constexpr auto DepthwiseBackpropInputGrad =
    ConvBackpropInputGrad<TACT_CONV_FAMILY(DepthwiseConv2dNative)>;
constexpr auto DepthwiseBackpropFilterGrad =
    ConvBackpropFilterGrad<TACT_CONV_FAMILY(DepthwiseConv2dNative)>;
#undef TACT_CONV_FAMILY
// MaxPoolGrad and MaxPoolGradGrad route by orig_input's maxima: zeros for
// orig_input and orig_output, and for grad the other of the two, each the
// adjoint of the other.
using MaxPoolRouting = Output (*)(const Scope&, Input, Input, Input, std::vector<int64_t>,
                                  std::vector<int64_t>, const std::string&);
template <MaxPoolRouting kAdjoint>
Status MaxPoolRoutingGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Window w = WindowOf(op);
  out->push_back(ZerosLike(s, In(op, 0)));
  out->push_back(ZerosLike(s, In(op, 1)));
  out->push_back(kAdjoint(s, In(op, 0), In(op, 1), g[0], w.ksize, w.strides, w.padding));
  return s.status();
}
Status AvgPoolGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Window w = WindowOf(op);
  out->push_back(Output());
  out->push_back(AvgPool(s, g[0], w.ksize, w.strides, w.padding));
  return s.status();
}
// dx = (g - sum(g * y)) * y over the last axis.
Status SoftmaxGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y(op, 0);
  out->push_back(Mul(s, Sub(s, g[0], Sum(s, Mul(s, g[0], y), -1, true)), y));
  return s.status();
}
// dx = g - sum(g) * softmax(x), softmax = exp(y).
Status LogSoftmaxGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y(op, 0);
  out->push_back(Sub(s, g[0], Mul(s, Sum(s, g[0], -1, true), Exp(s, y))));
  return s.status();
}
// What reaches the backprop output (output 1, softmax(features) - labels)
// when something differentiates the gradient itself (a second derivative, a
// gradient penalty): through the softmax's Jacobian, as SoftmaxGrad, added
// to the features' gradient. Adds nothing where that gradient is the
// ZerosLike that AddSymbolicGradients gives an output off the path to y,
// so a first-order graph gains no node.
bool BackpropReached(const Output& g) { return g.ok() && g.node->op() != "ZerosLike"; }
Output ThroughBackprop(const Scope& s, Node* op, const Output& g) {
  Output p = Softmax(s, In(op, 0));
  return Mul(s, Sub(s, g, Sum(s, Mul(s, g, p), -1, true)), p);
}

// d loss / d features = backprop (output 1) scaled by the loss gradient.
Status SparseXentGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output features = Mul(s, ExpandDims(s, g[0], -1), Output(op, 1));
  if (BackpropReached(g[1])) features = Add(s, features, ThroughBackprop(s, op, g[1]));
  out->push_back(features);
  out->push_back(Output());
  return s.status();
}

// The dense twin: the features as above; the labels get -g * log_softmax(features),
// and minus what reached the backprop output.
Status XentGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output g_row = ExpandDims(s, g[0], -1);
  Output features = Mul(s, g_row, Output(op, 1));
  Output labels = Neg(s, Mul(s, g_row, LogSoftmax(s, In(op, 0))));
  if (BackpropReached(g[1])) {
    features = Add(s, features, ThroughBackprop(s, op, g[1]));
    labels = Sub(s, labels, g[1]);
  }
  out->push_back(features);
  out->push_back(labels);
  return s.status();
}

Status L2LossGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(Mul(s, In(op, 0), g[0]));
  return s.status();
}

// ConcatV2 and Concat: value i's gradient is the slice of g at the sum of
// the sizes of values 0..i-1 along axis (begin is that sum times a one-hot
// of axis); the axis gets none.
Status ConcatGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  const int n = op->num_inputs() - 1;
  const bool axis_first = op->op() == "Concat";
  const int first_value = axis_first ? 1 : 0;
  Output axis = Cast(s, In(op, axis_first ? 0 : n), DT_INT32);
  Output rank = Rank(s, g[0]);
  Output axis_nn = Select(s, Less(s, axis, 0), Add(s, axis, rank), axis);
  Output mask = Cast(s, Equal(s, Range(s, 0, rank, 1), axis_nn), DT_INT32);
  std::vector<Input> before;
  if (axis_first) out->push_back(Output());
  for (int i = 0; i < n; ++i) {
    Output shape = Shape(s, In(op, first_value + i));
    Output begin = before.empty() ? ZerosLike(s, shape) : Mul(s, AddN(s, before), mask);
    out->push_back(Slice(s, g[0], begin, shape));
    before.push_back(shape);
  }
  if (!axis_first) out->push_back(Output());
  return s.status();
}

// Tile: view g as [m0, d0, m1, d1, ...] and sum over the m axes.
Status TileGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0), multiples = Cast(s, In(op, 1), DT_INT32);
  Output split_shape = Reshape(s, Pack(s, {multiples, Shape(s, x)}, 1), {-1});
  Output axes = Range(s, 0, Mul(s, Rank(s, x), 2), 2);
  out->push_back(Sum(s, Reshape(s, g[0], split_shape), axes));
  out->push_back(Output());
  return s.status();
}

// Gather along axis 0, as a dense gradient: g's rows added into the rows
// they were picked from (UnsortedSegmentSum), so rows picked several times
// add up. Its cost grows with the rows picked, not with params' rows; and
// the optimizers' sparse updates read the slices inside it without ever
// computing it (graph/gradients/indexed_slices.h relies on this form).
Status GatherGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output params = In(op, 0), indices = In(op, 1);
  Output rows = Slice(s, Shape(s, params), {0}, {1});
  out->push_back(UnsortedSegmentSum(s, g[0], indices, Reshape(s, rows, Shape(s, 0))));
  out->push_back(Output());
  return s.status();
}

// GatherV2 along a constant axis 0 is Gather, with Gather's gradient (and
// so the optimizers' sparse updates of an embedding). Along another axis
// the picked slices go back through a transpose: g, viewed as [outer,
// picks, inner], becomes [picks, outer, inner], is summed into params'
// slices along the axis, and is turned back to params' shape.
Status GatherV2Grad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output params = In(op, 0), indices = In(op, 1), axis = In(op, 2);
  if (IsConstZero(axis)) {  // as AsIndexedSlices expects (indexed_slices.h)
    TACT_RETURN_IF_ERROR(GatherGrad(s, op, g, out));
    out->push_back(Output());
    return s.status();
  }
  Output shape = Shape(s, params);
  Output a = Cast(s, axis, DT_INT32);
  a = Select(s, Less(s, a, 0), Add(s, a, Rank(s, params)), a);
  Output a1 = Reshape(s, a, {1});
  Output outer = Prod(s, Slice(s, shape, {0}, a1), 0);
  Output inner = Prod(s, Slice(s, shape, Add(s, a1, 1), {-1}), 0);
  Output picks = Size(s, indices);
  Output g3 = Reshape(s, g[0], Pack(s, {outer, picks, inner}));
  Output summed = UnsortedSegmentSum(s, Transpose(s, g3, {1, 0, 2}), Reshape(s, indices, {-1}),
                                     Gather(s, shape, a));
  out->push_back(Reshape(s, Transpose(s, summed, {1, 0, 2}), shape));
  out->push_back(Output());
  out->push_back(Output());
  return s.status();
}

// Each picked slice's gradient goes back to where it was picked from;
// slices picked twice add up.
Status GatherNdGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output params = In(op, 0), indices = In(op, 1);
  out->push_back(ScatterNd(s, indices, g[0], Shape(s, params, indices.type())));
  out->push_back(Output());
  return s.status();
}

// Each update's gradient is the output's gradient where it was added.
Status ScatterNdGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(Output());
  out->push_back(GatherNd(s, g[0], In(op, 0)));
  out->push_back(Output());
  return s.status();
}

// The band part is linear and keeps the same band of the gradient.
Status MatrixBandPartGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(MatrixBandPart(s, g[0], In(op, 1), In(op, 2)));
  out->push_back(Output());
  out->push_back(Output());
  return s.status();
}

// Each row of data gets its segment's gradient; a negative id dropped its
// row, which so gets 0.
Status UnsortedSegmentSumGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output ids = In(op, 1);
  Output zeros = ZerosLike(s, ids);
  Output picked = Gather(s, g[0], Maximum(s, ids, zeros));
  // The mask has ids' shape and a 1 for each further dimension of data.
  Output extra = Reshape(s, Sub(s, Rank(s, picked), Rank(s, ids)), {1});
  Output mask_shape = Concat(s, {Shape(s, ids), Fill(s, extra, 1)}, 0);
  Output kept = Cast(s, GreaterEqual(s, ids, zeros), picked.type());
  out->push_back(Mul(s, picked, Reshape(s, kept, mask_shape)));
  out->push_back(Output());
  out->push_back(Output());
  return s.status();
}

// The values' gradient goes back to the positions they were taken from
// (rows flattened: row r's index i is r * n + i of the input); the indices
// get none.
Status TopKGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0), indices(op, 1);
  Output shape = Shape(s, x);
  Output last = Reshape(s, Sub(s, Rank(s, x), 1), {1});
  Output n = Reshape(s, Slice(s, shape, last, {1}), Shape(s, 0));
  Output k = Reshape(s, Slice(s, Shape(s, indices), last, {1}), Shape(s, 0));
  Output rows = Prod(s, Slice(s, shape, {0}, last), 0);
  Output offsets = ExpandDims(s, Mul(s, Range(s, 0, rows, 1), n), 1);
  Output flat = Reshape(s, Add(s, Reshape(s, indices, Pack(s, {rows, k})), offsets), {-1});
  Output sums = UnsortedSegmentSum(s, Reshape(s, g[0], {-1}), flat, Size(s, x));
  out->push_back(Reshape(s, sums, shape));
  out->push_back(Output());
  return s.status();
}

}  // namespace

REGISTER_GRADIENT_OP("MatMul", MatMulGrad);
REGISTER_GRADIENT_OP("BatchMatMul", BatchMatMulGrad);
REGISTER_GRADIENT_OP("Sum", SumGrad);
REGISTER_GRADIENT_OP("Mean", MeanGrad);
REGISTER_GRADIENT_OP("Max", MaxMinReduceGrad);
REGISTER_GRADIENT_OP("Min", MaxMinReduceGrad);
REGISTER_GRADIENT_OP("Prod", ProdGrad);
REGISTER_GRADIENT_OP("Reshape", ReshapeLikeGrad);
REGISTER_GRADIENT_OP("ExpandDims", ReshapeLikeGrad);
REGISTER_GRADIENT_OP("Squeeze", ReshapeLikeGrad);
REGISTER_GRADIENT_OP("Transpose", TransposeGrad);
REGISTER_GRADIENT_OP("Split", SplitGrad);
REGISTER_GRADIENT_OP("Pack", PackGrad);
REGISTER_GRADIENT_OP("Unpack", UnpackGrad);
REGISTER_GRADIENT_OP("Slice", SliceGrad);
REGISTER_GRADIENT_OP("StridedSlice", StridedSliceGrad_);
REGISTER_GRADIENT_OP("StridedSliceGrad", StridedSliceGradGrad);
REGISTER_GRADIENT_OP("Pad", PadGrad);
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGrad_);
REGISTER_GRADIENT_OP("Conv2D", Conv2DGrad);
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGrad_);
REGISTER_GRADIENT_OP("AvgPool", AvgPoolGrad_);
REGISTER_GRADIENT_OP("BiasAddGrad", BiasAddGradGrad);
REGISTER_GRADIENT_OP("Conv2DBackpropInput", Conv2DBackpropInputGrad);
REGISTER_GRADIENT_OP("Conv2DBackpropFilter", Conv2DBackpropFilterGrad);
REGISTER_GRADIENT_OP("DepthwiseConv2dNative", DepthwiseGrad);
REGISTER_GRADIENT_OP("DepthwiseConv2dNativeBackpropInput", DepthwiseBackpropInputGrad);
REGISTER_GRADIENT_OP("DepthwiseConv2dNativeBackpropFilter", DepthwiseBackpropFilterGrad);
REGISTER_GRADIENT_OP("MaxPoolGrad", MaxPoolRoutingGrad<MaxPoolGradGrad>);
REGISTER_GRADIENT_OP("MaxPoolGradGrad", MaxPoolRoutingGrad<MaxPoolGrad>);
REGISTER_GRADIENT_OP("AvgPoolGrad", AvgPoolGradGrad);
REGISTER_GRADIENT_OP("Softmax", SoftmaxGrad);
REGISTER_GRADIENT_OP("LogSoftmax", LogSoftmaxGrad);
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits", SparseXentGrad);
REGISTER_GRADIENT_OP("SoftmaxCrossEntropyWithLogits", XentGrad);
REGISTER_GRADIENT_OP("L2Loss", L2LossGrad);
REGISTER_GRADIENT_OP("ConcatV2", ConcatGrad);
REGISTER_GRADIENT_OP("Concat", ConcatGrad);
REGISTER_GRADIENT_OP("Tile", TileGrad);
REGISTER_GRADIENT_OP("Gather", GatherGrad);
REGISTER_GRADIENT_OP("GatherV2", GatherV2Grad);
REGISTER_GRADIENT_OP("UnsortedSegmentSum", UnsortedSegmentSumGrad);
REGISTER_GRADIENT_OP("TopKV2", TopKGrad);
REGISTER_GRADIENT_OP("ReverseV2", ReverseV2Grad);
REGISTER_GRADIENT_OP("BroadcastTo", BroadcastToGrad);
REGISTER_GRADIENT_OP("GatherNd", GatherNdGrad);
REGISTER_GRADIENT_OP("ScatterNd", ScatterNdGrad);
REGISTER_GRADIENT_OP("MatrixBandPart", MatrixBandPartGrad);
REGISTER_NO_GRADIENT_OP("Where");
REGISTER_NO_GRADIENT_OP("ArgMax");
REGISTER_NO_GRADIENT_OP("ArgMin");

}  // namespace tact
