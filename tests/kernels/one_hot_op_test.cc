// OneHot against a plain-loop reference for every axis, index type and a
// mix of in-range and out-of-range indices; shape and value errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

std::vector<double> Reference(const std::vector<int64_t>& idx, const TensorShape& shape,
                              int64_t depth, int axis, double on, double off) {
  int64_t prefix = 1, suffix = 1;
  for (int d = 0; d < axis; ++d) prefix *= shape.dim_size(d);
  for (int d = axis; d < shape.dims(); ++d) suffix *= shape.dim_size(d);
  std::vector<double> out;
  for (int64_t p = 0; p < prefix; ++p) {
    for (int64_t j = 0; j < depth; ++j) {
      for (int64_t s = 0; s < suffix; ++s) out.push_back(idx[p * suffix + s] == j ? on : off);
    }
  }
  return out;
}

template <typename TI>
Tensor Indices(const std::vector<int64_t>& v, const TensorShape& shape) {
  return Tensor::FromVector<TI>(std::vector<TI>(v.begin(), v.end()), shape);
}

TEST(OneHotOpTest, MatchesReference) {
  const std::vector<TensorShape> shapes = {{}, {6}, {2, 3}, {0, 4}, {2, 3, 2}};
  const int64_t depth = 4;
  uint32_t seed = 3;
  for (const TensorShape& shape : shapes) {
    // Indices in [-1, depth]: the ends are out of range and give all-off rows.
    Tensor raw = test::Random<int64_t>(shape, seed++, -1.4, depth + 0.4);
    std::vector<int64_t> idx(raw.data<int64_t>(), raw.data<int64_t>() + raw.NumElements());
    for (int axis = -1; axis <= shape.dims(); ++axis) {
      const int a = axis == -1 ? shape.dims() : axis;
      TensorShape want = shape;
      want.InsertDim(a, depth);
      const std::vector<double> ref = Reference(idx, shape, depth, a, 5.0, -1.0);
      AttrMap attrs = {{"axis", AttrValue::Int(axis)}};
      SCOPED_TRACE(shape.DebugString() + " axis " + std::to_string(axis));
      for (const Tensor& ind : {Indices<int64_t>(idx, shape), Indices<int32_t>(idx, shape)}) {
        auto out = test::RunOp("OneHot", {ind, Tensor::Scalar<int32_t>(depth),
                                          Tensor::Scalar<float>(5), Tensor::Scalar<float>(-1)},
                               attrs);
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        test::ExpectClose((*out)[0], want, ref, 0, 0);
      }
      auto d = test::RunOp("OneHot", {Indices<int64_t>(idx, shape), Tensor::Scalar<int32_t>(depth),
                                      Tensor::Scalar<double>(5), Tensor::Scalar<double>(-1)},
                           attrs);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      test::ExpectClose((*d)[0], want, ref, 0, 0);
    }
  }
}

TEST(OneHotOpTest, Uint8IndicesAndIntValues) {
  Tensor idx = Tensor::FromVector<uint8_t>({0, 2, 255});
  auto out = test::RunOp("OneHot", {idx, Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(1),
                                    Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {3, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0}, 0, 0);
}

TEST(OneHotOpTest, ZeroDepth) {
  auto out = test::RunOp("OneHot", {Tensor::FromVector<int64_t>({0, 1}), Tensor::Scalar<int32_t>(0),
                                    Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 0}));
}

TEST(OneHotOpTest, Errors) {
  Tensor idx = Tensor::FromVector<int64_t>({0, 1});
  auto run = [&](Tensor depth, Tensor on, Tensor off, int64_t axis) {
    return test::RunOp("OneHot", {idx, depth, on, off}, {{"axis", AttrValue::Int(axis)}}).status();
  };
  Tensor one = Tensor::Scalar<float>(1), zero = Tensor::Scalar<float>(0);
  test::ExpectError(run(Tensor::Scalar<int32_t>(-1), one, zero, -1), Code::kInvalidArgument,
                    "depth must be non-negative, got -1");
  test::ExpectError(run(Tensor::Scalar<int32_t>(3), one, zero, 2), Code::kInvalidArgument,
                    "axis must be -1 or in [0, 1] for indices of shape [2], got 2");
  test::ExpectError(run(Tensor::Scalar<int32_t>(3), one, zero, -2), Code::kInvalidArgument,
                    "axis must be -1");
  test::ExpectError(run(Tensor::FromVector<int32_t>({3}), one, zero, -1), Code::kInvalidArgument,
                    "depth must be a scalar, got shape [1]");
  test::ExpectError(run(Tensor::Scalar<int32_t>(3), Tensor::FromVector<float>({1}), zero, -1),
                    Code::kInvalidArgument, "on_value must be a scalar");
  test::ExpectError(run(Tensor::Scalar<int32_t>(3), one, Tensor::Scalar<double>(0), -1),
                    Code::kInvalidArgument, "");
  test::ExpectError(test::RunOp("OneHot", {Tensor::FromVector<float>({0}), Tensor::Scalar<int32_t>(3),
                                           one, zero}).status(),
                    Code::kInvalidArgument, "attr 'TI' = float");
}

}  // namespace
}  // namespace tact
