// Sum, Mean, Max, Min and Prod against a plain-loop reference in double,
// over shapes that take every path of the kernel (inner, middle and outer
// reductions, one and several chunks, several passes), plus empty and
// rank-0 inputs, errors, and bit-identical results across thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

// The reduced shape and values, one output element at a time in double.
struct Reference {
  TensorShape shape;
  std::vector<double> values;
};

template <typename T>
Reference Reduce(const std::string& op, const Tensor& x, const std::vector<int64_t>& axes,
                 bool keep_dims) {
  const bool integral = std::is_integral_v<T>;
  const int rank = x.dims();
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
  Reference ref;
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) ref.shape.AddDim(x.dim_size(d));
    if (reduced[d] && keep_dims) ref.shape.AddDim(1);
    if (reduced[d]) count *= x.dim_size(d);
  }
  double init = 0;
  if (op == "Prod") init = 1;
  if (op == "Max") init = integral ? double(std::numeric_limits<T>::lowest()) : -INFINITY;
  if (op == "Min") init = integral ? double(std::numeric_limits<T>::max()) : INFINITY;
  ref.values.assign(ref.shape.num_elements(), init);
  const std::vector<double> in = test::ToDoubles(x);
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    // Output index of input element i: its kept coordinates, row-major.
    int64_t rest = i, out = 0, stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t coord = rest % x.dim_size(d);
      rest /= x.dim_size(d);
      if (!reduced[d]) {
        out += coord * stride;
        stride *= x.dim_size(d);
      }
    }
    double& v = ref.values[out];
    if (op == "Sum" || op == "Mean") v += in[i];
    if (op == "Prod") v *= in[i];
    if (op == "Max") v = std::max(v, in[i]);
    if (op == "Min") v = std::min(v, in[i]);
  }
  if (op == "Mean") {
    for (double& v : ref.values) {
      v = count == 0 ? (integral ? 0.0 : NAN) : (integral ? std::trunc(v / count) : v / count);
    }
  }
  return ref;
}

struct Case {
  TensorShape shape;
  std::vector<int64_t> axes;
};

std::vector<Case> Cases() {
  return {
      {{}, {}},                 // rank 0, no axes
      {{5}, {0}},
      {{5}, {}},                // empty axis list: identity
      {{5}, {-1}},
      {{3, 4}, {1}},            // inner
      {{3, 4}, {0}},            // outer (bias gradient)
      {{3, 4}, {0, 1}},
      {{3, 4}, {1, 0}},
      {{2, 3, 4}, {1}},         // middle
      {{2, 3, 4}, {0, 2}},      // two passes
      {{2, 3, 4}, {-3, -1}},
      {{2, 1, 3}, {1}},         // only a size-1 axis
      {{2, 1, 3}, {0, 1}},
      {{4, 0, 3}, {1}},         // reducing an empty axis: identity
      {{0, 3}, {1}},            // empty output
      {{0, 3}, {0}},
      {{0}, {0}},
      {{2, 3, 4, 5}, {0, 2}},
      {{2, 3, 4, 5}, {1, 3}},
      {{2, 3, 4, 5}, {0, 1, 2, 3}},
      {{3, 5000}, {1}},         // several inner chunks
      {{1, 9000}, {-1}},
      {{200, 7}, {0}},          // several outer chunks
      {{3, 130, 5}, {1}},
      {{130, 1100}, {0}},       // several column blocks and chunks
  };
}

Tensor Axes(const std::vector<int64_t>& axes, DataType tidx) {
  if (tidx == DT_INT64) return Tensor::FromVector<int64_t>(axes);
  std::vector<int32_t> v(axes.begin(), axes.end());
  return Tensor::FromVector<int32_t>(v);
}

template <typename T>
void CheckOp(const std::string& op) {
  const bool integral = std::is_integral_v<T>;
  uint32_t seed = 1;
  for (const Case& c : Cases()) {
    for (bool keep_dims : {false, true}) {
      // Products stay finite (and integer ones exact) on values near 1.
      const double lo = op == "Prod" ? (integral ? -1.4 : 0.8) : -2.0;
      const double hi = op == "Prod" ? (integral ? 1.4 : 1.2) : 2.0;
      Tensor x = test::Random<T>(c.shape, seed++, lo, hi);
      const DataType tidx = seed % 2 ? DT_INT32 : DT_INT64;
      auto out = test::RunOp(op, {x, Axes(c.axes, tidx)}, {{"keep_dims", AttrValue::Bool(keep_dims)}});
      SCOPED_TRACE(op + " " + DataTypeString(x.dtype()) + " " + c.shape.DebugString() +
                   " axes " + Axes(c.axes, DT_INT64).DebugString() +
                   (keep_dims ? " keep_dims" : ""));
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      Reference ref = Reduce<T>(op, x, c.axes, keep_dims);
      if (integral) {
        test::ExpectClose((*out)[0], ref.shape, ref.values, 0, 0);
      } else {
        // Float rounding grows with the number of terms.
        const double n = static_cast<double>(x.NumElements()) / std::max<int64_t>(1, ref.values.size());
        const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-14;
        const double rtol = 10 * eps * (op == "Prod" ? n + 1 : 1);
        test::ExpectClose((*out)[0], ref.shape, ref.values, rtol, 10 * eps * (n + 1));
      }
    }
  }
}

