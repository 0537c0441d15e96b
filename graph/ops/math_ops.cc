#include "graph/ops/math_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

// The most specific shape compatible with both; InvalidArgument if none.
StatusOr<PartialTensorShape> MergeShapes(const PartialTensorShape& a,
                                         const PartialTensorShape& b) {
  if (a.unknown_rank()) return b;
  if (b.unknown_rank()) return a;
  if (a.dims() != b.dims()) {
    return errors::InvalidArgument("shapes must be equal, got ", a.DebugString(), " and ",
                                   b.DebugString());
  }
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.dims(); ++i) {
    const int64_t da = a.dim_size(i), db = b.dim_size(i);
    if (da >= 0 && db >= 0 && da != db) {
      return errors::InvalidArgument("shapes must be equal, got ", a.DebugString(), " and ",
                                     b.DebugString());
    }
    dims[i] = da >= 0 ? da : db;
  }
  return PartialTensorShape(dims);
}

// Output 0 = every input in [first, num_inputs) merged.
Status MergeInputsShape(InferenceContext* c, int first) {
  PartialTensorShape out = c->input(first);
  for (int i = first + 1; i < c->num_inputs(); ++i) {
    TACT_ASSIGN_OR_RETURN(out, MergeShapes(out, c->input(i)));
  }
  c->set_output(0, out);
  return Status::OK();
}

Status MergeAllShape(InferenceContext* c) { return MergeInputsShape(c, 0); }
// t and e merged; the condition must be a scalar, of that shape, or a vector
// of its first dimension (checked where the ranks are known).
Status SelectShape(InferenceContext* c) {
  TACT_RETURN_IF_ERROR(MergeInputsShape(c, 1));
  const PartialTensorShape& cond = c->input(0);
  const PartialTensorShape& t = c->output(0);
  if (cond.unknown_rank() || t.unknown_rank() || cond.dims() == 0) return Status::OK();
  if (cond.dims() == 1 && t.dims() > 1) {
    const int64_t rows = cond.dim_size(0), t_rows = t.dim_size(0);
    if (rows < 0 || t_rows < 0 || rows == t_rows) return Status::OK();
  } else if (cond.dims() == t.dims()) {
    return MergeShapes(cond, t).status();
  }
  return errors::InvalidArgument("'condition' must be a scalar, have the shape of 't' or be a "
                                 "vector of its first dimension; got condition ",
                                 cond.DebugString(), " and t ", t.DebugString());
}

// The three inputs broadcast together.
Status SelectV2Shape(InferenceContext* c) {
  TACT_ASSIGN_OR_RETURN(PartialTensorShape te, BroadcastShapes(c->input(1), c->input(2)));
  TACT_ASSIGN_OR_RETURN(PartialTensorShape out, BroadcastShapes(c->input(0), te));
  c->set_output(0, std::move(out));
  return Status::OK();
}

Status BroadcastGradientArgsShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, PartialTensorShape({-1}));
  return Status::OK();
}

// TensorFlow's type lists for each op, but for uint16/32/64 and string.
#define TACT_REAL "half, bfloat16, float, double"
#define TACT_NUMERIC TACT_REAL ", int32, int64, complex64, complex128"
#define TACT_SIGNED TACT_REAL ", int32, int64"
#define TACT_ARITHMETIC TACT_NUMERIC ", uint8, int8, int16"
#define TACT_REAL_NUMBER TACT_SIGNED ", uint8, int8, int16"
#define TACT_SIGNED_NUMBER TACT_NUMERIC ", int8, int16"

#define TACT_BINARY_OP(NAME, TYPES)                                                 \
  REGISTER_OP(NAME).Input("x: T").Input("y: T").Output("z: T").Attr("T: {" TYPES "}") \
      .SetShapeFn(shape_fn::BroadcastBinary)
#define TACT_UNARY_OP(NAME, TYPES)                                        \
  REGISTER_OP(NAME).Input("x: T").Output("y: T").Attr("T: {" TYPES "}") \
      .SetShapeFn(shape_fn::UnchangedShape)
#define TACT_ACTIVATION_OP(NAME, TYPES)                                                 \
  REGISTER_OP(NAME).Input("features: T").Output("activations: T").Attr("T: {" TYPES "}") \
      .SetShapeFn(shape_fn::UnchangedShape)
#define TACT_CLASSIFY_OP(NAME)                                                       \
  REGISTER_OP(NAME).Input("x: T").Output("y: bool").Attr("T: {" TACT_REAL "}") \
      .SetShapeFn(shape_fn::UnchangedShape)
