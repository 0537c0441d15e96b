#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

struct BroadcastCase {
  TensorShape x, y, out;
};

// Rank 0, empty, equal shapes and every broadcasting pattern the kernel has
// a path for (scalar, one-element, folded strided walk).
const std::vector<BroadcastCase>& Cases() {
  static const std::vector<BroadcastCase> cases = {
      {{2, 3}, {2, 3}, {2, 3}},       {{}, {}, {}},
      {{2, 3}, {3}, {2, 3}},          {{2, 1}, {1, 3}, {2, 3}},
      {{4, 1, 3}, {2, 1}, {4, 2, 3}}, {{}, {2, 3}, {2, 3}},
      {{2, 3}, {}, {2, 3}},           {{0, 3}, {3}, {0, 3}},
      {{2, 0}, {2, 1}, {2, 0}},       {{1}, {5}, {5}},
      {{1, 1, 1}, {3}, {1, 1, 3}},    {{3, 1, 5, 1}, {1, 4, 1, 2}, {3, 4, 5, 2}},
      {{3}, {2, 1}, {2, 3}},          {{2, 3, 4}, {2, 1, 4}, {2, 3, 4}},
      {{7, 1}, {1, 1}, {7, 1}},
      // Alternating patterns fold to rank 10 (past the walk's on-stack index).
      {{2, 1, 2, 1, 2, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2, 1, 2, 1, 2},
       {2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
  };
  return cases;
}

template <typename T>
void CheckBinary(const std::string& op, const std::function<double(double, double)>& ref,
                 double xlo = -2, double xhi = 2, double ylo = -2, double yhi = 2,
                 double rtol = 1e-5) {
  uint32_t seed = 1;
  for (const BroadcastCase& c : Cases()) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeToEnum<T>::value) + " " + c.x.DebugString() +
                 " with " + c.y.DebugString());
    Tensor x = test::Random<T>(c.x, seed++, xlo, xhi);
    Tensor y = test::Random<T>(c.y, seed++, ylo, yhi);
    Tensor z = test::RunOne(op, {x, y});
    ASSERT_TRUE(z.IsInitialized());
    EXPECT_EQ(z.dtype(), DataTypeToEnum<T>::value);
    test::ExpectClose(z, c.out, test::RefBroadcast(x, y, c.out, ref), rtol, 1e-6);
  }
}

template <typename T>
void CheckArithmetic() {
  CheckBinary<T>("Add", [](double a, double b) { return a + b; });
  CheckBinary<T>("Sub", [](double a, double b) { return a - b; });
  CheckBinary<T>("Mul", [](double a, double b) { return a * b; });
  CheckBinary<T>("Maximum", [](double a, double b) { return std::max(a, b); });
  CheckBinary<T>("Minimum", [](double a, double b) { return std::min(a, b); });
}

TEST(CwiseBinaryOpsTest, ArithmeticMatchesReference) {
  CheckArithmetic<float>();
  CheckArithmetic<double>();
  CheckArithmetic<int32_t>();
  CheckArithmetic<int64_t>();
}

TEST(CwiseBinaryOpsTest, DivMatchesReference) {
  auto real = [](double a, double b) { return a / b; };
  CheckBinary<float>("Div", real);
  CheckBinary<double>("Div", real);
  // Integers truncate toward zero; divisors in [-5, 5] minus 0 and inputs of both signs.
  auto trunc = [](double a, double b) { return std::trunc(a / b); };
  CheckBinary<int32_t>("Div", trunc, -20, 20, 1, 5);
  CheckBinary<int64_t>("Div", trunc, -20, 20, -5, -1);
}

