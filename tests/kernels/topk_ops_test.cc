// TopKV2 against a full sort of each row (ties by lower index, NaN on
// top), every k from 0 to the row's length; InTopKV2 with ties at the k-th
// place, targets outside the row and non-finite predictions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

TEST(TopKTest, MatchesAStableSortOfEachRow) {
  // Whole numbers in a small range, so that rows hold ties.
  Tensor x = test::Random<float>({3, 2, 9}, 7, -4, 4);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::round(x.data<float>()[i]);
  for (int32_t k = 0; k <= 9; ++k) {
    SCOPED_TRACE("k = " + std::to_string(k));
    auto out = test::RunOp("TopKV2", {x, Tensor::Scalar<int32_t>(k)});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[0].shape(), TensorShape({3, 2, k}));
    for (int64_t r = 0; r < 6; ++r) {
      const float* row = x.data<float>() + r * 9;
      std::vector<int32_t> order(9);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [row](int32_t a, int32_t b) { return row[a] > row[b]; });
      for (int32_t j = 0; j < k; ++j) {
        EXPECT_EQ((*out)[1].data<int32_t>()[r * k + j], order[j]) << "row " << r << " place " << j;
        EXPECT_EQ((*out)[0].data<float>()[r * k + j], row[order[j]]);
      }
    }
  }
}

TEST(TopKTest, NanComesFirstAndBadKIsAnError) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = test::RunOp("TopKV2", {Tensor::FromVector<float>({1, nan, 3}), Tensor::Scalar<int32_t>(2)});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 1);
  EXPECT_EQ((*out)[1].data<int32_t>()[1], 2);
  auto big = test::RunOp("TopKV2", {Tensor::FromVector<float>({1, 2}), Tensor::Scalar<int32_t>(3)});
  test::ExpectError(big.status(), Code::kInvalidArgument, "k = 3 is not in [0, 2]");
  auto scalar = test::RunOp("TopKV2", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(1)});
  test::ExpectError(scalar.status(), Code::kInvalidArgument, "at least one dimension");
  auto shape = test::InferShape("TopKV2", {PartialTensorShape({-1, 5}), PartialTensorShape({})}, {}, 2);
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, PartialTensorShape({-1, -1}));
}

TEST(InTopKTest, TiesAtTheKthPlaceCountAsIn) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor p = Tensor::FromVector<float>({0.1f, 0.5f, 0.5f, 0.2f,    // target 2 ties with 1
                                        0.9f, 0.1f, 0.3f, 0.4f,    // target 1 is last
                                        0.1f, 0.2f, inf, 0.3f,     // a non-finite prediction
                                        0.1f, 0.2f, 0.3f, 0.4f},   // target out of range
                                       {4, 4});
  for (DataType t : {DT_INT32, DT_INT64}) {
    Tensor targets = t == DT_INT32 ? Tensor::FromVector<int32_t>({2, 1, 3, 4})
                                   : Tensor(Tensor::FromVector<int64_t>({2, 1, 3, 4}));
    for (int k : {1, 3, 4}) {
      SCOPED_TRACE("k = " + std::to_string(k));
      Tensor kt = t == DT_INT32 ? Tensor::Scalar<int32_t>(k) : Tensor::Scalar<int64_t>(k);
      Tensor out = test::RunOne("InTopKV2", {p, targets, kt});
      ASSERT_EQ(out.dtype(), DT_BOOL);
      EXPECT_EQ(out.data<bool>()[0], true);    // 0.5 has no larger value
      EXPECT_EQ(out.data<bool>()[1], k >= 4);  // three larger values
      EXPECT_FALSE(out.data<bool>()[2]);
      EXPECT_FALSE(out.data<bool>()[3]);
    }
  }
}

}  // namespace
}  // namespace tact
