#include <gtest/gtest.h>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

struct Case {
  TensorShape x, y, out;
};
const std::vector<Case> kCases = {
    {{2, 3}, {2, 3}, {2, 3}}, {{}, {}, {}},          {{2, 3}, {3}, {2, 3}},
    {{2, 1}, {1, 3}, {2, 3}}, {{4, 1, 3}, {2, 1}, {4, 2, 3}},
    {{}, {2, 3}, {2, 3}},     {{0, 3}, {1}, {0, 3}}, {{5, 1, 4}, {4}, {5, 1, 4}},
};

template <typename T>
void CheckCompare(const std::string& op, const std::function<bool(double, double)>& ref) {
  uint32_t seed = 7;
  for (const Case& c : kCases) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeToEnum<T>::value) + " " + c.x.DebugString() +
                 " with " + c.y.DebugString());
    // Integer-valued inputs in [-2, 2]: ties are frequent, so == and <= are exercised.
    Tensor x = test::Random<T>(c.x, seed++);
    Tensor y = test::Random<T>(c.y, seed++);
    if constexpr (std::is_floating_point_v<T>) {
      for (Tensor* t : {&x, &y}) {
        for (int64_t i = 0; i < t->NumElements(); ++i) t->data<T>()[i] = std::round(t->data<T>()[i]);
      }
    }
    Tensor z = test::RunOne(op, {x, y});
    ASSERT_EQ(z.dtype(), DT_BOOL);
    test::ExpectClose(z, c.out, test::RefBroadcast(x, y, c.out, [&](double a, double b) {
                        return ref(a, b) ? 1.0 : 0.0;
                      }), 0, 0);
  }
}

template <typename T>
void CheckAllComparisons() {
  CheckCompare<T>("Equal", [](double a, double b) { return a == b; });
  CheckCompare<T>("NotEqual", [](double a, double b) { return a != b; });
  CheckCompare<T>("Less", [](double a, double b) { return a < b; });
  CheckCompare<T>("LessEqual", [](double a, double b) { return a <= b; });
  CheckCompare<T>("Greater", [](double a, double b) { return a > b; });
  CheckCompare<T>("GreaterEqual", [](double a, double b) { return a >= b; });
}

TEST(CwiseCompareOpsTest, ComparisonsMatchReference) {
  CheckAllComparisons<float>();
  CheckAllComparisons<double>();
  CheckAllComparisons<int32_t>();
  CheckAllComparisons<int64_t>();
  CheckCompare<bool>("Equal", [](double a, double b) { return a == b; });
  CheckCompare<bool>("NotEqual", [](double a, double b) { return a != b; });
}

TEST(CwiseCompareOpsTest, StringEquality) {
  Tensor x = Tensor::FromVector<std::string>({"a", "bb", "", "c"}, {2, 2});
  Tensor y = Tensor::FromVector<std::string>({"a", ""});
  Tensor eq = test::RunOne("Equal", {x, y});
  ASSERT_EQ(eq.shape(), TensorShape({2, 2}));
  EXPECT_EQ(std::vector<bool>(eq.data<bool>(), eq.data<bool>() + 4),
            (std::vector<bool>{true, false, false, false}));
  Tensor ne = test::RunOne("NotEqual", {x, Tensor::Scalar<std::string>("c")});
  EXPECT_EQ(std::vector<bool>(ne.data<bool>(), ne.data<bool>() + 4),
            (std::vector<bool>{true, true, true, false}));
  // Ordering of strings is not defined for Less.
  test::ExpectError(test::RunOp("Less", {x, x}).status(), Code::kInvalidArgument,
                    "not in the allowed set");
}

TEST(CwiseCompareOpsTest, LogicalOpsMatchReference) {
  uint32_t seed = 50;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.x.DebugString() + " with " + c.y.DebugString());
    Tensor x = test::Random<bool>(c.x, seed++, -1, 1);
    Tensor y = test::Random<bool>(c.y, seed++, -1, 1);
    test::ExpectClose(test::RunOne("LogicalAnd", {x, y}), c.out,
                      test::RefBroadcast(x, y, c.out, [](double a, double b) { return a && b; }),
                      0, 0);
    test::ExpectClose(test::RunOne("LogicalOr", {x, y}), c.out,
                      test::RefBroadcast(x, y, c.out, [](double a, double b) { return a || b; }),
                      0, 0);
    test::ExpectClose(test::RunOne("LogicalNot", {x}), c.x,
                      test::RefUnary(x, [](double a) { return a == 0 ? 1.0 : 0.0; }), 0, 0);
  }
  test::ExpectError(test::RunOp("LogicalAnd", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(1)})
                        .status(),
                    Code::kInvalidArgument, "must be bool");
  test::ExpectError(test::RunOp("LogicalOr", {test::Random<bool>({2}, 1), test::Random<bool>({3}, 2)})
                        .status(),
                    Code::kInvalidArgument, "incompatible shapes for broadcasting: [2] and [3]");
}

