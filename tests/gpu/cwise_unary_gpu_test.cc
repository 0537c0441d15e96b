// The GPU kernels of the element-wise unary ops and of the activation
// gradients against the CPU kernels, on random inputs of a scalar, odd
// sizes and a tensor of several thousand blocks. Skipped without a GPU.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

const std::vector<TensorShape> kShapes = {TensorShape({}), TensorShape({7}),
                                          TensorShape({3, 5, 17}), TensorShape({1 << 20})};

// Log, Sqrt, Rsqrt and Reciprocal get positive inputs, the inverse sines
// and Tan their domains (Tan short of its poles), Log1p values above -1;
// the others both signs (Relu6 also values past 6).
Tensor InputFor(const std::string& op, DataType dtype, const TensorShape& shape, uint32_t seed) {
  const bool positive = op == "Log" || op == "Sqrt" || op == "Rsqrt" || op == "Reciprocal";
  double lo = positive ? 0.1 : -8.0, hi = 8.0;
  if (op == "Asin" || op == "Acos") lo = -0.95, hi = 0.95;
  if (op == "Tan") lo = -1.4, hi = 1.4;
  if (op == "Log1p") lo = -0.9;
  switch (dtype) {
    case DT_DOUBLE: return test::Random<double>(shape, seed, lo, hi);
    case DT_HALF: return test::Random<half>(shape, seed, lo, hi);
    case DT_BFLOAT16: return test::Random<bfloat16>(shape, seed, lo, hi);
    default: return test::Random<float>(shape, seed, lo, hi);
  }
}

// half and bfloat16 round the float result once on both devices; the math
// libraries may differ by an ulp before that rounding.
double RtolFor(DataType dtype) {
  return dtype == DT_HALF || dtype == DT_BFLOAT16 ? 1e-2 : 1e-5;
}

TEST(GpuUnaryTest, EveryOpMatchesTheCpuOnEveryFloatingType) {
  TACT_REQUIRE_GPU();
  const char* kOps[] = {"Neg",   "Abs",   "Square", "Sign",    "Exp",   "Log",        "Sqrt",
                        "Rsqrt", "Tanh",  "Sigmoid", "Relu",   "Relu6", "Elu",        "Softplus",
                        "Sin",   "Cos",   "Tan",    "Asin",    "Acos",  "Atan",       "Sinh",
                        "Cosh",  "Log1p", "Expm1",  "Erf",     "Erfc",  "Floor",      "Ceil",
                        "Rint",  "Round", "Softsign", "Selu",  "Reciprocal"};
  for (const char* op : kOps) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
      for (size_t s = 0; s < kShapes.size(); ++s) {
        SCOPED_TRACE(std::string(op) + " " + DataTypeString(dtype) + " " +
                     kShapes[s].DebugString());
        test::ExpectGpuMatchesCpu(op, {InputFor(op, dtype, kShapes[s], 11 + s)}, {},
                                  RtolFor(dtype), 1e-5);
      }
    }
  }
}

TEST(GpuUnaryTest, ReluOfNanIsZeroAsOnTheCpu) {
  TACT_REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  test::ExpectGpuMatchesCpu("Relu", {Tensor::FromVector<float>({nan, -1, 2})});
  test::ExpectGpuMatchesCpu("Sign", {Tensor::FromVector<float>({nan, -1, 0, 2})});
}

TEST(GpuUnaryGradTest, EveryGradientMatchesTheCpu) {
  TACT_REQUIRE_GPU();
  const char* kOps[] = {"ReluGrad",    "Relu6Grad", "EluGrad",   "SoftplusGrad",
                        "SigmoidGrad", "TanhGrad",  "RsqrtGrad", "SqrtGrad"};
  for (const char* op : kOps) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
      for (size_t s = 1; s < kShapes.size(); ++s) {
        SCOPED_TRACE(std::string(op) + " " + DataTypeString(dtype) + " " +
                     kShapes[s].DebugString());
        // SqrtGrad divides by its first input: keep it away from 0.
        const std::string first = std::string(op) == "SqrtGrad" ? "Sqrt" : op;
        test::ExpectGpuMatchesCpu(op,
                                  {InputFor(first, dtype, kShapes[s], 21 + s),
                                   InputFor(op, dtype, kShapes[s], 31 + s)},
                                  {}, RtolFor(dtype), 1e-5);
      }
    }
  }
}

TEST(GpuUnaryGradTest, ShapesThatDifferAreAnErrorNamingTheNode) {
  TACT_REQUIRE_GPU();
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "ReluGrad", {test::Random<float>(TensorShape({2, 3}), 1),
                   test::Random<float>(TensorShape({3, 2}), 2)});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "same shape");
  test::ExpectError(out.status(), Code::kInvalidArgument, "test_ReluGrad");
}

}  // namespace
}  // namespace tact
