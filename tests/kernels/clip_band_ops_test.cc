// ClipByValue and MatrixBandPart against element-by-element references,
// with scalar and tensor bounds, NaN, every band shape, and bad input named.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

TEST(ClipByValueOpTest, ScalarAndElementwiseBoundsInSeveralTypes) {
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT64, DT_INT8}) {
    SCOPED_TRACE(DataTypeString(dt));
    const TensorShape shape({3, 4});
    Tensor t = test::RandomAny(dt, shape, 1);
    const std::vector<double> x = test::ToDoubles(t);
    // Scalar bounds: a fraction of the values falls on each side.
    const double lo_v = dt == DT_INT64 ? -300000 : dt == DT_INT8 ? -30 : -0.5;
    const double hi_v = dt == DT_INT64 ? 400000 : dt == DT_INT8 ? 40 : 0.75;
    Tensor lo = test::RunOne("Cast", {Tensor::Scalar<double>(lo_v)}, {{"DstT", AttrValue::Type(dt)}});
    Tensor hi = test::RunOne("Cast", {Tensor::Scalar<double>(hi_v)}, {{"DstT", AttrValue::Type(dt)}});
    std::vector<double> want(x.size());
    const double lo_d = test::ToDoubles(lo)[0], hi_d = test::ToDoubles(hi)[0];
    for (size_t i = 0; i < x.size(); ++i) want[i] = std::min(std::max(x[i], lo_d), hi_d);
    test::ExpectClose(test::RunOne("ClipByValue", {t, lo, hi}), shape, want, 0, 0);
    // Bounds of t's shape, and a lower bound above the upper: the upper wins.
    Tensor lo2 = test::RandomAny(dt, shape, 2), hi2 = test::RandomAny(dt, shape, 3);
    const std::vector<double> l = test::ToDoubles(lo2), h = test::ToDoubles(hi2);
    for (size_t i = 0; i < x.size(); ++i) want[i] = std::min(std::max(x[i], l[i]), h[i]);
    test::ExpectClose(test::RunOne("ClipByValue", {t, lo2, hi2}), shape, want, 0, 0);
  }
}

TEST(ClipByValueOpTest, NanPassesThrough) {
  Tensor t = Tensor::FromVector<float>({std::nanf(""), -3.f, 0.25f, 9.f});
  Tensor got = test::RunOne("ClipByValue", {t, Tensor::Scalar<float>(-1), Tensor::Scalar<float>(1)});
  EXPECT_TRUE(std::isnan(got.data<float>()[0]));
  EXPECT_EQ(got.data<float>()[1], -1.f);
  EXPECT_EQ(got.data<float>()[2], 0.25f);
  EXPECT_EQ(got.data<float>()[3], 1.f);
}

TEST(ClipByValueOpTest, ABoundOfAnotherShapeIsNamed) {
  test::ExpectError(test::RunOp("ClipByValue", {test::Random<float>({2, 3}, 1),
                                                test::Random<float>({3}, 2), Tensor::Scalar<float>(1)})
                        .status(),
                    Code::kInvalidArgument,
                    "clip_value_min must be a scalar or of t's shape [2,3], got [3]");
}

// What MatrixBandPart keeps of element (i, j).
bool InBand(int64_t i, int64_t j, int64_t lower, int64_t upper) {
  return (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
}

TEST(MatrixBandPartOpTest, EveryBandOfBatchesOfMatrices) {
  const TensorShape shapes[] = {{3, 4}, {2, 4, 3}, {2, 1, 3, 3}, {0, 2}, {3, 0}};
  const std::pair<int64_t, int64_t> bands[] = {{-1, 0}, {0, -1}, {0, 0}, {1, 2}, {-1, -1}, {2, 0}};
  uint32_t seed = 1;
  for (const TensorShape& shape : shapes) {
    const int64_t rows = shape.dim_size(shape.dims() - 2), cols = shape.dim_size(shape.dims() - 1);
    for (auto [lower, upper] : bands) {
      if (lower > rows || upper > cols) continue;
      for (DataType dt : {DT_FLOAT, DT_STRING, DT_BOOL}) {
        SCOPED_TRACE(shape.DebugString() + " band " + std::to_string(lower) + "," +
                     std::to_string(upper) + " " + DataTypeString(dt));
        Tensor in = test::RandomAny(dt, shape, seed++);
        Tensor want = test::MapReference(dt, shape, {&in}, [&](const std::vector<int64_t>& idx) {
          const int64_t i = idx[idx.size() - 2], j = idx.back();
          return InBand(i, j, lower, upper)
                     ? std::make_pair(0, test::Ravel(idx, shape.dim_sizes()))
                     : std::make_pair(-1, int64_t{0});
        });
        const DataType index_type = seed % 2 ? DT_INT32 : DT_INT64;
        test::ExpectTensorEq(
            test::RunOne("MatrixBandPart", {in, Ints({lower}, index_type, TensorShape()),
                                            Ints({upper}, index_type, TensorShape())}),
            want);
      }
    }
  }
}

TEST(MatrixBandPartOpTest, BadInputsAreNamed) {
  Tensor m = test::Random<float>({3, 4}, 1);
  auto run = [](const Tensor& in, int64_t lower, int64_t upper) {
    return test::RunOp("MatrixBandPart", {in, Ints({lower}, DT_INT64, TensorShape()),
                                          Ints({upper}, DT_INT64, TensorShape())})
        .status();
  };
  test::ExpectError(run(m, 4, 0), Code::kInvalidArgument,
                    "num_lower = 4 must be negative or at most the matrices' row count 3");
  test::ExpectError(run(m, 0, 5), Code::kInvalidArgument,
                    "num_upper = 5 must be negative or at most the matrices' column count 4");
  test::ExpectError(run(test::Random<float>({4}, 2), 0, 0), Code::kInvalidArgument,
                    "input must be at least a matrix, got shape [4]");
  test::ExpectError(test::RunOp("MatrixBandPart", {m, Ints({0, 1}, DT_INT64), Ints({0}, DT_INT64,
                                                                                 TensorShape())})
                        .status(),
                    Code::kInvalidArgument, "num_lower must be a scalar");
}

}  // namespace
}  // namespace tact
