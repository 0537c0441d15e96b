// Builder functions for element-wise math (paper 2, Table 1's "element-wise
// mathematical operations"): arithmetic with NumPy broadcasting, unary math
// and activations, comparisons and logic, Select(V2), Cast, AddN, and the
// kernels that gradient graphs use (ReluGrad, BroadcastGradientArgs, ...).
//
//   Scope s = Scope::NewRootScope();
//   auto x = Placeholder(s, DT_FLOAT);
//   auto y = Relu(s, Add(s, Mul(s, x, 2.0f), 1.0f));   // relu(2x + 1)
//
// Names, inputs and attrs are TensorFlow's. Binary ops broadcast like NumPy
// ([2,3] with [3], [2,1] with [1,3]); incompatible shapes are an error at
// graph construction when the shapes are known, else when the kernel runs.
// Integer Div truncates toward zero; FloorDiv and FloorMod round toward
// minus infinity, as Python's // and % do (TensorFlow's names for them); an
// integer division by zero is an error.
// Matrix products, reductions and Range live elsewhere (not in this file).
#pragma once

#include <vector>

#include "graph/op_builder.h"

namespace tact {

// Binary arithmetic: z = x op y, broadcasting.
Output Add(const Scope& s, Input x, Input y);
Output Sub(const Scope& s, Input x, Input y);
Output Mul(const Scope& s, Input x, Input y);
Output Div(const Scope& s, Input x, Input y);
Output FloorDiv(const Scope& s, Input x, Input y);  // floor(x / y)
Output FloorMod(const Scope& s, Input x, Input y);  // x - FloorDiv(x, y) * y: y's sign
Output Maximum(const Scope& s, Input x, Input y);
Output Minimum(const Scope& s, Input x, Input y);
Output Pow(const Scope& s, Input x, Input y);
Output SquaredDifference(const Scope& s, Input x, Input y);  // (x - y)^2
Output RealDiv(const Scope& s, Input x, Input y);  // x / y on floating types (Python's /)
Output Atan2(const Scope& s, Input y, Input x);    // the angle of (x, y), in [-pi, pi]

// Unary math: y = f(x).
Output Neg(const Scope& s, Input x);
Output Exp(const Scope& s, Input x);
Output Log(const Scope& s, Input x);
Output Sqrt(const Scope& s, Input x);
Output Rsqrt(const Scope& s, Input x);  // 1 / sqrt(x)
Output Square(const Scope& s, Input x);
Output Abs(const Scope& s, Input x);
Output Sign(const Scope& s, Input x);  // -1, 0 or 1
Output Tanh(const Scope& s, Input x);
Output Sigmoid(const Scope& s, Input x);  // 1 / (1 + e^-x)
Output Reciprocal(const Scope& s, Input x);  // 1 / x
Output Sin(const Scope& s, Input x);
Output Cos(const Scope& s, Input x);
Output Tan(const Scope& s, Input x);
Output Asin(const Scope& s, Input x);
Output Acos(const Scope& s, Input x);
Output Atan(const Scope& s, Input x);
Output Sinh(const Scope& s, Input x);
Output Cosh(const Scope& s, Input x);
Output Log1p(const Scope& s, Input x);  // log(1 + x), exact for small x
Output Expm1(const Scope& s, Input x);  // e^x - 1, exact for small x
Output Erf(const Scope& s, Input x);
Output Erfc(const Scope& s, Input x);  // 1 - erf(x), exact for large x
// Rounding, on floating types (Round keeps integers as they are). Round and
// Rint round halves to even, as TensorFlow's and NumPy's do: 0.5 -> 0,
// 1.5 -> 2, -2.5 -> -2. None has a gradient (a step function's is 0 or
// undefined), as in TensorFlow.
Output Floor(const Scope& s, Input x);
Output Ceil(const Scope& s, Input x);
Output Rint(const Scope& s, Input x);
Output Round(const Scope& s, Input x);
// Complex numbers. Real and Imag give float for complex64 and double for
// complex128; Complex(re, im) broadcasts, complex64 from floats and
// complex128 from doubles.
Output Conj(const Scope& s, Input x);
Output Real(const Scope& s, Input x);
Output Imag(const Scope& s, Input x);
Output Complex(const Scope& s, Input real, Input imag);
// Classification of floating values, giving bool.
Output IsNan(const Scope& s, Input x);
Output IsInf(const Scope& s, Input x);  // +inf or -inf
Output IsFinite(const Scope& s, Input x);

// Activations (TensorFlow keeps them in nn_ops; their input is `features`).
Output Relu(const Scope& s, Input features);      // max(x, 0)
Output Relu6(const Scope& s, Input features);     // min(max(x, 0), 6)
Output Elu(const Scope& s, Input features);       // x < 0 ? e^x - 1 : x
Output Softplus(const Scope& s, Input features);  // log(1 + e^x)
Output Softsign(const Scope& s, Input features);  // x / (1 + |x|)
// scale * (x < 0 ? alpha * (e^x - 1) : x), with Klambauer et al.'s
// scale = 1.0507... and alpha = 1.6732...
Output Selu(const Scope& s, Input features);
Output LeakyRelu(const Scope& s, Input features, float alpha = 0.2f);  // x < 0 ? alpha * x : x

// Comparisons, broadcasting, giving bool.
Output Equal(const Scope& s, Input x, Input y);
Output NotEqual(const Scope& s, Input x, Input y);
Output Less(const Scope& s, Input x, Input y);
Output LessEqual(const Scope& s, Input x, Input y);
Output Greater(const Scope& s, Input x, Input y);
Output GreaterEqual(const Scope& s, Input x, Input y);
Output LogicalAnd(const Scope& s, Input x, Input y);
Output LogicalOr(const Scope& s, Input x, Input y);
Output LogicalNot(const Scope& s, Input x);

// The running sum of x along `axis` (an int32/int64 scalar): out[i] = x[0]
// + ... + x[i]; `exclusive` stops at x[i-1] (out[0] = 0), `reverse` sums
// from the end (out[i] = x[i] + ... + x[n-1]), as tf.math.cumsum.
Output Cumsum(const Scope& s, Input x, Input axis, bool exclusive = false, bool reverse = false);

// condition ? t : e. `condition` is a scalar (choosing all of t or e), of
// t's shape (element-wise), or a vector of t's first dimension (whole rows).
// t and e have one shape.
Output Select(const Scope& s, Input condition, Input t, Input e);
// condition ? t : e with all three broadcast together by NumPy's rules
// (TensorFlow 2's tf.where of three arguments): a [2,1] condition picks
// whole rows of [2,3] operands, a [3] one whole columns.
Output SelectV2(const Scope& s, Input condition, Input t, Input e);

// x converted to DstT (SrcT is x's dtype). Float -> integer truncates and
// saturates; NaN becomes 0.
Output Cast(const Scope& s, Input x, DataType DstT);

// The sum of one or more tensors of one dtype and shape (no broadcasting).
Output AddN(const Scope& s, const std::vector<Input>& inputs);

// Gradients of the activations, in TensorFlow's argument order.
Output ReluGrad(const Scope& s, Input gradients, Input features);
Output Relu6Grad(const Scope& s, Input gradients, Input features);
Output EluGrad(const Scope& s, Input gradients, Input outputs);
Output SoftplusGrad(const Scope& s, Input gradients, Input features);
// These take the forward op's output y and the incoming gradient dy.
Output SigmoidGrad(const Scope& s, Input y, Input dy);
Output TanhGrad(const Scope& s, Input y, Input dy);
Output RsqrtGrad(const Scope& s, Input y, Input dy);
Output SqrtGrad(const Scope& s, Input y, Input dy);

// For the gradient of z = f(x, y) broadcasting shapes s0 and s1: {r0, r1},
// the axes of z over which to sum dz to get dx and dy (int32 or int64).
std::vector<Output> BroadcastGradientArgs(const Scope& s, Input s0, Input s1);

}  // namespace tact
