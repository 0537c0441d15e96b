// Automatic differentiation as a graph rewrite (paper 4.1): adds to the
// graph the nodes that compute d(sum of ys)/d(xs), so gradients run through
// the same Session, placer and executor as everything else, and a gradient
// can itself be differentiated (second derivatives).
//
//   auto loss = Sum(s, Relu(s, Add(s, MatMul(s, x, W), b)), {0, 1});
//   std::vector<Output> grads;
//   Status st = AddSymbolicGradients(s, {loss}, {W, b}, {}, &grads);
//   // grads[0] is dloss/dW, grads[1] is dloss/db
//
// Rules:
// - Only nodes on a data path from some x to some y are differentiated.
// - Edges of integer or bool type carry no gradient (they are cut), and
//   StopGradient passes none.
// - Several consumers of one tensor: their partial gradients are summed
//   with AddN. An output of a multi-output op that does not reach y gets a
//   ZerosLike gradient, so gradient functions always see one per output.
// - An x with no differentiable path to any y gets ZerosLike(x), as
//   TensorFlow's unconnected_gradients="zero" does (callers then never see
//   an empty gradient for a float x); an integer or bool x gets an empty
//   Output.
// - A node on the path whose op has no gradient function is an error naming
//   the node and the op.
// On error `grads` is left untouched; nodes already added stay in the graph
// (unused), and the error is also recorded in the scope.
#pragma once

#include <vector>

#include "graph/scope.h"

namespace tact {

// `grad_ys`: empty (each y seeded with OnesLike(y)) or one per y.
Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                            const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                            std::vector<Output>* grads);

// True for the dtypes a gradient flows through (half, bfloat16, float,
// double, complex64, complex128). A complex input's gradient follows
// TensorFlow's (and PyTorch's) convention: dy * conj(f'(x)) for a
// holomorphic f, so that for a real loss it points along steepest ascent.
bool IsDifferentiableType(DataType t);

}  // namespace tact
