// Unique against a plain loop: first-appearance order, idx of both widths,
// several dtypes (strings and 16-bit floats included), 0.0 and -0.0 as one
// element and each NaN as its own, as TensorFlow's; a non-vector refused.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "graph/ops/array_ops.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

std::vector<int64_t> Ints(const Tensor& t) {
  std::vector<int64_t> v;
  for (double d : test::ToDoubles(t)) v.push_back(static_cast<int64_t>(d));
  return v;
}

TEST(UniqueTest, FirstAppearanceOrderAndPositions) {
  for (DataType out_idx : {DT_INT32, DT_INT64}) {
    const std::vector<int64_t> x = {7, 3, 7, 7, 0, -2, 3, 9, 0};
    auto out = test::RunOp("Unique", {Tensor::FromVector<int64_t>(x)},
                           {{"out_idx", AttrValue::Type(out_idx)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[1].dtype(), out_idx);
    EXPECT_EQ(Ints((*out)[0]), (std::vector<int64_t>{7, 3, 0, -2, 9}));
    EXPECT_EQ(Ints((*out)[1]), (std::vector<int64_t>{0, 1, 0, 0, 2, 3, 1, 4, 2}));
  }
}

TEST(UniqueTest, EveryElementIsItsEntryInY) {
  // A long input with many repeats, against the definition x[i] == y[idx[i]].
  std::vector<int32_t> x(5000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>((i * 7919) % 613);
  auto out = test::RunOp("Unique", {Tensor::FromVector<int32_t>(x)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const int32_t* y = (*out)[0].data<int32_t>();
  const int32_t* idx = (*out)[1].data<int32_t>();
  ASSERT_EQ((*out)[0].NumElements(), 613);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[idx[i]], x[i]) << "position " << i;
}

TEST(UniqueTest, FloatsCompareByValue) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = test::RunOp("Unique", {Tensor::FromVector<float>({0.0f, -0.0f, nan, 1.5f, nan, 1.5f})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::vector<double> y = test::ToDoubles((*out)[0]);
  ASSERT_EQ(y.size(), 4u);  // 0, NaN, 1.5, NaN
  EXPECT_EQ(y[0], 0.0);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 1.5);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(Ints((*out)[1]), (std::vector<int64_t>{0, 0, 1, 2, 3, 2}));
}

TEST(UniqueTest, HalfAndStrings) {
  auto h = test::RunOp("Unique", {Tensor::FromVector<half>({half(1.0f), half(2.0f), half(1.0f)})});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(test::ToDoubles((*h)[0]), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(Ints((*h)[1]), (std::vector<int64_t>{0, 1, 0}));

  auto s = test::RunOp("Unique", {Tensor::FromVector<std::string>({"b", "a", "b", ""})});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ((*s)[0].NumElements(), 3);
  EXPECT_EQ((*s)[0].data<std::string>()[0], "b");
  EXPECT_EQ((*s)[0].data<std::string>()[1], "a");
  EXPECT_EQ((*s)[0].data<std::string>()[2], "");
  EXPECT_EQ(Ints((*s)[1]), (std::vector<int64_t>{0, 1, 0, 2}));
}

TEST(UniqueTest, EmptyAndNonVectorInputs) {
  auto empty = test::RunOp("Unique", {Tensor::FromVector<int32_t>({})});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].NumElements(), 0);
  EXPECT_EQ((*empty)[1].NumElements(), 0);

  auto matrix = test::RunOp("Unique", {Tensor::FromVector<int32_t>({1, 2, 3, 4}, {2, 2})});
  test::ExpectError(matrix.status(), Code::kInvalidArgument, "x must be a vector, got shape [2,2]");
}

}  // namespace
}  // namespace tact