// Python's // and %: the quotient rounds toward minus infinity and the
// remainder takes the divisor's sign.
TEST(CwiseBinaryOpsTest, FloorDivAndFloorModRoundTowardMinusInfinity) {
  auto floor_div = [](double a, double b) { return std::floor(a / b); };
  auto floor_mod = [](double a, double b) { return a - std::floor(a / b) * b; };
  for (auto [lo, hi] : {std::pair{1.0, 5.0}, std::pair{-5.0, -1.0}}) {
    CheckBinary<int32_t>("FloorDiv", floor_div, -20, 20, lo, hi);
    CheckBinary<int64_t>("FloorDiv", floor_div, -20, 20, lo, hi);
    CheckBinary<int32_t>("FloorMod", floor_mod, -20, 20, lo, hi);
    CheckBinary<int64_t>("FloorMod", floor_mod, -20, 20, lo, hi);
  }
  // Every sign pair, as Python computes them.
  const std::vector<int> a = {-7, 7, -7, 7, 6, -6, 0};
  const std::vector<int> b = {2, -2, -2, 2, -3, 3, 5};
  const std::vector<int> q = {-4, -4, 3, 3, -2, -2, 0};
  const std::vector<int> r = {1, -1, -1, 1, 0, 0, 0};
  auto ints = [](const std::vector<int>& v, DataType dt) {
    Tensor t(dt, {static_cast<int64_t>(v.size())});
    VisitDataType(dt, [&]<typename T>() {
      if constexpr (std::is_integral_v<T>) {
        for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = static_cast<T>(v[i]);
      }
    });
    return t;
  };
  for (DataType dt : {DT_INT8, DT_INT16, DT_INT32, DT_INT64}) {
    SCOPED_TRACE(DataTypeString(dt));
    EXPECT_TRUE(test::RunOne("FloorDiv", {ints(a, dt), ints(b, dt)}).BitwiseEqual(ints(q, dt)));
    EXPECT_TRUE(test::RunOne("FloorMod", {ints(a, dt), ints(b, dt)}).BitwiseEqual(ints(r, dt)));
  }
  Tensor u = test::RunOne("FloorMod",
                          {Tensor::FromVector<uint8_t>({7, 200}), Tensor::FromVector<uint8_t>({2, 7})});
  EXPECT_EQ(u.data<uint8_t>()[0], 1);
  EXPECT_EQ(u.data<uint8_t>()[1], 4);
  // Floats: -7.5 // 2 = -4, -7.5 % 2 = 0.5, 7.5 // -2 = -4, 7.5 % -2 = -0.5.
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    SCOPED_TRACE(DataTypeString(dt));
    auto floats = [dt](const std::vector<float>& v) {
      Tensor t(dt, {static_cast<int64_t>(v.size())});
      VisitDataType(dt, [&]<typename T>() {
        if constexpr (!std::is_integral_v<T> && std::is_constructible_v<T, float>) {
          for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = T(v[i]);
        }
      });
      return t;
    };
    Tensor x = floats({-7.5f, 7.5f, 5.0f, 3.0f});
    Tensor y = floats({2.0f, -2.0f, 0.5f, 4.0f});
    test::ExpectClose(test::RunOne("FloorDiv", {x, y}), {4}, {-4, -4, 10, 0}, 0, 0);
    test::ExpectClose(test::RunOne("FloorMod", {x, y}), {4}, {0.5, -0.5, 0, 3}, 0, 0);
  }
  // The quotient that overflows wraps, as Div's does; its remainder is 0.
  const int32_t min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(test::RunOne("FloorDiv", {Tensor::Scalar<int32_t>(min), Tensor::Scalar<int32_t>(-1)})
                .scalar<int32_t>(), min);
  EXPECT_EQ(test::RunOne("FloorMod", {Tensor::Scalar<int32_t>(min), Tensor::Scalar<int32_t>(-1)})
                .scalar<int32_t>(), 0);
  // An integer zero divisor is an error naming it; a float one is IEEE.
  for (const char* op : {"FloorDiv", "FloorMod"}) {
    Tensor x = Tensor::FromVector<int32_t>({1, 2}), y = Tensor::FromVector<int32_t>({1, 0});
    test::ExpectError(test::RunOp(op, {x, y}).status(), Code::kInvalidArgument, "integer division by zero");
  }
  EXPECT_TRUE(std::isinf(test::RunOne("FloorDiv", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)})
                             .scalar<float>()));
  EXPECT_TRUE(std::isnan(test::RunOne("FloorMod", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)})
                             .scalar<float>()));
}

TEST(CwiseBinaryOpsTest, PowAndSquaredDifferenceMatchReference) {
  auto pow = [](double a, double b) { return std::pow(a, b); };
  CheckBinary<float>("Pow", pow, 0.1, 3, -2, 2, 2e-5);
  CheckBinary<double>("Pow", pow, 0.1, 3, -2, 2);
  auto sqd = [](double a, double b) { return (a - b) * (a - b); };
  CheckBinary<float>("SquaredDifference", sqd);
  CheckBinary<double>("SquaredDifference", sqd);
}

TEST(CwiseBinaryOpsTest, IntegerDivisionByZeroIsAnError) {
  for (DataType dt : {DT_INT32, DT_INT64}) {
    Tensor x(dt, {3}), y(dt, {3});
    VisitDataType(dt, [&]<typename T>() {
      if constexpr (std::is_integral_v<T>) {
        for (int i = 0; i < 3; ++i) x.data<T>()[i] = static_cast<T>(7 + i);
        y.data<T>()[0] = 2;
        y.data<T>()[1] = 0;
        y.data<T>()[2] = 1;
      }
    });
    test::ExpectError(test::RunOp("Div", {x, y}).status(), Code::kInvalidArgument,
                      "integer division by zero");
    // A broadcast zero scalar too.
    Tensor zero(dt, {});
    std::memset(zero.raw_data(), 0, DataTypeSize(dt));
    test::ExpectError(test::RunOp("Div", {x, zero}).status(), Code::kInvalidArgument,
                      "integer division by zero");
  }
  // Float division by zero is IEEE: inf.
  Tensor z = test::RunOne("Div", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)});
  EXPECT_TRUE(std::isinf(z.scalar<float>()));
}