template <typename T>
void CheckSelect(const TensorShape& cond_shape, const TensorShape& shape) {
  SCOPED_TRACE(DataTypeString(DataTypeToEnum<T>::value) + " cond " + cond_shape.DebugString() +
               " t " + shape.DebugString());
  Tensor c = test::Random<bool>(cond_shape, 3, -1, 1);
  Tensor t = test::Random<T>(shape, 4);
  Tensor e = test::Random<T>(shape, 5);
  Tensor out = test::RunOne("Select", {c, t, e});
  const std::vector<double> cd = test::ToDoubles(c), td = test::ToDoubles(t), ed = test::ToDoubles(e);
  std::vector<double> want(td.size());
  const int64_t rows = shape.dims() == 0 ? 1 : shape.dim_size(0);
  for (size_t i = 0; i < want.size(); ++i) {
    double pick;
    if (cond_shape == shape) {
      pick = cd[i];
    } else if (cond_shape.dims() == 0) {
      pick = cd[0];
    } else {
      pick = cd[i / (want.size() / rows)];
    }
    want[i] = pick != 0 ? td[i] : ed[i];
  }
  test::ExpectClose(out, shape, want, 0, 0);
}

TEST(CwiseCompareOpsTest, SelectMatchesReference) {
  for (auto [cs, s] : std::vector<std::pair<TensorShape, TensorShape>>{
           {{2, 3}, {2, 3}}, {{}, {}}, {{4}, {4, 3}}, {{3}, {3, 2, 2}}, {{}, {2, 3}},
           {{0}, {0, 4}}, {{2}, {2, 0}}, {{5}, {5}}}) {
    CheckSelect<float>(cs, s);
    CheckSelect<double>(cs, s);
    CheckSelect<int32_t>(cs, s);
    CheckSelect<int64_t>(cs, s);
  }
  // A scalar condition passes t or e on without a copy.
  Tensor t = test::Random<float>({3}, 1), e = test::Random<float>({3}, 2);
  EXPECT_TRUE(test::RunOne("Select", {Tensor::Scalar<bool>(false), t, e}).SharesBufferWith(e));
  Tensor s = test::RunOne("Select", {Tensor::FromVector<bool>({true, false}),
                                     Tensor::FromVector<std::string>({"a", "b"}),
                                     Tensor::FromVector<std::string>({"x", "y"})});
  EXPECT_EQ(s.data<std::string>()[0], "a");
  EXPECT_EQ(s.data<std::string>()[1], "y");
}

TEST(CwiseCompareOpsTest, SelectShapeMismatchIsAnError) {
  Tensor t = test::Random<float>({2, 3}, 1);
  auto out = test::RunOp("Select", {test::Random<bool>({2, 3}, 1), t, test::Random<float>({3, 2}, 2)});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "'t' and 'e' must have the same shape, got [2,3] and [3,2]");
  out = test::RunOp("Select", {test::Random<bool>({3}, 1), t, t});
  test::ExpectError(out.status(), Code::kInvalidArgument, "got condition [3] and t [2,3]");
  out = test::RunOp("Select", {test::Random<bool>({2, 1}, 1), t, t});
  test::ExpectError(out.status(), Code::kInvalidArgument, "got condition [2,1]");
  out = test::RunOp("Select", {test::Random<float>({2, 3}, 1), t, t});
  test::ExpectError(out.status(), Code::kInvalidArgument, "must be bool");
  test::ExpectError(test::InferShape("Select", {PartialTensorShape({2}), PartialTensorShape({2}),
                                                PartialTensorShape({3})})
                        .status(),
                    Code::kInvalidArgument, "shapes must be equal");
  auto shape = [](PartialTensorShape c, PartialTensorShape t) {
    return test::InferShape("Select", {c, t, t});
  };
  EXPECT_EQ(*shape({}, {2, 3}), PartialTensorShape({2, 3}));
  EXPECT_EQ(*shape({2}, {2, 3}), PartialTensorShape({2, 3}));
  EXPECT_EQ(*shape({-1}, {2, 3}), PartialTensorShape({2, 3}));
  EXPECT_EQ(*shape({2, 3}, {-1, 3}), PartialTensorShape({-1, 3}));
  EXPECT_EQ(*shape(PartialTensorShape::Unknown(), {4}), PartialTensorShape({4}));
  test::ExpectError(shape({3}, {2, 3}).status(), Code::kInvalidArgument,
                    "got condition [3] and t [2,3]");
  test::ExpectError(shape({2, 1}, {2, 3}).status(), Code::kInvalidArgument, "shapes must be equal");
  test::ExpectError(shape({2, 3, 1}, {2, 3}).status(), Code::kInvalidArgument, "got condition");
  test::ExpectError(shape({3}, {2}).status(), Code::kInvalidArgument, "shapes must be equal");
}

TEST(CwiseCompareOpsTest, ThreadedMatchesSingleThreadBitForBit) {
  Tensor x = test::Random<float>({500, 1000}, 1), y = test::Random<float>({1000}, 2);
  EXPECT_TRUE(test::RunOne("Less", {x, y}, {}, 1).BitwiseEqual(test::RunOne("Less", {x, y}, {}, 4)));
  Tensor c = test::Random<bool>({500}, 3, -1, 1);
  Tensor e = test::Random<float>({500, 1000}, 4);
  EXPECT_TRUE(test::RunOne("Select", {c, x, e}, {}, 1)
                  .BitwiseEqual(test::RunOne("Select", {c, x, e}, {}, 4)));
}

TEST(CwiseCompareOpsTest, BuilderAddsABoolNode) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_INT32);
  Output b = LogicalAnd(s, Less(s, x, 3), NotEqual(s, x, 0));
  Output sel = Select(s, b, x, Neg(s, x));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(b.type(), DT_BOOL);
  EXPECT_EQ(b.node->op(), "LogicalAnd");
  EXPECT_EQ(sel.type(), DT_INT32);
}

}  // namespace
}  // namespace tact