TEST(ReductionOpsTest, SumMatchesReference) {
  CheckOp<float>("Sum");
  CheckOp<double>("Sum");
  CheckOp<int32_t>("Sum");
  CheckOp<int64_t>("Sum");
}

TEST(ReductionOpsTest, MeanMatchesReference) {
  CheckOp<float>("Mean");
  CheckOp<double>("Mean");
  CheckOp<int32_t>("Mean");
  CheckOp<int64_t>("Mean");
}

TEST(ReductionOpsTest, MaxMatchesReference) {
  CheckOp<float>("Max");
  CheckOp<double>("Max");
  CheckOp<int32_t>("Max");
  CheckOp<int64_t>("Max");
}

TEST(ReductionOpsTest, MinMatchesReference) {
  CheckOp<float>("Min");
  CheckOp<double>("Min");
  CheckOp<int32_t>("Min");
  CheckOp<int64_t>("Min");
}

TEST(ReductionOpsTest, ProdMatchesReference) {
  CheckOp<float>("Prod");
  CheckOp<double>("Prod");
  CheckOp<int32_t>("Prod");
  CheckOp<int64_t>("Prod");
}

TEST(ReductionOpsTest, EmptyReductionGivesIdentity) {
  Tensor x(DT_FLOAT, {2, 0});
  Tensor axis = Tensor::Scalar<int32_t>(1);
  auto expect = [&](const std::string& op, double v) {
    auto out = test::RunOp(op, {x, axis});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    test::ExpectClose((*out)[0], {2}, {v, v});
  };
  expect("Sum", 0);
  expect("Prod", 1);
  expect("Max", -INFINITY);
  expect("Min", INFINITY);
  expect("Mean", NAN);
  Tensor xi(DT_INT32, {0});
  Tensor axis0 = Tensor::Scalar<int32_t>(0);
  auto max = test::RunOp("Max", {xi, axis0});
  ASSERT_TRUE(max.ok());
  EXPECT_EQ((*max)[0].scalar<int32_t>(), std::numeric_limits<int32_t>::lowest());
  auto mean = test::RunOp("Mean", {xi, axis0});
  ASSERT_TRUE(mean.ok());
  EXPECT_EQ((*mean)[0].scalar<int32_t>(), 0);
}

TEST(ReductionOpsTest, EmptyAxisListSharesTheInput) {
  Tensor x = test::Random<float>({3, 2}, 7);
  auto out = test::RunOp("Sum", {x, Tensor(DT_INT32, {0})});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE((*out)[0].BitwiseEqual(x));
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
}

TEST(ReductionOpsTest, MaxAndMinPropagateNaN) {
  Tensor x = Tensor::FromVector<float>({1, NAN, 3, 2}, TensorShape({2, 2}));
  for (const char* op : {"Max", "Min"}) {
    auto out = test::RunOp(op, {x, Tensor::Scalar<int32_t>(1)});
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(std::isnan((*out)[0].data<float>()[0])) << op;
    EXPECT_FALSE(std::isnan((*out)[0].data<float>()[1])) << op;
  }
}

TEST(ReductionOpsTest, IntegerSumWrapsWithoutCrashing) {
  Tensor x = Tensor::FromVector<int32_t>({std::numeric_limits<int32_t>::max(), 1});
  auto out = test::RunOp("Sum", {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].scalar<int32_t>(), std::numeric_limits<int32_t>::min());
}

