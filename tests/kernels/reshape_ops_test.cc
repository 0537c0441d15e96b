#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;
using test::RunOne;

// A reshape keeps the elements in row-major order: the reference is the
// identity on flat offsets.
Tensor SameOrder(const Tensor& in, const TensorShape& shape) {
  return test::MapReference(in.dtype(), shape, {&in}, [&](const std::vector<int64_t>& idx) {
    return std::make_pair(0, test::Ravel(idx, shape.dim_sizes()));
  });
}

TEST(ReshapeOpTest, KeepsElementsAndSharesTheBuffer) {
  struct Case { TensorShape in; std::vector<int64_t> shape; TensorShape out; };
  const Case cases[] = {
      {{2, 3, 4}, {4, 6}, {4, 6}},   {{2, 3, 4}, {-1}, {24}},       {{2, 3, 4}, {3, -1, 2}, {3, 4, 2}},
      {{}, {1, 1}, {1, 1}},          {{1, 1}, {}, {}},              {{}, {-1}, {1}},
      {{0, 3}, {3, 0}, {3, 0}},      {{0, 3}, {-1, 3}, {0, 3}},     {{6}, {1, 2, 1, 3}, {1, 2, 1, 3}}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (DataType shape_type : {DT_INT32, DT_INT64}) {
      Tensor x = test::Random<float>(c.in, seed++);
      Tensor y = RunOne("Reshape", {x, Ints(c.shape, shape_type)});
      test::ExpectTensorEq(y, SameOrder(x, c.out));
      EXPECT_TRUE(y.SharesBufferWith(x) || x.NumElements() == 0) << c.in.DebugString();
    }
  }
}

TEST(ReshapeOpTest, StringsAndBools) {
  Tensor s = test::RandomStrings({2, 3}, 7);
  Tensor y = RunOne("Reshape", {s, Ints({3, 2})});
  test::ExpectTensorEq(y, SameOrder(s, {3, 2}));
  EXPECT_TRUE(y.SharesBufferWith(s));
  Tensor b = test::RandomAny(DT_BOOL, {4}, 3);
  test::ExpectTensorEq(RunOne("Reshape", {b, Ints({2, 2})}), SameOrder(b, {2, 2}));
}

TEST(ReshapeOpTest, Errors) {
  Tensor x = test::Random<float>({2, 3}, 1);
  test::ExpectError(test::RunOp("Reshape", {x, Ints({4, 2})}).status(), Code::kInvalidArgument,
                    "cannot reshape a tensor of 6 elements [2,3] to shape [4,2] (8 elements)");
  test::ExpectError(test::RunOp("Reshape", {x, Ints({4, -1})}).status(), Code::kInvalidArgument,
                    "cannot reshape a tensor of 6 elements [2,3] to shape [4,-1]");
  test::ExpectError(test::RunOp("Reshape", {x, Ints({-1, -1})}).status(), Code::kInvalidArgument,
                    "more than one -1");
  test::ExpectError(test::RunOp("Reshape", {x, Ints({-2, -3})}).status(), Code::kInvalidArgument,
                    "sizes must be >= -1");
  test::ExpectError(test::RunOp("Reshape", {x, Ints({6}, DT_INT32, {1, 1})}).status(),
                    Code::kInvalidArgument, "shape must be a vector, got shape [1,1]");
  Tensor empty = test::Random<float>({0, 4}, 1);
  test::ExpectError(test::RunOp("Reshape", {empty, Ints({0, -1})}).status(),
                    Code::kInvalidArgument, "cannot infer the -1");
  test::ExpectError(test::RunOp("Reshape", {x, Ints({1LL << 40, 1LL << 40}, DT_INT64)}).status(),
                    Code::kInvalidArgument, "too many elements");
  // The node's name prefixes every kernel error.
  test::ExpectError(test::RunOp("Reshape", {x, Ints({5})}).status(), Code::kInvalidArgument,
                    "node 'test_Reshape' (op 'Reshape')");
}

TEST(ExpandDimsOpTest, InsertsAOneAtEveryLegalPlace) {
  const TensorShape shapes[] = {{}, {3}, {2, 0}, {2, 3, 4}};
  uint32_t seed = 10;
  for (const TensorShape& in : shapes) {
    for (int64_t dim = -in.dims() - 1; dim <= in.dims(); ++dim) {
      Tensor x = test::Random<int32_t>(in, seed++, -50, 50);
      Tensor y = RunOne("ExpandDims", {x, Ints({dim}, DT_INT64, {})});
      TensorShape want = in;
      want.InsertDim(dim < 0 ? dim + in.dims() + 1 : dim, 1);
      test::ExpectTensorEq(y, SameOrder(x, want));
      EXPECT_TRUE(y.SharesBufferWith(x) || x.NumElements() == 0);
    }
  }
}

TEST(ExpandDimsOpTest, OutOfRangeDim) {
  Tensor x = test::Random<float>({2, 3}, 1);
  test::ExpectError(test::RunOp("ExpandDims", {x, Ints({3}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "dim 3 is out of range for a tensor of rank 3");
  test::ExpectError(test::RunOp("ExpandDims", {x, Ints({-4}, DT_INT32, {})}).status(),
                    Code::kInvalidArgument, "dim -4 is out of range");
  test::ExpectError(test::RunOp("ExpandDims", {x, Ints({0, 1})}).status(),
                    Code::kInvalidArgument, "dim must hold one value");
}

TEST(SqueezeOpTest, AllOnesOrTheListedOnes) {
  Tensor x = test::RandomAny(DT_STRING, {1, 2, 1, 3, 1}, 4);
  struct Case { std::vector<int64_t> dims; TensorShape out; };
  const Case cases[] = {{{}, {2, 3}},          {{0}, {2, 1, 3, 1}}, {{-1}, {1, 2, 1, 3}},
                        {{0, 2, 4}, {2, 3}},   {{2, -5}, {2, 3, 1}}};
  for (const Case& c : cases) {
    Tensor y = RunOne("Squeeze", {x}, {{"squeeze_dims", AttrValue::IntList(c.dims)}});
    test::ExpectTensorEq(y, SameOrder(x, c.out));
    EXPECT_TRUE(y.SharesBufferWith(x));
  }
  Tensor scalar = test::Random<double>({}, 2);
  test::ExpectTensorEq(RunOne("Squeeze", {scalar}), scalar);
  Tensor empty = test::Random<float>({1, 0, 1}, 2);
  EXPECT_EQ(RunOne("Squeeze", {empty}).shape(), TensorShape({0}));
}

TEST(SqueezeOpTest, Errors) {
  Tensor x = test::Random<float>({1, 3}, 1);
  test::ExpectError(
      test::RunOp("Squeeze", {x}, {{"squeeze_dims", AttrValue::IntList({1})}}).status(),
      Code::kInvalidArgument, "cannot squeeze dimension 1 of shape [1,3]: its size is 3, not 1");
  test::ExpectError(
      test::RunOp("Squeeze", {x}, {{"squeeze_dims", AttrValue::IntList({2})}}).status(),
      Code::kInvalidArgument, "squeeze dimension 2 is out of range for a tensor of rank 2");
}

}  // namespace
}  // namespace tact
