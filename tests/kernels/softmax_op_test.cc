// Softmax, LogSoftmax and SparseSoftmaxCrossEntropyWithLogits against plain
// loops in double.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

// Row-wise log-softmax of the last axis, in double.
std::vector<double> LogSoftmaxRef(const std::vector<double>& x, int64_t classes) {
  std::vector<double> out(x.size());
  for (size_t r = 0; r * classes < x.size(); ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < classes; ++j) mx = std::max(mx, x[r * classes + j]);
    for (int64_t j = 0; j < classes; ++j) sum += std::exp(x[r * classes + j] - mx);
    for (int64_t j = 0; j < classes; ++j) out[r * classes + j] = x[r * classes + j] - mx - std::log(sum);
  }
  return out;
}

template <typename T>
void CheckSoftmax(const TensorShape& shape, double scale, double tol) {
  SCOPED_TRACE(shape.DebugString());
  Tensor x = test::Random<T>(shape, 51, -2 * scale, 2 * scale);
  std::vector<double> log_sm = LogSoftmaxRef(test::ToDoubles(x), shape.dim_size(shape.dims() - 1));
  std::vector<double> sm(log_sm.size());
  for (size_t i = 0; i < sm.size(); ++i) sm[i] = std::exp(log_sm[i]);
  auto s = test::RunOp("Softmax", {x});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  test::ExpectClose((*s)[0], shape, sm, tol, tol);
  auto l = test::RunOp("LogSoftmax", {x});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  test::ExpectClose((*l)[0], shape, log_sm, tol, tol);
}

TEST(SoftmaxTest, MatchesLoops) {
  for (const TensorShape& s : std::vector<TensorShape>{{1}, {7}, {3, 10}, {2, 3, 5}, {0, 4}, {64, 1000}}) {
    CheckSoftmax<float>(s, 1, 1e-5);
    CheckSoftmax<double>(s, 1, 1e-12);
  }
}

TEST(SoftmaxTest, LargeLogitsStayFinite) {
  // exp(500) overflows float and exp(1000) overflows double without the shift.
  CheckSoftmax<float>({4, 6}, 250, 1e-4);
  CheckSoftmax<double>({4, 6}, 500, 1e-10);
}

TEST(SoftmaxTest, ScalarIsAnError) {
  test::ExpectError(test::RunOp("Softmax", {Tensor::Scalar<float>(1)}).status(),
                    Code::kInvalidArgument, "logits must have >= 1 dimension, got shape []");
}

template <typename T, typename L>
void CheckXent(int64_t batch, int64_t classes, double tol) {
  SCOPED_TRACE(testing::Message() << batch << "x" << classes);
  Tensor x = test::Random<T>({batch, classes}, 61, -5, 5);
  Tensor labels(DataTypeToEnum<L>::value, {batch});
  for (int64_t i = 0; i < batch; ++i) labels.data<L>()[i] = static_cast<L>((i * 7 + 3) % classes);
  std::vector<double> log_sm = LogSoftmaxRef(test::ToDoubles(x), classes);
  std::vector<double> loss(batch), backprop(batch * classes);
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t y = labels.data<L>()[i];
    loss[i] = -log_sm[i * classes + y];
    for (int64_t j = 0; j < classes; ++j) {
      backprop[i * classes + j] = std::exp(log_sm[i * classes + j]) - (j == y ? 1.0 : 0.0);
    }
  }
  auto out = test::RunOp("SparseSoftmaxCrossEntropyWithLogits", {x, labels});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {batch}, loss, tol, tol);
  test::ExpectClose((*out)[1], {batch, classes}, backprop, tol, tol);
}

TEST(SparseSoftmaxCrossEntropyWithLogitsTest, MatchesLoops) {
  CheckXent<float, int32_t>(1, 1, 1e-5);
  CheckXent<float, int64_t>(5, 10, 1e-5);
  CheckXent<double, int32_t>(100, 10, 1e-12);
  CheckXent<double, int64_t>(3, 1001, 1e-12);
  CheckXent<float, int32_t>(0, 10, 0);
}

TEST(SparseSoftmaxCrossEntropyWithLogitsTest, LabelOutOfRangeNamesIndexAndValue) {
  Tensor x = test::Random<float>({3, 4}, 1);
  auto high = test::RunOp("SparseSoftmaxCrossEntropyWithLogits",
                          {x, Tensor::FromVector<int32_t>({0, 4, 1})});
  test::ExpectError(high.status(), Code::kInvalidArgument, "labels[1] = 4 is not in [0, 4)");
  auto low = test::RunOp("SparseSoftmaxCrossEntropyWithLogits",
                         {x, Tensor::FromVector<int64_t>({0, 1, -1})});
  test::ExpectError(low.status(), Code::kInvalidArgument, "labels[2] = -1 is not in [0, 4)");
  auto shape = test::RunOp("SparseSoftmaxCrossEntropyWithLogits",
                           {x, Tensor::FromVector<int32_t>({0, 1})});
  test::ExpectError(shape.status(), Code::kInvalidArgument, "features [3,4] and labels [2]");
  auto rank = test::RunOp("SparseSoftmaxCrossEntropyWithLogits",
                          {test::Random<float>({3}, 1), Tensor::FromVector<int32_t>({0, 1, 2})});
  test::ExpectError(rank.status(), Code::kInvalidArgument, "[batch, classes], got shape [3]");
}

