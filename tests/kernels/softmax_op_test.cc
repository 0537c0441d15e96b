// Softmax, LogSoftmax and SparseSoftmaxCrossEntropyWithLogits against plain
// loops in double.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

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

}  // namespace
}  // namespace tact
