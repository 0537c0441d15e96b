// UnsortedSegmentSum against a plain loop in double: ids of several ranks
// and dtypes, repeated and missing segments, negative ids dropped, ids past
// the end refused by position, 16-bit sums in float, and the same bits on
// any number of threads.
#include <gtest/gtest.h>

#include <vector>

#include "graph/ops/reduction_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

// output[ids[i], j] += data[i, j], with data viewed as [ids.size, inner]
// (inner: the elements of data's dimensions past the ids' `ids_rank`).
std::vector<double> Reference(const Tensor& data, const std::vector<int64_t>& ids, int ids_rank,
                              int64_t segments) {
  const std::vector<double> d = test::ToDoubles(data);
  const int64_t rows = static_cast<int64_t>(ids.size());
  int64_t inner = 1;
  for (int k = ids_rank; k < data.dims(); ++k) inner *= data.dim_size(k);
  std::vector<double> out(segments * inner, 0.0);
  for (int64_t i = 0; i < rows; ++i) {
    if (ids[i] < 0) continue;
    for (int64_t j = 0; j < inner; ++j) out[ids[i] * inner + j] += d[i * inner + j];
  }
  return out;
}

Tensor IdsTensor(const std::vector<int64_t>& ids, const TensorShape& shape, DataType dtype) {
  if (dtype == DT_INT64) return Tensor::FromVector<int64_t>(ids, shape);
  return Tensor::FromVector<int32_t>(std::vector<int32_t>(ids.begin(), ids.end()), shape);
}

TEST(UnsortedSegmentSumTest, MatchesAPlainLoop) {
  struct Case {
    TensorShape data;
    TensorShape ids_shape;
    std::vector<int64_t> ids;
    int64_t segments;
  };
  const std::vector<Case> cases = {
      {{4}, {4}, {0, 2, 0, 1}, 3},                 // scalars per row
      {{5, 3}, {5}, {4, 0, 4, 4, 1}, 6},           // repeats; segments 2, 3 and 5 empty
      {{2, 3, 2}, {2, 3}, {1, 0, 1, -1, 2, 0}, 3}, // ids of rank 2; one dropped
      {{3, 2}, {3}, {-1, -5, -1}, 2},              // every row dropped
      {{0, 7}, {0}, {}, 4},                        // no rows: zeros
      {{3, 0}, {3}, {0, 1, 0}, 2},                 // empty rows
      {{2, 2}, {2}, {0, 1}, 2},
  };
  uint32_t seed = 3;
  for (const Case& c : cases) {
    for (DataType idx : {DT_INT32, DT_INT64}) {
      SCOPED_TRACE(c.data.DebugString() + " ids " + IdsTensor(c.ids, c.ids_shape, DT_INT64).DebugString());
      Tensor data = test::Random<double>(c.data, seed++);
      auto out = test::RunOp("UnsortedSegmentSum",
                             {data, IdsTensor(c.ids, c.ids_shape, idx), Tensor::Scalar<int32_t>(c.segments)});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      TensorShape want_shape({c.segments});
      for (int d = c.ids_shape.dims(); d < c.data.dims(); ++d) want_shape.AddDim(c.data.dim_size(d));
      test::ExpectClose((*out)[0], want_shape,
                        Reference(data, c.ids, c.ids_shape.dims(), c.segments), 1e-15, 1e-15);
    }
  }
}

TEST(UnsortedSegmentSumTest, SmallTypesAndIntegers) {
  // 300 halves of 0.1 into one segment: added in half, the sum would stall
  // near 32; in float it rounds once, to 30.
  Tensor h(DT_HALF, {300});
  for (int i = 0; i < 300; ++i) h.data<half>()[i] = half(0.1f);
  std::vector<int64_t> zeros(300, 0);
  auto out = test::RunOp("UnsortedSegmentSum", {h, IdsTensor(zeros, {300}, DT_INT32),
                                                Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NEAR(static_cast<float>((*out)[0].data<half>()[0]), 30.0f, 0.05f);
  auto ints = test::RunOp("UnsortedSegmentSum",
                          {Tensor::FromVector<int32_t>({2147483647, 1, 5}),
                           IdsTensor({0, 0, 1}, {3}, DT_INT64), Tensor::Scalar<int64_t>(2)});
  ASSERT_TRUE(ints.ok()) << ints.status().ToString();
  EXPECT_EQ((*ints)[0].data<int32_t>()[0], -2147483647 - 1);  // wraps
  EXPECT_EQ((*ints)[0].data<int32_t>()[1], 5);
}

TEST(UnsortedSegmentSumTest, BadInputsAreClearErrors) {
  Tensor data = test::Random<float>({2, 3}, 1);
  auto high = test::RunOp("UnsortedSegmentSum", {data, IdsTensor({0, 3}, {2}, DT_INT32),
                                                 Tensor::Scalar<int32_t>(3)});
  test::ExpectError(high.status(), Code::kInvalidArgument, "segment_ids[1] = 3 is not in [0, 3)");
  auto shape = test::RunOp("UnsortedSegmentSum", {data, IdsTensor({0, 1, 0}, {3}, DT_INT32),
                                                  Tensor::Scalar<int32_t>(3)});
  test::ExpectError(shape.status(), Code::kInvalidArgument,
                    "data's shape [2,3] must begin with segment_ids' shape [3]");
  auto count = test::RunOp("UnsortedSegmentSum", {data, IdsTensor({0, 1}, {2}, DT_INT32),
                                                  Tensor::Scalar<int32_t>(-1)});
  test::ExpectError(count.status(), Code::kInvalidArgument, "num_segments must be a scalar >= 0");
  auto inferred = test::InferShape("UnsortedSegmentSum",
                                   {PartialTensorShape({-1, 2, 5}), PartialTensorShape({4, -1}),
                                    PartialTensorShape({})});
  ASSERT_TRUE(inferred.ok()) << inferred.status().ToString();
  EXPECT_EQ(*inferred, PartialTensorShape({-1, 5}));
  auto mismatch = test::InferShape("UnsortedSegmentSum",
                                   {PartialTensorShape({3, 5}), PartialTensorShape({4}),
                                    PartialTensorShape({})});
  test::ExpectError(mismatch.status(), Code::kInvalidArgument, "must begin with segment_ids");
}

TEST(UnsortedSegmentSumTest, BitIdenticalAcrossThreadCounts) {
  const int64_t rows = 20000, segments = 3001;
  Tensor data = test::Random<float>({rows, 17}, 4);
  std::vector<int64_t> ids(rows);
  for (int64_t i = 0; i < rows; ++i) ids[i] = (i * 7919) % segments;
  const std::vector<Tensor> in = {data, IdsTensor(ids, {rows}, DT_INT32),
                                  Tensor::Scalar<int32_t>(static_cast<int32_t>(segments))};
  auto one = test::RunOp("UnsortedSegmentSum", in, {}, 1);
  auto four = test::RunOp("UnsortedSegmentSum", in, {}, 4);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_TRUE((*one)[0].BitwiseEqual((*four)[0]));
  test::ExpectClose((*four)[0], {segments, 17}, Reference(data, ids, 1, segments), 1e-5, 1e-5);
}

}  // namespace
}  // namespace tact