#define TACT_COMPARE_OP(NAME, TYPES)                                                      \
  REGISTER_OP(NAME).Input("x: T").Input("y: T").Output("z: bool").Attr("T: {" TYPES "}") \
      .SetShapeFn(shape_fn::BroadcastBinary)
#define TACT_ACTIVATION_GRAD_OP(NAME, IN1)                                      \
  REGISTER_OP(NAME).Input("gradients: T").Input(IN1 ": T").Output("backprops: T") \
      .Attr("T: {" TACT_REAL "}").SetShapeFn(MergeAllShape)
#define TACT_Y_DY_GRAD_OP(NAME)                                            \
  REGISTER_OP(NAME).Input("y: T").Input("dy: T").Output("z: T")            \
      .Attr("T: {" TACT_REAL ", complex64, complex128}").SetShapeFn(MergeAllShape)

}  // namespace

TACT_BINARY_OP("Add", TACT_ARITHMETIC);
TACT_BINARY_OP("Sub", TACT_ARITHMETIC);
TACT_BINARY_OP("Mul", TACT_ARITHMETIC);
TACT_BINARY_OP("Div", TACT_ARITHMETIC);
TACT_BINARY_OP("FloorDiv", TACT_REAL_NUMBER);
TACT_BINARY_OP("FloorMod", TACT_REAL_NUMBER);
TACT_BINARY_OP("Maximum", TACT_REAL_NUMBER);
TACT_BINARY_OP("Minimum", TACT_REAL_NUMBER);
TACT_BINARY_OP("Pow", TACT_NUMERIC);
TACT_BINARY_OP("SquaredDifference", TACT_NUMERIC);

TACT_UNARY_OP("Neg", TACT_SIGNED_NUMBER);
TACT_UNARY_OP("Exp", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Log", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Sqrt", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Rsqrt", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Square", TACT_SIGNED_NUMBER);
TACT_UNARY_OP("Abs", TACT_SIGNED ", int8, int16");
TACT_UNARY_OP("Sign", TACT_SIGNED_NUMBER);
TACT_UNARY_OP("Tanh", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Sigmoid", TACT_REAL ", complex64, complex128");

// TensorFlow's Atan2 is atan(y / x) with its inputs in that order.
REGISTER_OP("Atan2").Input("y: T").Input("x: T").Output("z: T").Attr("T: {" TACT_REAL "}")
    .SetShapeFn(shape_fn::BroadcastBinary);
TACT_BINARY_OP("RealDiv", TACT_REAL ", complex64, complex128");

TACT_UNARY_OP("Reciprocal", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Sin", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Cos", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Tan", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Asin", TACT_REAL);
TACT_UNARY_OP("Acos", TACT_REAL);
TACT_UNARY_OP("Atan", TACT_REAL);
TACT_UNARY_OP("Sinh", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Cosh", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Log1p", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Expm1", TACT_REAL ", complex64, complex128");
TACT_UNARY_OP("Erf", TACT_REAL);
TACT_UNARY_OP("Erfc", TACT_REAL);
TACT_UNARY_OP("Floor", TACT_REAL);
TACT_UNARY_OP("Ceil", TACT_REAL);
TACT_UNARY_OP("Rint", TACT_REAL);
TACT_UNARY_OP("Round", TACT_SIGNED ", int8, int16");
// Complex numbers: TensorFlow's ops and attrs (Tout the part's type).
REGISTER_OP("Conj").Input("input: T").Output("output: T")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64").SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("Real").Input("input: T").Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64").Attr("Tout: {float, double} = DT_FLOAT")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("Imag").Input("input: T").Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64").Attr("Tout: {float, double} = DT_FLOAT")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("Complex").Input("real: T").Input("imag: T").Output("out: Tout")
    .Attr("T: {float, double} = DT_FLOAT").Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
    .SetShapeFn(shape_fn::BroadcastBinary);
TACT_CLASSIFY_OP("IsNan");
TACT_CLASSIFY_OP("IsInf");
TACT_CLASSIFY_OP("IsFinite");

TACT_ACTIVATION_OP("Relu", TACT_REAL_NUMBER);
TACT_ACTIVATION_OP("Relu6", TACT_REAL_NUMBER);
TACT_ACTIVATION_OP("Elu", TACT_REAL);
TACT_ACTIVATION_OP("Softplus", TACT_REAL);
TACT_ACTIVATION_OP("Softsign", TACT_REAL);
TACT_ACTIVATION_OP("Selu", TACT_REAL);
REGISTER_OP("LeakyRelu").Input("features: T").Output("activations: T").Attr("alpha: float = 0.2")
    .Attr("T: {" TACT_REAL "} = DT_FLOAT").SetShapeFn(shape_fn::UnchangedShape);

TACT_COMPARE_OP("Equal", TACT_ARITHMETIC ", bool, string");
TACT_COMPARE_OP("NotEqual", TACT_ARITHMETIC ", bool, string");
TACT_COMPARE_OP("Less", TACT_REAL_NUMBER);
TACT_COMPARE_OP("LessEqual", TACT_REAL_NUMBER);
TACT_COMPARE_OP("Greater", TACT_REAL_NUMBER);
TACT_COMPARE_OP("GreaterEqual", TACT_REAL_NUMBER);
REGISTER_OP("LogicalAnd").Input("x: bool").Input("y: bool").Output("z: bool")
    .SetShapeFn(shape_fn::BroadcastBinary);
REGISTER_OP("LogicalOr").Input("x: bool").Input("y: bool").Output("z: bool")
    .SetShapeFn(shape_fn::BroadcastBinary);
REGISTER_OP("LogicalNot").Input("x: bool").Output("y: bool").SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("Select").Input("condition: bool").Input("t: T").Input("e: T").Output("output: T")
    .Attr("T: type").SetShapeFn(SelectShape);
REGISTER_OP("SelectV2").Input("condition: bool").Input("t: T").Input("e: T").Output("output: T")
    .Attr("T: type").SetShapeFn(SelectV2Shape);

// A running sum along `axis` (a scalar); `exclusive` leaves each element
// out of its own sum, `reverse` runs from the end.
REGISTER_OP("Cumsum").Input("x: T").Input("axis: Tidx").Output("out: T")
    .Attr("exclusive: bool = false").Attr("reverse: bool = false")
    .Attr("T: {" TACT_NUMERIC "}").Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) {
      if (c->input(1).dims() > 0) {
        return errors::InvalidArgument("axis must be a scalar, got shape ", c->input(1).DebugString());
      }
      return shape_fn::UnchangedShape(c);
    });

