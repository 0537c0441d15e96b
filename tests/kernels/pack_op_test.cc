#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

// out[..., i (at axis), ...] = xs[i][...].
Tensor PackRef(const std::vector<Tensor>& xs, int axis) {
  std::vector<int64_t> dims = xs[0].shape().dim_sizes();
  dims.insert(dims.begin() + axis, static_cast<int64_t>(xs.size()));
  std::vector<const Tensor*> srcs;
  for (const Tensor& x : xs) srcs.push_back(&x);
  return test::MapReference(xs[0].dtype(), TensorShape(dims), srcs, [&](std::vector<int64_t> idx) {
    const int i = static_cast<int>(idx[axis]);
    idx.erase(idx.begin() + axis);
    return std::make_pair(i, test::Ravel(idx, xs[0].shape().dim_sizes()));
  });
}

TEST(PackOpTest, EveryAxisIncludingScalars) {
  const TensorShape shapes[] = {{}, {4}, {2, 3}, {2, 0, 3}};
  uint32_t seed = 1;
  for (const TensorShape& s : shapes) {
    for (int axis = -s.dims() - 1; axis <= s.dims(); ++axis) {
      for (DataType t : {DT_FLOAT, DT_STRING, DT_HALF}) {
        std::vector<Tensor> xs;
        for (int i = 0; i < 3; ++i) xs.push_back(test::RandomAny(t, s, seed++));
        test::ExpectTensorEq(test::RunOne("Pack", xs, {{"axis", AttrValue::Int(axis)}}),
                             PackRef(xs, axis < 0 ? axis + s.dims() + 1 : axis));
      }
    }
  }
  Tensor one = test::Random<float>({2}, 9);
  test::ExpectTensorEq(test::RunOne("Pack", {one}), PackRef({one}, 0));
}

TEST(PackOpTest, Errors) {
  Tensor a = test::Random<float>({2, 3}, 1), b = test::Random<float>({3, 2}, 2);
  test::ExpectError(test::RunOp("Pack", {a, b}).status(), Code::kInvalidArgument,
                    "values[1] has shape [3,2] but values[0] has shape [2,3]; all must match");
  test::ExpectError(test::RunOp("Pack", {a, a}, {{"axis", AttrValue::Int(3)}}).status(),
                    Code::kInvalidArgument, "axis 3 is out of range for a tensor of rank 3");
  test::ExpectError(test::RunOp("Pack", {a, a}, {{"axis", AttrValue::Int(-4)}}).status(),
                    Code::kInvalidArgument, "axis -4 is out of range");
}

TEST(UnpackOpTest, EveryAxisRoundTripsWithPack) {
  uint32_t seed = 1;
  for (DataType t : {DT_DOUBLE, DT_STRING, DT_BOOL}) {
    Tensor x = test::RandomAny(t, {2, 3, 4}, seed++);
    for (int axis = -3; axis < 3; ++axis) {
      const int a = axis < 0 ? axis + 3 : axis;
      const int64_t num = x.dim_size(a);
      auto out = test::RunOp("Unpack", {x}, {{"num", AttrValue::Int(num)},
                                             {"axis", AttrValue::Int(axis)}});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ASSERT_EQ(out->size(), static_cast<size_t>(num));
      for (int64_t i = 0; i < num; ++i) {
        std::vector<int64_t> dims = x.shape().dim_sizes();
        dims.erase(dims.begin() + a);
        Tensor want = test::MapReference(t, TensorShape(dims), {&x}, [&](std::vector<int64_t> idx) {
          idx.insert(idx.begin() + a, i);
          return std::make_pair(0, test::Ravel(idx, x.shape().dim_sizes()));
        });
        test::ExpectTensorEq((*out)[i], want);
      }
      test::ExpectTensorEq(test::RunOne("Pack", *out, {{"axis", AttrValue::Int(axis)}}), x);
    }
  }
}

TEST(UnpackOpTest, VectorToScalarsAndEmpty) {
  Tensor v = test::Random<int64_t>({3}, 1, -50, 50);
  auto out = test::RunOp("Unpack", {v}, {{"num", AttrValue::Int(3)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*out)[i].scalar<int64_t>(), v.data<int64_t>()[i]);
  Tensor empty = test::Random<float>({0, 2}, 2);
  auto none = test::RunOp("Unpack", {empty}, {{"num", AttrValue::Int(0)}});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
  auto pieces = test::RunOp("Unpack", {empty}, {{"num", AttrValue::Int(2)}, {"axis", AttrValue::Int(1)}});
  ASSERT_TRUE(pieces.ok()) << pieces.status().ToString();
  EXPECT_EQ((*pieces)[1].shape(), TensorShape({0}));
}

TEST(UnpackOpTest, Errors) {
  Tensor x = test::Random<float>({2, 4}, 1);
  test::ExpectError(test::RunOp("Unpack", {x}, {{"num", AttrValue::Int(3)},
                                                {"axis", AttrValue::Int(1)}}).status(),
                    Code::kInvalidArgument,
                    "num 3 does not match dimension 1 of size 4 (value shape [2,4])");
  test::ExpectError(test::RunOp("Unpack", {x}, {{"num", AttrValue::Int(2)},
                                                {"axis", AttrValue::Int(2)}}).status(),
                    Code::kInvalidArgument, "axis 2 is out of range for a tensor of rank 2");
  test::ExpectError(test::RunOp("Unpack", {test::Random<float>({}, 1)},
                                {{"num", AttrValue::Int(1)}}).status(),
                    Code::kInvalidArgument, "axis 0 is out of range for a tensor of rank 0");
}

}  // namespace
}  // namespace tact
