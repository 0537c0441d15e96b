// Gradient functions of the element-wise math ops (math_ops.h) and of the
// activation-gradient ops themselves (for second derivatives).
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {
using grad::ConjIfComplex;
using grad::In;
using grad::ReduceToShapeOf;
using grad::ScalarOf;
using Grads = std::vector<Output>;

// Binary ops: dz/dx and dz/dy at z's (broadcast) shape, summed back.
Status Binary(const Scope& s, Node* op, Output gx, Output gy, Grads* out) {
  Output x = In(op, 0), y = In(op, 1);
  out->push_back(gx.ok() ? ReduceToShapeOf(s, gx, x, y, true) : Output());
  out->push_back(gy.ok() ? ReduceToShapeOf(s, gy, x, y, false) : Output());
  return s.status();
}

Status AddGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Binary(s, op, g[0], g[0], out);
}
Status SubGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Binary(s, op, g[0], Neg(s, g[0]), out);
}
Status MulGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = ConjIfComplex(s, In(op, 0)), y = ConjIfComplex(s, In(op, 1));
  return Binary(s, op, Mul(s, g[0], y), Mul(s, x, g[0]), out);
}
Status DivGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = ConjIfComplex(s, In(op, 0)), y = ConjIfComplex(s, In(op, 1));
  return Binary(s, op, Div(s, g[0], y), Neg(s, Div(s, Div(s, Mul(s, g[0], x), y), y)), out);
}
// TensorFlow's: d(x mod y)/dx = 1 and d/dy = -floor(x / y), which holds
// between the jumps.
Status FloorModGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0), y = In(op, 1);
  return Binary(s, op, g[0], Neg(s, Mul(s, g[0], FloorDiv(s, x, y))), out);
}
Status PowGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = ConjIfComplex(s, In(op, 0)), y = ConjIfComplex(s, In(op, 1));
  Output z = ConjIfComplex(s, Output(op, 0));
  DataType t = x.type();
  Output gx = Mul(s, g[0], Mul(s, y, Pow(s, x, Sub(s, y, ScalarOf(s, t, 1)))));
  // log(x) only where x > 0 (the gradient for y is taken as 0 elsewhere);
  // for complex x, where x != 0, as TensorFlow.
  Output pos = DataTypeIsComplex(t) ? NotEqual(s, x, ZerosLike(s, x)) : Greater(s, x, ZerosLike(s, x));
  Output safe_x = Select(s, pos, x, OnesLike(s, x));
  Output log_x = Select(s, pos, Log(s, safe_x), ZerosLike(s, x));
  Output gy = Mul(s, g[0], Mul(s, z, log_x));
  return Binary(s, op, gx, gy, out);
}
Status MaxMinGrad(const Scope& s, Node* op, const Grads& g, Grads* out, bool is_max) {
  Output x = In(op, 0), y = In(op, 1);
  Output mask = is_max ? GreaterEqual(s, x, y) : LessEqual(s, x, y);
  Output zeros = ZerosLike(s, g[0]);
  return Binary(s, op, Select(s, mask, g[0], zeros), Select(s, mask, zeros, g[0]), out);
}
Status MaximumGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return MaxMinGrad(s, op, g, out, true);
}
Status MinimumGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return MaxMinGrad(s, op, g, out, false);
}
Status SquaredDifferenceGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0), y = In(op, 1);
  Output gx = Mul(s, g[0], Mul(s, ScalarOf(s, x.type(), 2), Sub(s, x, y)));
  return Binary(s, op, gx, Neg(s, gx), out);
}

// Atan2(y, x) = atan(y / x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
Status Atan2Grad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y = In(op, 0), x = In(op, 1);
  Output scaled = Div(s, g[0], Add(s, Square(s, x), Square(s, y)));
  return Binary(s, op, Mul(s, scaled, x), Neg(s, Mul(s, scaled, y)), out);
}