REGISTER_OP("Cast").Input("x: SrcT").Output("y: DstT").Attr("SrcT: type").Attr("DstT: type")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("AddN").Input("inputs: N * T").Output("sum: T").Attr("N: int >= 1")
    .Attr("T: {" TACT_ARITHMETIC "}").SetShapeFn(MergeAllShape);

TACT_ACTIVATION_GRAD_OP("ReluGrad", "features");
TACT_ACTIVATION_GRAD_OP("Relu6Grad", "features");
TACT_ACTIVATION_GRAD_OP("EluGrad", "outputs");
TACT_ACTIVATION_GRAD_OP("SoftplusGrad", "features");
TACT_Y_DY_GRAD_OP("SigmoidGrad");
TACT_Y_DY_GRAD_OP("TanhGrad");
TACT_Y_DY_GRAD_OP("RsqrtGrad");
TACT_Y_DY_GRAD_OP("SqrtGrad");
REGISTER_OP("BroadcastGradientArgs").Input("s0: T").Input("s1: T").Output("r0: T")
    .Output("r1: T").Attr("T: {int32, int64} = int32").SetShapeFn(BroadcastGradientArgsShape);

#undef TACT_Y_DY_GRAD_OP
#undef TACT_ACTIVATION_GRAD_OP
#undef TACT_COMPARE_OP
#undef TACT_CLASSIFY_OP
#undef TACT_ACTIVATION_OP
#undef TACT_UNARY_OP
#undef TACT_BINARY_OP
#undef TACT_SIGNED_NUMBER
#undef TACT_REAL_NUMBER
#undef TACT_ARITHMETIC
#undef TACT_SIGNED
#undef TACT_NUMERIC
#undef TACT_REAL

namespace {
Output Unary(const Scope& s, const char* op, Input x) {
  return OpBuilder(s, op).Input(x).FinalizeOutput();
}
Output Binary(const Scope& s, const char* op, Input x, Input y) {
  return OpBuilder(s, op).Input(x).Input(y).FinalizeOutput();
}
// x as a node's output (a constant gets its Const), for builders whose
// attrs follow the input's type.
Output AsOutput(const Scope& s, const Input& x) {
  return x.is_constant() ? Const(s, x.constant()) : x.output();
}
DataType RealPartType(DataType complex) { return complex == DT_COMPLEX128 ? DT_DOUBLE : DT_FLOAT; }
}  // namespace