TEST(CwiseBinaryOpsTest, IntegerOverflowWrapsInsteadOfTrapping) {
  const int32_t min = std::numeric_limits<int32_t>::min();
  const int32_t max = std::numeric_limits<int32_t>::max();
  Tensor q = test::RunOne("Div", {Tensor::Scalar<int32_t>(min), Tensor::Scalar<int32_t>(-1)});
  EXPECT_EQ(q.scalar<int32_t>(), min);
  Tensor s = test::RunOne("Add", {Tensor::Scalar<int32_t>(max), Tensor::Scalar<int32_t>(1)});
  EXPECT_EQ(s.scalar<int32_t>(), min);
  Tensor d = test::RunOne("Div", {Tensor::FromVector<int64_t>({-7, 7}),
                                  Tensor::FromVector<int64_t>({2, -2})});
  EXPECT_EQ(d.data<int64_t>()[0], -3);
  EXPECT_EQ(d.data<int64_t>()[1], -3);
}

TEST(CwiseBinaryOpsTest, IncompatibleShapesAreAnError) {
  auto out = test::RunOp("Add", {test::Random<float>({2, 3}, 1), test::Random<float>({4}, 2)});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "incompatible shapes for broadcasting: [2,3] and [4]");
  out = test::RunOp("Mul", {test::Random<double>({2, 3}, 1), test::Random<double>({3, 3}, 2)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "[2,3] and [3,3]");
  // The node's prefix comes first.
  EXPECT_NE(out.status().message().find("node 'test_Mul'"), std::string::npos);
}

TEST(CwiseBinaryOpsTest, MixedDtypesAreAnError) {
  auto out = test::RunOp("Add", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(1)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "must be float, given int32");
  // Integer Pow refuses a negative exponent (the result is no integer).
  out = test::RunOp("Pow", {Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(-3)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "negative integer powers");
  // A dtype the op does not allow at all.
  out = test::RunOp("Sub", {Tensor::Scalar<bool>(true), Tensor::Scalar<bool>(false)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
}

// Big enough that ParallelFor splits it; every element is computed the same
// way on any block, so 1 and 4 threads agree bit for bit.
TEST(CwiseBinaryOpsTest, ThreadedMatchesSingleThreadBitForBit) {
  struct Big {
    std::string op;
    TensorShape x, y;
  };
  for (const Big& b : std::vector<Big>{{"Add", {600, 1000}, {600, 1000}},
                                       {"Mul", {600, 1000}, {}},
                                       {"Sub", {600, 1000}, {1000}},
                                       {"Maximum", {600, 1, 1000}, {1, 3, 1000}},
                                       {"Pow", {300, 1000}, {300, 1}}}) {
    SCOPED_TRACE(b.op);
    Tensor x = test::Random<float>(b.x, 11, 0.5, 2);
    Tensor y = test::Random<float>(b.y, 12, -2, 2);
    Tensor one = test::RunOne(b.op, {x, y}, {}, 1);
    Tensor four = test::RunOne(b.op, {x, y}, {}, 4);
    EXPECT_TRUE(one.BitwiseEqual(four));
  }
  Tensor x = test::Random<float>({500, 1000}, 3);
  Tensor y = test::Random<float>({1000}, 4);
  Tensor z = test::RunOne("Add", {x, y}, {}, 4);
  test::ExpectClose(z, {500, 1000}, test::RefBroadcast(x, y, {500, 1000},
                                                       [](double a, double b) { return a + b; }));
}

TEST(CwiseBinaryOpsTest, ShapeFunctionBroadcasts) {
  auto s = test::InferShape("Add", {PartialTensorShape({4, 1, 3}), PartialTensorShape({-1, 1})});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, PartialTensorShape({4, -1, 3}));
  test::ExpectError(test::InferShape("Mul", {PartialTensorShape({2}), PartialTensorShape({3})})
                        .status(),
                    Code::kInvalidArgument, "incompatible shapes");
}

TEST(CwiseBinaryOpsTest, BuilderAddsANode) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT);
  Output z = Add(s, Mul(s, x, 2.0f), 1.0f);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(z.node->op(), "Add");
  EXPECT_EQ(z.type(), DT_FLOAT);
  Output q = Div(s, Placeholder(s, DT_INT64), Placeholder(s, DT_INT64));
  EXPECT_EQ(q.type(), DT_INT64);
  EXPECT_EQ(SquaredDifference(s, x, x).node->op(), "SquaredDifference");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
}

}  // namespace
}  // namespace tact