// Unary ops.
Status NegGrad(const Scope& s, Node*, const Grads& g, Grads* out) {
  out->push_back(Neg(s, g[0]));
  return s.status();
}
Status AbsGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(Mul(s, g[0], Sign(s, In(op, 0))));
  return s.status();
}
Status SquareGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = ConjIfComplex(s, In(op, 0));
  out->push_back(Mul(s, g[0], Mul(s, x, ScalarOf(s, x.type(), 2))));
  return s.status();
}
Status SqrtGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(SqrtGrad(s, Output(op, 0), g[0]));
  return s.status();
}
Status RsqrtGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(RsqrtGrad(s, Output(op, 0), g[0]));
  return s.status();
}
Status ExpGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(Mul(s, g[0], ConjIfComplex(s, Output(op, 0))));
  return s.status();
}
Status LogGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(Div(s, g[0], ConjIfComplex(s, In(op, 0))));
  return s.status();
}
Status TanhGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(TanhGrad(s, Output(op, 0), g[0]));
  return s.status();
}
Status SigmoidGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(SigmoidGrad(s, Output(op, 0), g[0]));
  return s.status();
}
Status ReluGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(ReluGrad(s, g[0], In(op, 0)));
  return s.status();
}
Status Relu6Grad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(Relu6Grad(s, g[0], In(op, 0)));
  return s.status();
}
Status EluGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(EluGrad(s, g[0], Output(op, 0)));
  return s.status();
}
Status SoftplusGrad_(const Scope& s, Node* op, const Grads& g, Grads* out) {
  out->push_back(SoftplusGrad(s, g[0], In(op, 0)));
  return s.status();
}
// The gradients below are built from differentiable ops, so their own
// gradients (second derivatives) come without more code.
Status Unary(const Scope& s, Output dx, Grads* out) {
  out->push_back(dx);
  return s.status();
}
// Where x may be complex, f'(x) is taken at conj(x) (see ConjIfComplex).
// 1/x: -dy / x^2, as -dy * y^2 with y the output.
Status ReciprocalGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Neg(s, Mul(s, g[0], Square(s, ConjIfComplex(s, Output(op, 0))))), out);
}
Status SinGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Mul(s, g[0], Cos(s, ConjIfComplex(s, In(op, 0)))), out);
}
Status CosGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Neg(s, Mul(s, g[0], Sin(s, ConjIfComplex(s, In(op, 0))))), out);
}
Status TanGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {  // 1 / cos^2
  return Unary(s, Div(s, g[0], Square(s, Cos(s, ConjIfComplex(s, In(op, 0))))), out);
}
Output OneMinusSquareRsqrt(const Scope& s, Output x) {  // 1 / sqrt(1 - x^2)
  return Rsqrt(s, Sub(s, ScalarOf(s, x.type(), 1), Square(s, x)));
}
Status AsinGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Mul(s, g[0], OneMinusSquareRsqrt(s, In(op, 0))), out);
}
Status AcosGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Neg(s, Mul(s, g[0], OneMinusSquareRsqrt(s, In(op, 0)))), out);
}
Status AtanGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 0);
  return Unary(s, Div(s, g[0], Add(s, ScalarOf(s, x.type(), 1), Square(s, x))), out);
}
Status SinhGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Mul(s, g[0], Cosh(s, ConjIfComplex(s, In(op, 0)))), out);
}
Status CoshGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Mul(s, g[0], Sinh(s, ConjIfComplex(s, In(op, 0)))), out);
}
Status Log1pGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = ConjIfComplex(s, In(op, 0));
  return Unary(s, Div(s, g[0], Add(s, OnesLike(s, x), x)), out);
}
Status Expm1Grad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Mul(s, g[0], Exp(s, ConjIfComplex(s, In(op, 0)))), out);
}
Status ConjGrad(const Scope& s, Node*, const Grads& g, Grads* out) { return Unary(s, Conj(s, g[0]), out); }
// Real and Imag: the gradient is the complex number with the part's
// gradient in that part; Complex's parts take the gradient's parts.
Status RealGrad(const Scope& s, Node*, const Grads& g, Grads* out) {
  return Unary(s, Complex(s, g[0], ZerosLike(s, g[0])), out);
}
Status ImagGrad(const Scope& s, Node*, const Grads& g, Grads* out) {
  return Unary(s, Complex(s, ZerosLike(s, g[0]), g[0]), out);
}
Status ComplexGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Binary(s, op, Real(s, g[0]), Imag(s, g[0]), out);
}
// erf'(x) = 2 / sqrt(pi) * e^(-x^2); erfc' is its negative.
Output ErfDerivative(const Scope& s, Output x, double sign) {
  const double two_over_sqrt_pi = 1.1283791670955125738961589031215;
  return Mul(s, ScalarOf(s, x.type(), sign * two_over_sqrt_pi), Exp(s, Neg(s, Square(s, x))));
}
Status ErfGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Mul(s, g[0], ErfDerivative(s, In(op, 0), 1)), out);
}
Status ErfcGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  return Unary(s, Mul(s, g[0], ErfDerivative(s, In(op, 0), -1)), out);
}
Status SoftsignGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {  // 1 / (1 + |x|)^2
  Output x = In(op, 0);
  return Unary(s, Div(s, g[0], Square(s, Add(s, ScalarOf(s, x.type(), 1), Abs(s, x)))), out);
}
// Selu's derivative is scale for x >= 0 and scale * alpha * e^x = y +
// scale * alpha below, from the output y as TensorFlow's SeluGrad does.
Status SeluGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y(op, 0);
  const double scale = 1.0507009873554804934193349852946;
  const double scale_alpha = scale * 1.6732632423543772848170429916717;
  Output below = Mul(s, g[0], Add(s, y, ScalarOf(s, y.type(), scale_alpha)));
  Output above = Mul(s, g[0], ScalarOf(s, y.type(), scale));
  return Unary(s, Select(s, Less(s, y, ZerosLike(s, y)), below, above), out);
}
Status LeakyReluGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  float alpha = 0.2f;
  TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "alpha", &alpha));
  Output x = In(op, 0);
  Output scaled = Mul(s, g[0], ScalarOf(s, x.type(), alpha));
  return Unary(s, Select(s, Greater(s, x, ZerosLike(s, x)), g[0], scaled), out);
}

