#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

Tensor TileRef(const Tensor& x, const std::vector<int64_t>& m) {
  std::vector<int64_t> dims;
  for (int d = 0; d < x.dims(); ++d) dims.push_back(x.dim_size(d) * m[d]);
  return test::MapReference(x.dtype(), TensorShape(dims), {&x}, [&](std::vector<int64_t> idx) {
    for (size_t d = 0; d < idx.size(); ++d) idx[d] %= x.dim_size(d);
    return std::make_pair(0, test::Ravel(idx, x.shape().dim_sizes()));
  });
}

TEST(TileOpTest, RandomMultiples) {
  struct Case { TensorShape shape; std::vector<int64_t> m; };
  const Case cases[] = {{{3}, {4}},        {{2, 3}, {2, 1}},       {{2, 3}, {1, 3}},
                        {{2, 1, 3}, {2, 3, 2}}, {{2, 3}, {0, 2}},  {{0, 3}, {2, 2}},
                        {{1, 1}, {1, 1}},   {{100, 50}, {30, 4}}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (DataType t : {DT_FLOAT, DT_INT8, DT_STRING}) {
      Tensor x = test::RandomAny(t, c.shape, seed++);
      test::ExpectTensorEq(test::RunOne("Tile", {x, Ints(c.m, seed % 2 ? DT_INT32 : DT_INT64)}),
                           TileRef(x, c.m));
    }
  }
}

TEST(TileOpTest, Scalar) {
  Tensor s = test::Random<float>({}, 1);
  test::ExpectTensorEq(test::RunOne("Tile", {s, Ints({})}), s);
}

TEST(TileOpTest, Errors) {
  Tensor x = test::Random<float>({2, 3}, 1);
  test::ExpectError(test::RunOp("Tile", {x, Ints({2})}).status(), Code::kInvalidArgument,
                    "multiples must be a vector of 2 elements for input of shape [2,3], got "
                    "shape [1]");
  test::ExpectError(test::RunOp("Tile", {x, Ints({2, -1})}).status(), Code::kInvalidArgument,
                    "multiples must be >= 0, got [2,-1]");
  test::ExpectError(test::RunOp("Tile", {x, Ints({1LL << 62, 1}, DT_INT64)}).status(),
                    Code::kInvalidArgument, "tiling dimension 0 overflows");
}

}  // namespace
}  // namespace tact
