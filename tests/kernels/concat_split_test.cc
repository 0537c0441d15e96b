#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

// out[idx] comes from the input whose range along `axis` holds idx[axis].
Tensor ConcatRef(const std::vector<Tensor>& xs, int axis) {
  std::vector<int64_t> dims = xs[0].shape().dim_sizes();
  dims[axis] = 0;
  std::vector<const Tensor*> srcs;
  for (const Tensor& x : xs) {
    dims[axis] += x.dim_size(axis);
    srcs.push_back(&x);
  }
  return test::MapReference(xs[0].dtype(), TensorShape(dims), srcs,
                            [&](std::vector<int64_t> idx) {
                              int i = 0;
                              while (idx[axis] >= xs[i].dim_size(axis)) {
                                idx[axis] -= xs[i].dim_size(axis);
                                ++i;
                              }
                              return std::make_pair(i, test::Ravel(idx, xs[i].shape().dim_sizes()));
                            });
}

TEST(ConcatV2OpTest, AlongEveryAxis) {
  uint32_t seed = 1;
  const std::vector<int64_t> base = {3, 4, 5};
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    for (DataType t : {DT_FLOAT, DT_INT64, DT_STRING, DT_BOOL}) {
      std::vector<Tensor> xs;
      for (int64_t extent : {2, 0, 1, 3}) {
        std::vector<int64_t> dims = base;
        dims[a] = extent;
        xs.push_back(test::RandomAny(t, TensorShape(dims), seed++));
      }
      std::vector<Tensor> inputs = xs;
      inputs.push_back(Ints({axis}, axis % 2 ? DT_INT64 : DT_INT32, {}));
      test::ExpectTensorEq(test::RunOne("ConcatV2", inputs), ConcatRef(xs, a));
    }
  }
}

TEST(ConcatV2OpTest, LargeRunsInParallelAndVectors) {
  std::vector<Tensor> xs = {test::Random<float>({300, 200}, 1), test::Random<float>({300, 100}, 2)};
  test::ExpectTensorEq(test::RunOne("ConcatV2", {xs[0], xs[1], Ints({1}, DT_INT32, {})}),
                       ConcatRef(xs, 1));
  std::vector<Tensor> vs = {test::Random<double>({3}, 3), test::Random<double>({0}, 4),
                            test::Random<double>({2}, 5)};
  test::ExpectTensorEq(test::RunOne("ConcatV2", {vs[0], vs[1], vs[2], Ints({0}, DT_INT32, {})}),
                       ConcatRef(vs, 0));
}

TEST(ConcatV2OpTest, Errors) {
  Tensor a = test::Random<float>({2, 3}, 1), b = test::Random<float>({2, 4}, 2);
  test::ExpectError(test::RunOp("ConcatV2", {a, b, Ints({0}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument,
                    "values[1] has shape [2,4] but values[0] has shape [2,3]: all dimensions but "
                    "axis 0 must match");
  test::ExpectError(test::RunOp("ConcatV2", {a, test::Random<float>({2, 3, 1}, 3),
                                             Ints({1}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "values[1] has shape [2,3,1]");
  test::ExpectError(test::RunOp("ConcatV2", {a, a, Ints({2}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "axis 2 is out of range for a tensor of rank 2");
  test::ExpectError(test::RunOp("ConcatV2", {a, a, Ints({-3}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "axis -3 is out of range");
  Tensor s = test::Random<float>({}, 4);
  test::ExpectError(test::RunOp("ConcatV2", {s, s, Ints({0}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "cannot concatenate scalars");
  test::ExpectError(test::RunOp("ConcatV2", {a, a, Ints({0, 1})}).status(),
                    Code::kInvalidArgument, "axis must be a scalar");
  test::ExpectError(test::RunOp("ConcatV2", {a, test::Random<double>({2, 3}, 5),
                                             Ints({0}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "input 1 must be float, given double");
}

std::vector<Tensor> RunSplit(int64_t axis, const Tensor& x, int num_split) {
  auto out = test::RunOp("Split", {Ints({axis}, DT_INT32, {}), x},
                         {{"num_split", AttrValue::Int(num_split)}});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<Tensor>();
}

TEST(SplitOpTest, PiecesAlongEveryAxis) {
  uint32_t seed = 1;
  for (DataType t : {DT_FLOAT, DT_INT32, DT_STRING, DT_COMPLEX128}) {
    Tensor x = test::RandomAny(t, {4, 6, 2}, seed++);
    for (int64_t axis = -3; axis < 3; ++axis) {
      const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
      const int n = static_cast<int>(x.dim_size(a));
      std::vector<Tensor> pieces = RunSplit(axis, x, n / 2);
      ASSERT_EQ(pieces.size(), static_cast<size_t>(n / 2));
      for (size_t i = 0; i < pieces.size(); ++i) {
        std::vector<int64_t> dims = x.shape().dim_sizes();
        dims[a] = 2;
        Tensor want = test::MapReference(t, TensorShape(dims), {&x},
                                         [&](std::vector<int64_t> idx) {
                                           idx[a] += 2 * static_cast<int64_t>(i);
                                           return std::make_pair(
                                               0, test::Ravel(idx, x.shape().dim_sizes()));
                                         });
        test::ExpectTensorEq(pieces[i], want);
      }
    }
  }
}

TEST(SplitOpTest, OneWaySharesAndEmpty) {
  Tensor x = test::Random<float>({3, 2}, 1);
  std::vector<Tensor> one = RunSplit(1, x, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].SharesBufferWith(x));
  Tensor empty = test::Random<float>({0, 4}, 2);
  std::vector<Tensor> pieces = RunSplit(1, empty, 2);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[1].shape(), TensorShape({0, 2}));
}

TEST(SplitOpTest, Errors) {
  Tensor x = test::Random<float>({2, 4}, 1);
  auto run = [&](int64_t axis, int n, const Tensor& v) {
    return test::RunOp("Split", {Ints({axis}, DT_INT32, {}), v},
                       {{"num_split", AttrValue::Int(n)}}).status();
  };
  test::ExpectError(run(1, 3, x), Code::kInvalidArgument,
                    "num_split 3 does not evenly divide dimension 1 of size 4 (value shape [2,4])");
  test::ExpectError(run(2, 2, x), Code::kInvalidArgument,
                    "split_dim 2 is out of range for a tensor of rank 2");
  test::ExpectError(run(0, 1, test::Random<float>({}, 1)), Code::kInvalidArgument,
                    "split_dim 0 is out of range for a tensor of rank 0");
}

}  // namespace
}  // namespace tact