// A running sum's gradient is the running sum of the gradient the other way.
Status CumsumGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  bool exclusive = false, reverse = false;
  TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "exclusive", &exclusive));
  TACT_RETURN_IF_ERROR(GetAttr(op->attrs(), "reverse", &reverse));
  out->push_back(Cumsum(s, g[0], In(op, 1), exclusive, !reverse));
  out->push_back(Output());
  return s.status();
}

Status IdentityGrad(const Scope&, Node*, const Grads& g, Grads* out) {
  out->push_back(g[0]);
  return Status::OK();
}
Status AddNGrad(const Scope&, Node* op, const Grads& g, Grads* out) {
  for (int i = 0; i < op->num_inputs(); ++i) out->push_back(g[0]);
  return Status::OK();
}
Status CastGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  DataType src = op->input_type(0);
  bool ok = IsDifferentiableType(src) && IsDifferentiableType(op->output_type(0));
  out->push_back(ok ? Cast(s, g[0], src) : Output());
  return s.status();
}
Status SelectGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output c = In(op, 0), zeros = ZerosLike(s, g[0]);
  out->push_back(Output());
  out->push_back(Select(s, c, g[0], zeros));
  out->push_back(Select(s, c, zeros, g[0]));
  return s.status();
}

// As Select's, each summed back down to the shape its input had before
// the three were broadcast together.
Status SelectV2Grad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output c = In(op, 0), zeros = ZerosLike(s, g[0]);
  out->push_back(Output());
  out->push_back(grad::SumToShapeOf(s, SelectV2(s, c, g[0], zeros), In(op, 1)));
  out->push_back(grad::SumToShapeOf(s, SelectV2(s, c, zeros, g[0]), In(op, 2)));
  return s.status();
}

// TensorFlow's rule: t gets the gradient where it lies within the bounds;
// each bound gets it where t was clipped to that bound (below the lower,
// above the upper), summed down to the bound's shape.
Status ClipByValueGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output t = In(op, 0), lo = In(op, 1), hi = In(op, 2), zeros = ZerosLike(s, g[0]);
  Output below = Less(s, t, lo), above = Greater(s, t, hi);
  out->push_back(SelectV2(s, LogicalOr(s, below, above), zeros, g[0]));
  out->push_back(grad::SumToShapeOf(s, SelectV2(s, below, g[0], zeros), lo));
  out->push_back(grad::SumToShapeOf(s, SelectV2(s, above, g[0], zeros), hi));
  return s.status();
}