Output Add(const Scope& s, Input x, Input y) { return Binary(s, "Add", x, y); }
Output Sub(const Scope& s, Input x, Input y) { return Binary(s, "Sub", x, y); }
Output Mul(const Scope& s, Input x, Input y) { return Binary(s, "Mul", x, y); }
Output Div(const Scope& s, Input x, Input y) { return Binary(s, "Div", x, y); }
Output FloorDiv(const Scope& s, Input x, Input y) { return Binary(s, "FloorDiv", x, y); }
Output FloorMod(const Scope& s, Input x, Input y) { return Binary(s, "FloorMod", x, y); }
Output Maximum(const Scope& s, Input x, Input y) { return Binary(s, "Maximum", x, y); }
Output Minimum(const Scope& s, Input x, Input y) { return Binary(s, "Minimum", x, y); }
Output Pow(const Scope& s, Input x, Input y) { return Binary(s, "Pow", x, y); }
Output SquaredDifference(const Scope& s, Input x, Input y) {
  return Binary(s, "SquaredDifference", x, y);
}

Output Neg(const Scope& s, Input x) { return Unary(s, "Neg", x); }
Output Exp(const Scope& s, Input x) { return Unary(s, "Exp", x); }
Output Log(const Scope& s, Input x) { return Unary(s, "Log", x); }
Output Sqrt(const Scope& s, Input x) { return Unary(s, "Sqrt", x); }
Output Rsqrt(const Scope& s, Input x) { return Unary(s, "Rsqrt", x); }
Output Square(const Scope& s, Input x) { return Unary(s, "Square", x); }
Output Abs(const Scope& s, Input x) { return Unary(s, "Abs", x); }
Output Sign(const Scope& s, Input x) { return Unary(s, "Sign", x); }
Output Tanh(const Scope& s, Input x) { return Unary(s, "Tanh", x); }
Output Sigmoid(const Scope& s, Input x) { return Unary(s, "Sigmoid", x); }
Output RealDiv(const Scope& s, Input x, Input y) { return Binary(s, "RealDiv", x, y); }
Output Atan2(const Scope& s, Input y, Input x) { return Binary(s, "Atan2", y, x); }

Output Reciprocal(const Scope& s, Input x) { return Unary(s, "Reciprocal", x); }
Output Sin(const Scope& s, Input x) { return Unary(s, "Sin", x); }
Output Cos(const Scope& s, Input x) { return Unary(s, "Cos", x); }
Output Tan(const Scope& s, Input x) { return Unary(s, "Tan", x); }
Output Asin(const Scope& s, Input x) { return Unary(s, "Asin", x); }
Output Acos(const Scope& s, Input x) { return Unary(s, "Acos", x); }
Output Atan(const Scope& s, Input x) { return Unary(s, "Atan", x); }
Output Sinh(const Scope& s, Input x) { return Unary(s, "Sinh", x); }
Output Cosh(const Scope& s, Input x) { return Unary(s, "Cosh", x); }
Output Log1p(const Scope& s, Input x) { return Unary(s, "Log1p", x); }
Output Expm1(const Scope& s, Input x) { return Unary(s, "Expm1", x); }
Output Erf(const Scope& s, Input x) { return Unary(s, "Erf", x); }
Output Erfc(const Scope& s, Input x) { return Unary(s, "Erfc", x); }
Output Floor(const Scope& s, Input x) { return Unary(s, "Floor", x); }
Output Ceil(const Scope& s, Input x) { return Unary(s, "Ceil", x); }
Output Rint(const Scope& s, Input x) { return Unary(s, "Rint", x); }
Output Round(const Scope& s, Input x) { return Unary(s, "Round", x); }
Output Conj(const Scope& s, Input x) { return Unary(s, "Conj", x); }
// The part's type follows the number's: float for complex64, double for complex128.
Output Real(const Scope& s, Input x) {
  Output in = AsOutput(s, x);
  return OpBuilder(s, "Real").Input(in).Attr("Tout", RealPartType(in.type())).FinalizeOutput();
}
Output Imag(const Scope& s, Input x) {
  Output in = AsOutput(s, x);
  return OpBuilder(s, "Imag").Input(in).Attr("Tout", RealPartType(in.type())).FinalizeOutput();
}
Output Complex(const Scope& s, Input real, Input imag) {
  Output re = AsOutput(s, real);
  const DataType t = re.type() == DT_DOUBLE ? DT_COMPLEX128 : DT_COMPLEX64;
  return OpBuilder(s, "Complex").Input(re).Input(imag).Attr("Tout", t).FinalizeOutput();
}
Output IsNan(const Scope& s, Input x) { return Unary(s, "IsNan", x); }
Output IsInf(const Scope& s, Input x) { return Unary(s, "IsInf", x); }
Output IsFinite(const Scope& s, Input x) { return Unary(s, "IsFinite", x); }

