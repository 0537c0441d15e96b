#include <gtest/gtest.h>

#include <algorithm>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

// y[idx] = x[j] where j_{perm[d]} = idx_d.
Tensor TransposeRef(const Tensor& x, const std::vector<int64_t>& perm) {
  std::vector<int64_t> out_dims;
  for (int64_t p : perm) out_dims.push_back(x.dim_size(p));
  return test::MapReference(x.dtype(), TensorShape(out_dims), {&x},
                            [&](const std::vector<int64_t>& idx) {
                              std::vector<int64_t> src(idx.size());
                              for (size_t d = 0; d < perm.size(); ++d) src[perm[d]] = idx[d];
                              return std::make_pair(0, test::Ravel(src, x.shape().dim_sizes()));
                            });
}

void CheckEveryPerm(const Tensor& x, DataType perm_type = DT_INT32) {
  std::vector<int64_t> perm(x.dims());
  for (int d = 0; d < x.dims(); ++d) perm[d] = d;
  do {
    Tensor y = test::RunOne("Transpose", {x, Ints(perm, perm_type)});
    test::ExpectTensorEq(y, TransposeRef(x, perm));
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TransposeOpTest, MatricesOfManySizes) {
  // Sizes around the 32-element tile, and one large enough to run in parallel.
  const TensorShape shapes[] = {{1, 1}, {3, 5}, {31, 33}, {64, 32}, {70, 45}, {513, 300}, {0, 4}};
  uint32_t seed = 1;
  for (const TensorShape& s : shapes) {
    CheckEveryPerm(test::Random<float>(s, seed++));
    CheckEveryPerm(test::Random<double>(s, seed++), DT_INT64);
  }
}

TEST(TransposeOpTest, HigherRanks) {
  // Some with size-1 dimensions, which the kernel drops before it copies.
  const TensorShape shapes[] = {{2, 3, 4},       {3, 1, 5, 2}, {2, 0, 3}, {2, 3, 2, 2, 3},
                                {1, 4, 1, 3, 1}, {2, 1},       {40, 30, 50}};
  uint32_t seed = 20;
  for (const TensorShape& s : shapes) CheckEveryPerm(test::Random<int32_t>(s, seed++, -99, 99));
}

TEST(TransposeOpTest, EveryElementSizeAndStrings) {
  for (DataType t : {DT_INT8, DT_HALF, DT_FLOAT, DT_INT64, DT_COMPLEX128, DT_BOOL, DT_STRING}) {
    CheckEveryPerm(test::RandomAny(t, {3, 4}, 5));
    CheckEveryPerm(test::RandomAny(t, {2, 3, 4}, 6));
  }
}

TEST(TransposeOpTest, RankZeroAndOneAndIdentityShare) {
  Tensor s = test::Random<float>({}, 1);
  Tensor y = test::RunOne("Transpose", {s, Ints({})});
  test::ExpectTensorEq(y, s);
  Tensor v = test::Random<float>({5}, 2);
  test::ExpectTensorEq(test::RunOne("Transpose", {v, Ints({0})}), v);
  Tensor m = test::Random<float>({2, 3}, 3);
  EXPECT_TRUE(test::RunOne("Transpose", {m, Ints({0, 1})}).SharesBufferWith(m));
  // Moving a size-1 dimension moves no element either.
  Tensor row = test::Random<float>({1, 5, 1}, 4);
  Tensor col = test::RunOne("Transpose", {row, Ints({2, 1, 0})});
  EXPECT_EQ(col.shape(), TensorShape({1, 5, 1}));
  EXPECT_TRUE(col.SharesBufferWith(row));
  Tensor t = test::RunOne("Transpose", {row, Ints({1, 0, 2})});
  test::ExpectTensorEq(t, TransposeRef(row, {1, 0, 2}));
  EXPECT_TRUE(t.SharesBufferWith(row));
}

TEST(TransposeOpTest, BadPerm) {
  Tensor x = test::Random<float>({2, 3, 4}, 1);
  test::ExpectError(test::RunOp("Transpose", {x, Ints({0, 0, 1})}).status(),
                    Code::kInvalidArgument, "perm [0,0,1] is not a permutation of [0, 3)");
  test::ExpectError(test::RunOp("Transpose", {x, Ints({0, 1, 3})}).status(),
                    Code::kInvalidArgument, "perm [0,1,3] is not a permutation of [0, 3)");
  test::ExpectError(test::RunOp("Transpose", {x, Ints({-1, 0, 1})}).status(),
                    Code::kInvalidArgument, "is not a permutation");
  test::ExpectError(test::RunOp("Transpose", {x, Ints({1, 0})}).status(), Code::kInvalidArgument,
                    "perm [1,0] has 2 entries but x has shape [2,3,4]");
  test::ExpectError(test::RunOp("Transpose", {x, Ints({1}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "perm must be a vector");
  test::ExpectError(test::RunOp("Transpose", {x, test::Random<float>({3}, 1)}).status(),
                    Code::kInvalidArgument, "attr 'Tperm' = float is not in the allowed set");
}

}  // namespace
}  // namespace tact