TEST(ReductionOpsTest, BadAxesAreErrors) {
  Tensor x = test::Random<float>({2, 3}, 3);
  test::ExpectError(test::RunOp("Sum", {x, Tensor::Scalar<int32_t>(2)}).status(),
                    Code::kInvalidArgument, "reduction axis 2 is out of range for input of shape [2,3]");
  test::ExpectError(test::RunOp("Max", {x, Tensor::Scalar<int64_t>(-3)}).status(),
                    Code::kInvalidArgument, "reduction axis -3 is out of range");
  test::ExpectError(test::RunOp("Sum", {x, Tensor::FromVector<int32_t>({1, -1})}).status(),
                    Code::kInvalidArgument, "reduction axis -1 is given twice");
  test::ExpectError(test::RunOp("Sum", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}).status(),
                    Code::kInvalidArgument, "out of range for input of shape []");
  test::ExpectError(test::RunOp("Mean", {x, Tensor(DT_INT32, {1, 1})}).status(),
                    Code::kInvalidArgument, "reduction_indices must be a scalar or vector");
  test::ExpectError(test::RunOp("Sum", {x, Tensor::Scalar<float>(0)}).status(),
                    Code::kInvalidArgument, "attr 'Tidx' = float is not in the allowed set");
  test::ExpectError(test::RunOp("Sum", {Tensor(DT_BOOL, {2}), Tensor::Scalar<int32_t>(0)}).status(),
                    Code::kInvalidArgument, "attr 'T' = bool");
}

TEST(ReductionOpsTest, FloatSumIsAccurate) {
  // A running float sum of 10^7 copies of 0.1 is off by about 9%.
  const int64_t n = 10000000;
  Tensor x(DT_FLOAT, {n});
  std::fill(x.data<float>(), x.data<float>() + n, 0.1f);
  auto out = test::RunOp("Sum", {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok());
  EXPECT_NEAR((*out)[0].scalar<float>(), 0.1f * n, 1e-5 * 0.1 * n);
}

// Training must be bit-reproducible across thread counts.
TEST(ReductionOpsTest, BitIdenticalAcrossThreadCounts) {
  struct Big {
    TensorShape shape;
    std::vector<int64_t> axes;
  };
  const std::vector<Big> bigs = {
      {{1 << 22}, {0}}, {{2048, 1024}, {0}}, {{1024, 2048}, {1}},
      {{3, 1 << 20}, {1}}, {{64, 512, 32}, {0, 2}}, {{1 << 20, 3}, {0}}};
  for (const Big& b : bigs) {
    Tensor x = test::Random<float>(b.shape, 11);
    for (const char* op : {"Sum", "Mean", "Max", "Prod"}) {
      std::vector<Tensor> results;
      for (int threads : {1, 2, 4}) {
        auto out = test::RunOp(op, {x, Axes(b.axes, DT_INT32)}, {}, threads);
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        results.push_back((*out)[0]);
      }
      EXPECT_TRUE(results[0].BitwiseEqual(results[1])) << op << " " << b.shape.DebugString();
      EXPECT_TRUE(results[0].BitwiseEqual(results[2])) << op << " " << b.shape.DebugString();
    }
  }
}

TEST(ReductionOpsTest, AllAndAnyMatchReference) {
  uint32_t seed = 40;
  for (const Case& c : Cases()) {
    for (bool keep_dims : {false, true}) {
      // Mostly true (or mostly false) so that both answers occur.
      for (double p_true : {0.97, 0.03}) {
        Tensor x(DT_BOOL, c.shape);
        Tensor u = test::Random<double>(c.shape, seed++, 0, 1);
        for (int64_t i = 0; i < x.NumElements(); ++i) x.data<bool>()[i] = u.data<double>()[i] < p_true;
        Tensor as_double = test::Random<double>(c.shape, 0);
        for (int64_t i = 0; i < x.NumElements(); ++i) as_double.data<double>()[i] = x.data<bool>()[i];
        for (const char* op : {"All", "Any"}) {
          SCOPED_TRACE(std::string(op) + " " + c.shape.DebugString() + " axes " +
                       Axes(c.axes, DT_INT64).DebugString() + (keep_dims ? " keep_dims" : ""));
          auto out = test::RunOp(op, {x, Axes(c.axes, seed % 2 ? DT_INT32 : DT_INT64)},
                                 {{"keep_dims", AttrValue::Bool(keep_dims)}});
          ASSERT_TRUE(out.ok()) << out.status().ToString();
          ASSERT_EQ((*out)[0].dtype(), DT_BOOL);
          // All is Min and Any is Max of the values as 0 and 1.
          Reference ref = Reduce<double>(std::string(op) == "All" ? "Min" : "Max", as_double, c.axes,
                                         keep_dims);
          const bool empty_identity = std::string(op) == "All";
          ASSERT_EQ((*out)[0].shape(), ref.shape);
          for (int64_t i = 0; i < ref.shape.num_elements(); ++i) {
            const double v = ref.values[i];
            const bool want = std::isinf(v) ? empty_identity : v != 0;
            EXPECT_EQ((*out)[0].data<bool>()[i], want) << "element " << i;
          }
        }
      }
    }
  }
  auto bad = test::RunOp("All", {Tensor::FromVector<float>({1, 0}), Tensor::Scalar<int32_t>(0)});
  test::ExpectError(bad.status(), Code::kInvalidArgument, "float");
}

}  // namespace
}  // namespace tact
