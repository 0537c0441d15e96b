// ReverseV2 and BroadcastTo against index arithmetic, on floats and
// strings, with their errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

TEST(ReverseV2Test, ReversesTheNamedAxes) {
  Tensor x = test::Random<double>({2, 3, 4}, 3);
  const std::vector<std::vector<int32_t>> cases = {{}, {0}, {-1}, {0, 2}, {1, 0, 2}};
  for (const std::vector<int32_t>& axes : cases) {
    SCOPED_TRACE(Tensor::FromVector<int32_t>(axes).DebugString());
    Tensor out = test::RunOne("ReverseV2", {x, Tensor::FromVector<int32_t>(axes)});
    std::vector<bool> rev(3, false);
    for (int32_t a : axes) rev[a < 0 ? a + 3 : a] = true;
    std::vector<double> want(24);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int k = 0; k < 4; ++k) {
          const int si = rev[0] ? 1 - i : i, sj = rev[1] ? 2 - j : j, sk = rev[2] ? 3 - k : k;
          want[(i * 3 + j) * 4 + k] = x.data<double>()[(si * 3 + sj) * 4 + sk];
        }
      }
    }
    test::ExpectClose(out, {2, 3, 4}, want, 0, 0);
  }
  Tensor words = Tensor::FromVector<std::string>({"a", "bb", "ccc"});
  Tensor r = test::RunOne("ReverseV2", {words, Tensor::FromVector<int64_t>({0})});
  EXPECT_EQ(r.data<std::string>()[0], "ccc");
  auto twice = test::RunOp("ReverseV2", {x, Tensor::FromVector<int32_t>({1, -2})});
  test::ExpectError(twice.status(), Code::kInvalidArgument, "axis -2 is given more than once");
  auto far = test::RunOp("ReverseV2", {x, Tensor::FromVector<int32_t>({3})});
  test::ExpectError(far.status(), Code::kInvalidArgument, "out of range");
}

TEST(BroadcastToTest, RepeatsAsNumPyBroadcasts) {
  Tensor x = Tensor::FromVector<float>({1, 2, 3}, {3, 1});
  Tensor out = test::RunOne("BroadcastTo", {x, Tensor::FromVector<int32_t>({2, 3, 4})});
  ASSERT_EQ(out.shape(), TensorShape({2, 3, 4}));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(out.data<float>()[i], static_cast<float>((i / 4) % 3 + 1)) << i;
  Tensor same = test::RunOne("BroadcastTo", {x, Tensor::FromVector<int64_t>({3, 1})});
  EXPECT_TRUE(same.BitwiseEqual(x));
  Tensor empty = test::RunOne("BroadcastTo", {x, Tensor::FromVector<int32_t>({0, 3, 5})});
  EXPECT_EQ(empty.shape(), TensorShape({0, 3, 5}));
  auto bad = test::RunOp("BroadcastTo", {x, Tensor::FromVector<int32_t>({2, 4})});
  test::ExpectError(bad.status(), Code::kInvalidArgument, "input of shape [3,1] cannot broadcast to [2,4]");
  auto negative = test::RunOp("BroadcastTo", {x, Tensor::FromVector<int32_t>({3, -1})});
  test::ExpectError(negative.status(), Code::kInvalidArgument, "dimension 1 of shape is negative (-1)");
  auto inferred = test::InferShape("BroadcastTo", {PartialTensorShape({3, 1}), PartialTensorShape({3})});
  ASSERT_TRUE(inferred.ok());
  EXPECT_EQ(*inferred, PartialTensorShape({-1, -1, -1}));
}

}  // namespace
}  // namespace tact