Output Relu(const Scope& s, Input features) { return Unary(s, "Relu", features); }
Output Relu6(const Scope& s, Input features) { return Unary(s, "Relu6", features); }
Output Elu(const Scope& s, Input features) { return Unary(s, "Elu", features); }
Output Softplus(const Scope& s, Input features) { return Unary(s, "Softplus", features); }
Output Softsign(const Scope& s, Input features) { return Unary(s, "Softsign", features); }
Output Selu(const Scope& s, Input features) { return Unary(s, "Selu", features); }
Output LeakyRelu(const Scope& s, Input features, float alpha) {
  return OpBuilder(s, "LeakyRelu").Input(features).Attr("alpha", alpha).FinalizeOutput();
}

Output Equal(const Scope& s, Input x, Input y) { return Binary(s, "Equal", x, y); }
Output NotEqual(const Scope& s, Input x, Input y) { return Binary(s, "NotEqual", x, y); }
Output Less(const Scope& s, Input x, Input y) { return Binary(s, "Less", x, y); }
Output LessEqual(const Scope& s, Input x, Input y) { return Binary(s, "LessEqual", x, y); }
Output Greater(const Scope& s, Input x, Input y) { return Binary(s, "Greater", x, y); }
Output GreaterEqual(const Scope& s, Input x, Input y) { return Binary(s, "GreaterEqual", x, y); }
Output LogicalAnd(const Scope& s, Input x, Input y) { return Binary(s, "LogicalAnd", x, y); }
Output LogicalOr(const Scope& s, Input x, Input y) { return Binary(s, "LogicalOr", x, y); }
Output LogicalNot(const Scope& s, Input x) { return Unary(s, "LogicalNot", x); }

Output Select(const Scope& s, Input condition, Input t, Input e) {
  return OpBuilder(s, "Select").Input(condition).Input(t).Input(e).FinalizeOutput();
}

Output SelectV2(const Scope& s, Input condition, Input t, Input e) {
  return OpBuilder(s, "SelectV2").Input(condition).Input(t).Input(e).FinalizeOutput();
}

Output Cumsum(const Scope& s, Input x, Input axis, bool exclusive, bool reverse) {
  return OpBuilder(s, "Cumsum").Input(x).Input(axis).Attr("exclusive", exclusive)
      .Attr("reverse", reverse).FinalizeOutput();
}

Output Cast(const Scope& s, Input x, DataType DstT) {
  return OpBuilder(s, "Cast").Input(x).Attr("DstT", DstT).FinalizeOutput();
}

Output AddN(const Scope& s, const std::vector<Input>& inputs) {
  return OpBuilder(s, "AddN").InputList(inputs).FinalizeOutput();
}

Output ReluGrad(const Scope& s, Input gradients, Input features) {
  return Binary(s, "ReluGrad", gradients, features);
}
Output Relu6Grad(const Scope& s, Input gradients, Input features) {
  return Binary(s, "Relu6Grad", gradients, features);
}
Output EluGrad(const Scope& s, Input gradients, Input outputs) {
  return Binary(s, "EluGrad", gradients, outputs);
}
Output SoftplusGrad(const Scope& s, Input gradients, Input features) {
  return Binary(s, "SoftplusGrad", gradients, features);
}
Output SigmoidGrad(const Scope& s, Input y, Input dy) { return Binary(s, "SigmoidGrad", y, dy); }
Output TanhGrad(const Scope& s, Input y, Input dy) { return Binary(s, "TanhGrad", y, dy); }
Output RsqrtGrad(const Scope& s, Input y, Input dy) { return Binary(s, "RsqrtGrad", y, dy); }
Output SqrtGrad(const Scope& s, Input y, Input dy) { return Binary(s, "SqrtGrad", y, dy); }

std::vector<Output> BroadcastGradientArgs(const Scope& s, Input s0, Input s1) {
  return OpBuilder(s, "BroadcastGradientArgs").Input(s0).Input(s1).FinalizeOutputs();
}

}  // namespace tact