// Second derivatives. ReluGrad(g, x) = g * (x > 0): linear in g, and its
// derivative in x is 0 almost everywhere.
Status ReluGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 1);
  out->push_back(ReluGrad(s, g[0], x));
  out->push_back(ZerosLike(s, x));
  return s.status();
}
// Relu6Grad(g, x) = g where 0 < x < 6: linear in g, flat in x.
Status Relu6GradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output x = In(op, 1);
  out->push_back(Relu6Grad(s, g[0], x));
  out->push_back(ZerosLike(s, x));
  return s.status();
}
// EluGrad(g, y) = g * (y + 1) where y < 0, else g.
Status EluGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output dy = In(op, 0), y = In(op, 1);
  out->push_back(EluGrad(s, g[0], y));
  Output negative = Less(s, y, ScalarOf(s, y.type(), 0));
  out->push_back(Select(s, negative, Mul(s, g[0], dy), ZerosLike(s, y)));
  return s.status();
}
// SoftplusGrad(g, x) = g * sigmoid(x); sigmoid'(x) = 1 / (e^-x + 2 + e^x).
Status SoftplusGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output dy = In(op, 0), x = In(op, 1);
  out->push_back(SoftplusGrad(s, g[0], x));
  Output denom = Add(s, Add(s, Exp(s, Neg(s, x)), ScalarOf(s, x.type(), 2)), Exp(s, x));
  out->push_back(Div(s, Mul(s, g[0], dy), denom));
  return s.status();
}
// RsqrtGrad(y, dy) = -dy * y^3 / 2.
Status RsqrtGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y = In(op, 0), dy = In(op, 1);
  out->push_back(Mul(s, g[0], Mul(s, Mul(s, ScalarOf(s, y.type(), -1.5), dy), Square(s, y))));
  out->push_back(RsqrtGrad(s, y, g[0]));
  return s.status();
}
// SqrtGrad(y, dy) = z = dy / (2y): dz/dy = -z / y.
Status SqrtGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y = In(op, 0), z(op, 0);
  out->push_back(Neg(s, Div(s, Mul(s, g[0], z), y)));
  out->push_back(SqrtGrad(s, y, g[0]));
  return s.status();
}
// TanhGrad(y, dy) = dy * (1 - y^2).
Status TanhGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y = In(op, 0), dy = In(op, 1);
  out->push_back(Mul(s, g[0], Mul(s, dy, Mul(s, ScalarOf(s, y.type(), -2), y))));
  out->push_back(TanhGrad(s, y, g[0]));
  return s.status();
}
// SigmoidGrad(y, dy) = dy * y * (1 - y).
Status SigmoidGradGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  Output y = In(op, 0), dy = In(op, 1);
  Output one_minus_2y = Sub(s, ScalarOf(s, y.type(), 1), Mul(s, ScalarOf(s, y.type(), 2), y));
  out->push_back(Mul(s, g[0], Mul(s, dy, one_minus_2y)));
  out->push_back(SigmoidGrad(s, y, g[0]));
  return s.status();
}

// The gradient passes through, checked in turn (as TensorFlow's): a NaN
// born in the backward pass names this node too.
Status CheckNumericsGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  std::string message;
  (void)GetAttr(op->attrs(), "message", &message);
  out->push_back(CheckNumerics(s, g[0], "not a number (NaN) or infinity (Inf) in the gradient of '" +
                                            op->name() + "': " + message));
  return s.status();
}

}  // namespace

