// Fill, ZerosLike and OnesLike: values, shapes (rank 0 and empty
// included), dtypes and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

TEST(FillOpTest, FillsEveryElement) {
  const std::vector<std::vector<int32_t>> dims = {{}, {0}, {5}, {2, 3}, {3, 0, 2}, {300, 400}};
  for (const auto& d : dims) {
    for (DataType idx : {DT_INT32, DT_INT64}) {
      Tensor dims_t = idx == DT_INT32
                          ? Tensor::FromVector<int32_t>(d)
                          : Tensor::FromVector<int64_t>(std::vector<int64_t>(d.begin(), d.end()));
      auto out = test::RunOp("Fill", {dims_t, Tensor::Scalar<float>(-2.5f)});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      TensorShape want(std::vector<int64_t>(d.begin(), d.end()));
      test::ExpectClose((*out)[0], want, std::vector<double>(want.num_elements(), -2.5), 0, 0);
    }
  }
}

TEST(FillOpTest, OtherDtypes) {
  Tensor dims = Tensor::FromVector<int32_t>({2, 2});
  auto i64 = test::RunOp("Fill", {dims, Tensor::Scalar<int64_t>(int64_t{1} << 40)});
  ASSERT_TRUE(i64.ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*i64)[0].data<int64_t>()[i], int64_t{1} << 40);
  auto b = test::RunOp("Fill", {dims, Tensor::Scalar<bool>(true)});
  ASSERT_TRUE(b.ok());
  for (int i = 0; i < 4; ++i) EXPECT_TRUE((*b)[0].data<bool>()[i]);
  auto s = test::RunOp("Fill", {dims, Tensor::Scalar<std::string>("tact")});
  ASSERT_TRUE(s.ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*s)[0].data<std::string>()[i], "tact");
  auto d = test::RunOp("Fill", {dims, Tensor::Scalar<double>(0.1)});
  ASSERT_TRUE(d.ok());
  test::ExpectClose((*d)[0], {2, 2}, {0.1, 0.1, 0.1, 0.1}, 0, 0);
}

TEST(FillOpTest, Errors) {
  test::ExpectError(test::RunOp("Fill", {Tensor::FromVector<int32_t>({2, -1}),
                                         Tensor::Scalar<float>(1)}).status(),
                    Code::kInvalidArgument, "dimension 1 of shape is negative (-1)");
  // Too big to allocate: an error, not an abort.
  test::ExpectError(test::RunOp("Fill", {Tensor::FromVector<int64_t>({1 << 20, 1 << 20, 1 << 12}),
                                         Tensor::Scalar<float>(1)}).status(),
                    Code::kResourceExhausted, "");
  test::ExpectError(test::RunOp("Fill", {Tensor::Scalar<int32_t>(2), Tensor::Scalar<float>(1)})
                        .status(),
                    Code::kInvalidArgument, "dims must be a vector, got shape []");
  test::ExpectError(test::RunOp("Fill", {Tensor::FromVector<int32_t>({2}),
                                         Tensor::FromVector<float>({1, 2})}).status(),
                    Code::kInvalidArgument, "value must be a scalar, got shape [2]");
  test::ExpectError(test::RunOp("Fill", {Tensor::FromVector<float>({2}), Tensor::Scalar<float>(1)})
                        .status(),
                    Code::kInvalidArgument, "attr 'index_type' = float");
}

template <typename T>
void CheckLike(const TensorShape& shape, uint32_t seed) {
  Tensor x = test::Random<T>(shape, seed);
  auto zeros = test::RunOp("ZerosLike", {x});
  auto ones = test::RunOp("OnesLike", {x});
  ASSERT_TRUE(zeros.ok()) << zeros.status().ToString();
  ASSERT_TRUE(ones.ok()) << ones.status().ToString();
  EXPECT_EQ((*zeros)[0].dtype(), x.dtype());
  test::ExpectClose((*zeros)[0], shape, std::vector<double>(shape.num_elements(), 0), 0, 0);
  test::ExpectClose((*ones)[0], shape, std::vector<double>(shape.num_elements(), 1), 0, 0);
}

TEST(ZerosLikeOpTest, ZerosAndOnesOfTheSameShape) {
  uint32_t seed = 1;
  for (const TensorShape& shape : {TensorShape{}, TensorShape{0}, TensorShape{3},
                                   TensorShape{2, 0, 4}, TensorShape{4, 5, 6}}) {
    CheckLike<float>(shape, seed++);
    CheckLike<double>(shape, seed++);
    CheckLike<int32_t>(shape, seed++);
    CheckLike<int64_t>(shape, seed++);
  }
  Tensor b(DT_BOOL, {3});
  auto ones = test::RunOp("OnesLike", {b});
  ASSERT_TRUE(ones.ok());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE((*ones)[0].data<bool>()[i]);
}

TEST(ZerosLikeOpTest, StringHasNoOnes) {
  test::ExpectError(test::RunOp("OnesLike", {Tensor::Scalar<std::string>("x")}).status(),
                    Code::kInvalidArgument, "attr 'T' = string");
}

}  // namespace
}  // namespace tact
