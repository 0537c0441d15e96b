// Small helpers shared by the gradient functions (graph/gradients/*_grad.cc).
#pragma once

#include "graph/scope.h"

namespace tact {
namespace grad {

// Data input `i` of `op` (empty if unconnected).
Output In(const Node* op, int i);
// True if `x` is a Const int32 or int64 holding one element, 0 (an axis).
bool IsConstZero(const Output& x);
// A scalar constant of dtype `t` (float or double; others via Cast).
Output ScalarOf(const Scope& s, DataType t, double v);
// x conjugated if it is complex, else x itself: TensorFlow's gradients of
// complex inputs take dy * conj(f'(x)), as the *Grad kernels do.
Output ConjIfComplex(const Scope& s, Output x);
// Sums `g` (shaped like the broadcast result) down to the shape of `x`, as
// the gradient of a broadcasting binary op needs.
Output ReduceToShapeOf(const Scope& s, Output g, Output x, Output y, bool first);
// Sums `g`, the gradient of a result that `x` was broadcast to, down to the
// shape of `x`.
Output SumToShapeOf(const Scope& s, Output g, Output x);

}  // namespace grad
}  // namespace tact