template <typename T>
void CheckDenseXent(int64_t batch, int64_t classes, double tol) {
  SCOPED_TRACE(testing::Message() << batch << "x" << classes);
  Tensor x = test::Random<T>({batch, classes}, 71, -5, 5);
  // Each row of labels a distribution: positive weights that sum to 1.
  Tensor labels = test::Random<T>({batch, classes}, 72, 0.1, 1);
  for (int64_t i = 0; i < batch; ++i) {
    T* row = labels.data<T>() + i * classes;
    T sum = 0;
    for (int64_t j = 0; j < classes; ++j) sum += row[j];
    for (int64_t j = 0; j < classes; ++j) row[j] /= sum;
  }
  const std::vector<double> log_sm = LogSoftmaxRef(test::ToDoubles(x), classes);
  const std::vector<double> l = test::ToDoubles(labels);
  std::vector<double> loss(batch, 0.0), backprop(batch * classes);
  for (int64_t k = 0; k < batch * classes; ++k) {
    loss[k / classes] -= l[k] * log_sm[k];
    backprop[k] = std::exp(log_sm[k]) - l[k];
  }
  auto out = test::RunOp("SoftmaxCrossEntropyWithLogits", {x, labels});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {batch}, loss, tol, tol);
  test::ExpectClose((*out)[1], {batch, classes}, backprop, tol, tol);
}

TEST(SoftmaxCrossEntropyWithLogitsTest, MatchesLoops) {
  CheckDenseXent<float>(1, 1, 1e-5);
  CheckDenseXent<float>(5, 10, 1e-5);
  CheckDenseXent<double>(100, 10, 1e-12);
  CheckDenseXent<double>(3, 1001, 1e-12);
  CheckDenseXent<float>(0, 10, 0);
}

TEST(SoftmaxCrossEntropyWithLogitsTest, OneHotLabelsGiveTheSparseResultBitForBit) {
  Tensor x = test::Random<float>({6, 9}, 3, -20, 20);
  Tensor index = Tensor::FromVector<int32_t>({0, 8, 3, 3, 5, 1});
  Tensor one_hot(DT_FLOAT, {6, 9});
  for (int64_t k = 0; k < 54; ++k) {
    one_hot.data<float>()[k] = k % 9 == index.data<int32_t>()[k / 9] ? 1.f : 0.f;
  }
  auto dense = test::RunOp("SoftmaxCrossEntropyWithLogits", {x, one_hot});
  auto sparse = test::RunOp("SparseSoftmaxCrossEntropyWithLogits", {x, index});
  ASSERT_TRUE(dense.ok() && sparse.ok());
  EXPECT_TRUE((*dense)[0].BitwiseEqual((*sparse)[0]));
  EXPECT_TRUE((*dense)[1].BitwiseEqual((*sparse)[1]));
}

TEST(SoftmaxCrossEntropyWithLogitsTest, ShapesThatDifferAreErrors) {
  Tensor x = test::Random<float>({3, 4}, 1);
  auto cols = test::RunOp("SoftmaxCrossEntropyWithLogits", {x, test::Random<float>({3, 5}, 2)});
  test::ExpectError(cols.status(), Code::kInvalidArgument,
                    "of one shape, got features [3,4] and labels [3,5]");
  auto rank = test::RunOp("SoftmaxCrossEntropyWithLogits",
                          {test::Random<float>({12}, 1), test::Random<float>({12}, 2)});
  test::ExpectError(rank.status(), Code::kInvalidArgument, "matrices [batch, classes]");
  auto inferred = test::InferShape("SoftmaxCrossEntropyWithLogits",
                                   {PartialTensorShape({-1, 4}), PartialTensorShape({8, -1})}, {}, 2);
  ASSERT_TRUE(inferred.ok()) << inferred.status().ToString();
  EXPECT_EQ(*inferred, PartialTensorShape({8}));
  auto conflict = test::InferShape("SoftmaxCrossEntropyWithLogits",
                                   {PartialTensorShape({-1, 4}), PartialTensorShape({8, 5})}, {}, 2);
  test::ExpectError(conflict.status(), Code::kInvalidArgument, "must have one shape");
}

TEST(L2LossTest, IsHalfTheSumOfSquares) {
  for (const TensorShape& shape : {TensorShape({}), TensorShape({0}), TensorShape({7, 3}),
                                   TensorShape({3, 5000}), TensorShape({100, 1000})}) {
    SCOPED_TRACE(shape.DebugString());
    Tensor x = test::Random<double>(shape, 5);
    double want = 0;
    for (double v : test::ToDoubles(x)) want += v * v / 2;
    auto out = test::RunOp("L2Loss", {x});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    test::ExpectClose((*out)[0], {}, {want}, 1e-13, 1e-13);
  }
  Tensor h = Tensor::FromVector<half>({half(3.f), half(-4.f)});
  auto out = test::RunOp("L2Loss", {h});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(static_cast<float>((*out)[0].scalar<half>()), 12.5f);
}

TEST(L2LossTest, BitIdenticalAcrossThreadCounts) {
  Tensor x = test::Random<float>({1001, 399}, 8);
  auto one = test::RunOp("L2Loss", {x}, {}, 1);
  auto four = test::RunOp("L2Loss", {x}, {}, 4);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_TRUE((*one)[0].BitwiseEqual((*four)[0]));
}

}  // namespace
}  // namespace tact