REGISTER_GRADIENT_OP("Add", AddGrad);
REGISTER_GRADIENT_OP("Sub", SubGrad);
REGISTER_GRADIENT_OP("Mul", MulGrad);
REGISTER_GRADIENT_OP("Div", DivGrad);
REGISTER_GRADIENT_OP("FloorMod", FloorModGrad);
REGISTER_GRADIENT_OP("Pow", PowGrad);
REGISTER_GRADIENT_OP("Maximum", MaximumGrad);
REGISTER_GRADIENT_OP("Minimum", MinimumGrad);
REGISTER_GRADIENT_OP("SquaredDifference", SquaredDifferenceGrad);
REGISTER_GRADIENT_OP("Neg", NegGrad);
REGISTER_GRADIENT_OP("Abs", AbsGrad);
REGISTER_GRADIENT_OP("Square", SquareGrad);
REGISTER_GRADIENT_OP("Sqrt", SqrtGrad_);
REGISTER_GRADIENT_OP("Rsqrt", RsqrtGrad_);
REGISTER_GRADIENT_OP("Exp", ExpGrad);
REGISTER_GRADIENT_OP("Log", LogGrad);
REGISTER_GRADIENT_OP("Tanh", TanhGrad_);
REGISTER_GRADIENT_OP("Sigmoid", SigmoidGrad_);
REGISTER_GRADIENT_OP("Relu", ReluGrad_);
REGISTER_GRADIENT_OP("Relu6", Relu6Grad_);
REGISTER_GRADIENT_OP("Elu", EluGrad_);
REGISTER_GRADIENT_OP("Softplus", SoftplusGrad_);
REGISTER_GRADIENT_OP("RealDiv", DivGrad);  // Div on the types RealDiv has
REGISTER_GRADIENT_OP("Atan2", Atan2Grad);
REGISTER_GRADIENT_OP("Reciprocal", ReciprocalGrad);
REGISTER_GRADIENT_OP("Sin", SinGrad);
REGISTER_GRADIENT_OP("Cos", CosGrad);
REGISTER_GRADIENT_OP("Tan", TanGrad);
REGISTER_GRADIENT_OP("Asin", AsinGrad);
REGISTER_GRADIENT_OP("Acos", AcosGrad);
REGISTER_GRADIENT_OP("Atan", AtanGrad);
REGISTER_GRADIENT_OP("Sinh", SinhGrad);
REGISTER_GRADIENT_OP("Cosh", CoshGrad);
REGISTER_GRADIENT_OP("Log1p", Log1pGrad);
REGISTER_GRADIENT_OP("Expm1", Expm1Grad);
REGISTER_GRADIENT_OP("Conj", ConjGrad);
REGISTER_GRADIENT_OP("Real", RealGrad);
REGISTER_GRADIENT_OP("Imag", ImagGrad);
REGISTER_GRADIENT_OP("Complex", ComplexGrad);
REGISTER_GRADIENT_OP("Erf", ErfGrad);
REGISTER_GRADIENT_OP("Erfc", ErfcGrad);
REGISTER_GRADIENT_OP("Softsign", SoftsignGrad);
REGISTER_GRADIENT_OP("Selu", SeluGrad);
REGISTER_GRADIENT_OP("LeakyRelu", LeakyReluGrad);
REGISTER_GRADIENT_OP("Cumsum", CumsumGrad);
REGISTER_GRADIENT_OP("Identity", IdentityGrad);
REGISTER_GRADIENT_OP("AddN", AddNGrad);
REGISTER_GRADIENT_OP("Cast", CastGrad);
REGISTER_GRADIENT_OP("Select", SelectGrad);
REGISTER_GRADIENT_OP("SelectV2", SelectV2Grad);
REGISTER_GRADIENT_OP("ClipByValue", ClipByValueGrad);
REGISTER_GRADIENT_OP("ReluGrad", ReluGradGrad);
REGISTER_GRADIENT_OP("TanhGrad", TanhGradGrad);
REGISTER_GRADIENT_OP("SigmoidGrad", SigmoidGradGrad);
REGISTER_GRADIENT_OP("Relu6Grad", Relu6GradGrad);
REGISTER_GRADIENT_OP("EluGrad", EluGradGrad);
REGISTER_GRADIENT_OP("SoftplusGrad", SoftplusGradGrad);
REGISTER_GRADIENT_OP("RsqrtGrad", RsqrtGradGrad);
REGISTER_GRADIENT_OP("SqrtGrad", SqrtGradGrad);
REGISTER_GRADIENT_OP("CheckNumerics", CheckNumericsGrad);
REGISTER_NO_GRADIENT_OP("StopGradient");
REGISTER_NO_GRADIENT_OP("OneHot");  // as TensorFlow: on_value and off_value are constants
REGISTER_NO_GRADIENT_OP("Range");  // as TensorFlow: it makes indices, its length a step function
REGISTER_NO_GRADIENT_OP("Sign");
REGISTER_NO_GRADIENT_OP("Unique");  // as TensorFlow: it picks elements, its idx are indices
REGISTER_NO_GRADIENT_OP("FloorDiv");  // as TensorFlow: a step function
REGISTER_NO_GRADIENT_OP("Floor");  // the rounding ones too, as TensorFlow
REGISTER_NO_GRADIENT_OP("Ceil");
REGISTER_NO_GRADIENT_OP("Rint");
REGISTER_NO_GRADIENT_OP("Round");
REGISTER_NO_GRADIENT_OP("ZerosLike");
REGISTER_NO_GRADIENT_OP("OnesLike");
REGISTER_NO_GRADIENT_OP("Shape");
REGISTER_NO_GRADIENT_OP("Size");
REGISTER_NO_GRADIENT_OP("Rank");
REGISTER_NO_GRADIENT_OP("Fill");
REGISTER_NO_GRADIENT_OP("BroadcastGradientArgs");
REGISTER_NO_GRADIENT_OP("Const");
REGISTER_NO_GRADIENT_OP("Placeholder");

}  // namespace tact
