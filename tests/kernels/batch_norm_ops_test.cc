// FusedBatchNormV3 and FusedBatchNormGradV3 against the textbook formulas
// computed in double by plain loops (per channel: the mean, the biased
// variance, x-hat and the gradient through the batch's statistics), in both
// modes; the same bits on any number of threads; half and bfloat16 against
// float; bad inputs named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

AttrMap Attrs(bool training, double epsilon = 1e-3, double factor = 1.0) {
  return {{"epsilon", AttrValue::Float(static_cast<float>(epsilon))},
          {"exponential_avg_factor", AttrValue::Float(static_cast<float>(factor))},
          {"is_training", AttrValue::Bool(training)}};
}

AttrMap GradAttrs(bool training, double epsilon = 1e-3) {
  return {{"epsilon", AttrValue::Float(static_cast<float>(epsilon))},
          {"is_training", AttrValue::Bool(training)}};
}

// x [rows, C] (NHWC flattened) and per-channel vectors, in double.
struct Moments {
  std::vector<double> mean, var;  // var biased
};

Moments BatchMoments(const std::vector<double>& x, int64_t c) {
  const int64_t rows = static_cast<int64_t>(x.size()) / c;
  Moments m{std::vector<double>(c, 0), std::vector<double>(c, 0)};
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < c; ++j) m.mean[j] += x[r * c + j] / rows;
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < c; ++j) m.var[j] += std::pow(x[r * c + j] - m.mean[j], 2) / rows;
  }
  return m;
}

std::vector<double> Normalised(const std::vector<double>& x, const Moments& m,
                               const std::vector<double>& scale, const std::vector<double>& offset,
                               double eps) {
  const int64_t c = static_cast<int64_t>(scale.size());
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t j = static_cast<int64_t>(i) % c;
    y[i] = scale[j] * (x[i] - m.mean[j]) / std::sqrt(m.var[j] + eps) + offset[j];
  }
  return y;
}

std::vector<double> Scaled(const std::vector<double>& v, double f) {
  std::vector<double> out = v;
  for (double& e : out) e *= f;
  return out;
}

class FusedBatchNormTest : public ::testing::TestWithParam<TensorShape> {};

// Shapes: one block of rows, several blocks (7,200 rows of 3 channels: the
// kernel's blocks hold 5,461), one row, a single channel.
INSTANTIATE_TEST_SUITE_P(Shapes, FusedBatchNormTest,
                         ::testing::Values(TensorShape({2, 3, 4, 5}), TensorShape({8, 30, 30, 3}),
                                           TensorShape({1, 1, 1, 4}), TensorShape({3, 5, 7, 1})));

TEST_P(FusedBatchNormTest, TrainingMatchesTheBatchsMomentsAndMovesTheAverages) {
  const TensorShape shape = GetParam();
  const int64_t c = shape.dim_size(3), rows = shape.num_elements() / c;
  Tensor x = test::Random<float>(shape, 1, -3, 5);
  Tensor scale = test::Random<float>(TensorShape({c}), 2, 0.5, 2);
  Tensor offset = test::Random<float>(TensorShape({c}), 3);
  Tensor running_mean = test::Random<float>(TensorShape({c}), 4);
  Tensor running_var = test::Random<float>(TensorShape({c}), 5, 0.5, 2);
  const double eps = 1e-3, f = 0.25;
  auto out = test::RunOp("FusedBatchNormV3", {x, scale, offset, running_mean, running_var},
                         Attrs(true, eps, f));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 6u);
  const Moments m = BatchMoments(test::ToDoubles(x), c);
  test::ExpectClose((*out)[0], shape,
                    Normalised(test::ToDoubles(x), m, test::ToDoubles(scale),
                               test::ToDoubles(offset), eps),
                    2e-5, 2e-5);
  // Running averages: (1 - f) * running + f * batch, the variance unbiased
  // (a batch of one row divides by 1, not 0).
  const double bessel = rows > 1 ? static_cast<double>(rows) / (rows - 1) : 1.0;
  std::vector<double> want_mean(c), want_var(c);
  for (int64_t j = 0; j < c; ++j) {
    want_mean[j] = (1 - f) * test::ToDoubles(running_mean)[j] + f * m.mean[j];
    want_var[j] = (1 - f) * test::ToDoubles(running_var)[j] + f * m.var[j] * bessel;
  }
  test::ExpectClose((*out)[1], TensorShape({c}), want_mean, 1e-5, 1e-6);
  test::ExpectClose((*out)[2], TensorShape({c}), want_var, 1e-5, 1e-6);
  test::ExpectClose((*out)[3], TensorShape({c}), m.mean, 1e-5, 1e-6);
  test::ExpectClose((*out)[4], TensorShape({c}), m.var, 1e-5, 1e-6);
  EXPECT_EQ((*out)[5].shape(), TensorShape({0}));

  // Factor 1 (no running average): the running inputs may be empty, and the
  // outputs are the batch's mean and unbiased variance.
  Tensor empty(DT_FLOAT, TensorShape({0}));
  auto plain = test::RunOp("FusedBatchNormV3", {x, scale, offset, empty, empty}, Attrs(true, eps));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  test::ExpectClose((*plain)[1], TensorShape({c}), m.mean, 1e-5, 1e-6);
  test::ExpectClose((*plain)[2], TensorShape({c}), Scaled(m.var, bessel), 1e-5, 1e-6);
}

TEST_P(FusedBatchNormTest, InferenceNormalisesWithTheGivenStatistics) {
  const TensorShape shape = GetParam();
  const int64_t c = shape.dim_size(3);
  Tensor x = test::Random<double>(shape, 6, -3, 5);
  Tensor scale = test::Random<double>(TensorShape({c}), 7, 0.5, 2);
  Tensor offset = test::Random<double>(TensorShape({c}), 8);
  Tensor mean = test::Random<double>(TensorShape({c}), 9);
  Tensor var = test::Random<double>(TensorShape({c}), 10, 0.5, 2);
  auto out = test::RunOp("FusedBatchNormV3", {x, scale, offset, mean, var}, Attrs(false, 1e-2));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Moments given{test::ToDoubles(mean), test::ToDoubles(var)};
  test::ExpectClose((*out)[0], shape,
                    Normalised(test::ToDoubles(x), given, test::ToDoubles(scale),
                               test::ToDoubles(offset), static_cast<double>(1e-2f)),
                    1e-12, 1e-12);  // epsilon is a float attr
  for (int i : {1, 3}) test::ExpectClose((*out)[i], TensorShape({c}), given.mean, 0, 0);
  for (int i : {2, 4}) test::ExpectClose((*out)[i], TensorShape({c}), given.var, 0, 0);
}

// The gradient in double from x-hat: dx = scale * inv / n * (n dy - sum(dy)
// - xhat * sum(dy * xhat)), dscale = sum(dy * xhat), doffset = sum(dy).
struct Grads {
  std::vector<double> dx, dscale, doffset;
};

Grads ReferenceGrad(const std::vector<double>& dy, const std::vector<double>& x,
                    const std::vector<double>& scale, const Moments& m, double eps,
                    bool training) {
  const int64_t c = static_cast<int64_t>(scale.size());
  const int64_t rows = static_cast<int64_t>(x.size()) / c;
  Grads g{std::vector<double>(x.size()), std::vector<double>(c, 0), std::vector<double>(c, 0)};
  std::vector<double> xhat(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t j = static_cast<int64_t>(i) % c;
    xhat[i] = (x[i] - m.mean[j]) / std::sqrt(m.var[j] + eps);
    g.dscale[j] += dy[i] * xhat[i];
    g.doffset[j] += dy[i];
  }
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t j = static_cast<int64_t>(i) % c;
    const double a = scale[j] / std::sqrt(m.var[j] + eps);
    g.dx[i] = training ? a / rows * (rows * dy[i] - g.doffset[j] - xhat[i] * g.dscale[j])
                       : a * dy[i];
  }
  return g;
}

TEST_P(FusedBatchNormTest, GradientMatchesTheFormulaInBothModes) {
  const TensorShape shape = GetParam();
  const int64_t c = shape.dim_size(3);
  Tensor x = test::Random<float>(shape, 11, -3, 5);
  Tensor dy = test::Random<float>(shape, 12);
  Tensor scale = test::Random<float>(TensorShape({c}), 13, 0.5, 2);
  Tensor offset = test::Random<float>(TensorShape({c}), 14);
  Tensor empty(DT_FLOAT, TensorShape({0}));
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "inference");
    Tensor mean = test::Random<float>(TensorShape({c}), 15);
    Tensor var = test::Random<float>(TensorShape({c}), 16, 0.5, 2);
    auto fwd = test::RunOp("FusedBatchNormV3", {x, scale, offset, mean, var}, Attrs(training));
    ASSERT_TRUE(fwd.ok()) << fwd.status().ToString();
    auto out = test::RunOp("FusedBatchNormGradV3",
                           {dy, x, scale, (*fwd)[3], (*fwd)[4], (*fwd)[5]}, GradAttrs(training));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), 5u);
    const Moments m = training ? BatchMoments(test::ToDoubles(x), c)
                               : Moments{test::ToDoubles(mean), test::ToDoubles(var)};
    const Grads want = ReferenceGrad(test::ToDoubles(dy), test::ToDoubles(x),
                                     test::ToDoubles(scale), m, 1e-3, training);
    test::ExpectClose((*out)[0], shape, want.dx, 1e-4, 1e-5);
    test::ExpectClose((*out)[1], TensorShape({c}), want.dscale, 1e-4, 1e-4);
    test::ExpectClose((*out)[2], TensorShape({c}), want.doffset, 1e-5, 1e-4);
    EXPECT_EQ((*out)[3].shape(), TensorShape({0}));
    EXPECT_EQ((*out)[4].shape(), TensorShape({0}));
  }
}

TEST(FusedBatchNormTest, SameBitsOnAnyNumberOfThreads) {
  const TensorShape shape({16, 40, 40, 8});  // 25,600 rows in 13 blocks
  Tensor x = test::Random<float>(shape, 21, -3, 5);
  Tensor dy = test::Random<float>(shape, 22);
  Tensor scale = test::Random<float>(TensorShape({8}), 23, 0.5, 2);
  Tensor offset = test::Random<float>(TensorShape({8}), 24);
  std::vector<std::vector<Tensor>> runs;
  for (int threads : {1, 2, 4}) {
    auto fwd = test::RunOp("FusedBatchNormV3", {x, scale, offset, scale, scale},
                           Attrs(true, 1e-3, 0.1), threads);
    ASSERT_TRUE(fwd.ok()) << fwd.status().ToString();
    auto bwd = test::RunOp("FusedBatchNormGradV3", {dy, x, scale, (*fwd)[3], (*fwd)[4], (*fwd)[5]},
                           GradAttrs(true), threads);
    ASSERT_TRUE(bwd.ok()) << bwd.status().ToString();
    std::vector<Tensor> all = *fwd;
    all.insert(all.end(), bwd->begin(), bwd->end());
    runs.push_back(all);
  }
  for (size_t r = 1; r < runs.size(); ++r) {
    for (size_t i = 0; i < runs[0].size(); ++i) {
      const Tensor& a = runs[0][i];
      const Tensor& b = runs[r][i];
      ASSERT_EQ(a.shape(), b.shape());
      EXPECT_EQ(0, std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()))
          << "output " << i << " differs between 1 thread and run " << r;
    }
  }
}

// A mean far from zero against a small spread: sums of x and x^2 would
// lose the variance to cancellation.
TEST(FusedBatchNormTest, ALargeMeanDoesNotCancelTheVariance) {
  const TensorShape shape({64, 8, 8, 2});
  Tensor x = test::Random<float>(shape, 51, -0.01, 0.01);
  float* p = x.data<float>();
  for (int64_t i = 0; i < x.NumElements(); ++i) p[i] += i % 2 == 0 ? 1e4f : -3e3f;
  Tensor v = Tensor::FromVector<float>({1, 1});
  auto out = test::RunOp("FusedBatchNormV3", {x, v, v, v, v}, Attrs(true));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Moments m = BatchMoments(test::ToDoubles(x), 2);
  test::ExpectClose((*out)[3], TensorShape({2}), m.mean, 1e-7, 0);
  test::ExpectClose((*out)[4], TensorShape({2}), m.var, 1e-5, 0);
  // y keeps the spread: x - mean first, in float, was within 0.0032 of the
  // double reference here; x * a + (offset - mean * a) was 0.012 off.
  const std::vector<double> one(2, 1.0);
  test::ExpectClose((*out)[0], shape, Normalised(test::ToDoubles(x), m, one, one, 1e-3), 0, 0.005);
}

TEST(FusedBatchNormTest, SixteenBitTypesComputeInFloat) {
  const TensorShape shape({4, 6, 6, 3});
  Tensor x = test::Random<float>(shape, 31, -3, 5);
  Tensor dy = test::Random<float>(shape, 32);
  Tensor scale = test::Random<float>(TensorShape({3}), 33, 0.5, 2);
  Tensor offset = test::Random<float>(TensorShape({3}), 34);
  for (DataType t : {DT_HALF, DT_BFLOAT16}) {
    SCOPED_TRACE(DataTypeString(t));
    const double tol = t == DT_HALF ? 4e-3 : 3e-2;
    Tensor x16 = test::RunOne("Cast", {x}, {{"DstT", AttrValue::Type(t)}});
    Tensor dy16 = test::RunOne("Cast", {dy}, {{"DstT", AttrValue::Type(t)}});
    // The reference: float on the values the 16-bit tensors hold.
    Tensor xr = test::RunOne("Cast", {x16}, {{"DstT", AttrValue::Type(DT_FLOAT)}});
    Tensor dyr = test::RunOne("Cast", {dy16}, {{"DstT", AttrValue::Type(DT_FLOAT)}});
    auto want = test::RunOp("FusedBatchNormV3", {xr, scale, offset, scale, scale}, Attrs(true));
    auto got = test::RunOp("FusedBatchNormV3", {x16, scale, offset, scale, scale}, Attrs(true));
    ASSERT_TRUE(want.ok() && got.ok()) << got.status().ToString();
    EXPECT_EQ((*got)[0].dtype(), t);
    EXPECT_EQ((*got)[1].dtype(), DT_FLOAT);
    test::ExpectClose((*got)[0], shape, test::ToDoubles((*want)[0]), tol, tol);
    for (int i = 1; i < 5; ++i) {
      test::ExpectClose((*got)[i], TensorShape({3}), test::ToDoubles((*want)[i]), 1e-6, 1e-6);
    }
    auto gwant = test::RunOp("FusedBatchNormGradV3",
                             {dyr, xr, scale, (*want)[3], (*want)[4], (*want)[5]}, GradAttrs(true));
    auto ggot = test::RunOp("FusedBatchNormGradV3",
                            {dy16, x16, scale, (*got)[3], (*got)[4], (*got)[5]}, GradAttrs(true));
    ASSERT_TRUE(gwant.ok() && ggot.ok()) << ggot.status().ToString();
    test::ExpectClose((*ggot)[0], shape, test::ToDoubles((*gwant)[0]), tol, tol);
    for (int i : {1, 2}) {
      test::ExpectClose((*ggot)[i], TensorShape({3}), test::ToDoubles((*gwant)[i]), 1e-5, 1e-5);
    }
  }
}

TEST(FusedBatchNormTest, AnEmptyBatchGivesNanStatisticsAsTensorFlows) {
  Tensor x(DT_FLOAT, TensorShape({0, 4, 4, 2}));
  Tensor v = Tensor::FromVector<float>({1, 1});
  auto out = test::RunOp("FusedBatchNormV3", {x, v, v, v, v}, Attrs(true));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), x.shape());
  EXPECT_TRUE(std::isnan((*out)[3].data<float>()[0]));
  auto grad = test::RunOp("FusedBatchNormGradV3", {x, x, v, v, v, (*out)[5]}, GradAttrs(true));
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  EXPECT_EQ((*grad)[1].data<float>()[0], 0.0f);
  EXPECT_EQ((*grad)[2].data<float>()[1], 0.0f);
}

TEST(FusedBatchNormTest, BadInputsAreClearErrors) {
  Tensor x = test::Random<float>(TensorShape({2, 2, 2, 3}), 41);
  Tensor v3 = Tensor::FromVector<float>({1, 1, 1});
  Tensor v2 = Tensor::FromVector<float>({1, 1});
  Tensor empty(DT_FLOAT, TensorShape({0}));
  test::ExpectError(test::RunOp("FusedBatchNormV3",
                                {test::Random<float>(TensorShape({4, 3}), 42), v3, v3, v3, v3},
                                Attrs(true)).status(),
                    Code::kInvalidArgument, "x must be of rank 4 (NHWC), got shape [4,3]");
  test::ExpectError(test::RunOp("FusedBatchNormV3", {x, v2, v3, v3, v3}, Attrs(true)).status(),
                    Code::kInvalidArgument,
                    "scale must be a vector of the 3 channels of x, got shape [2]");
  // Inference and a running average read mean and variance: they must fit.
  test::ExpectError(test::RunOp("FusedBatchNormV3", {x, v3, v3, empty, v3}, Attrs(false)).status(),
                    Code::kInvalidArgument, "mean must be a vector of the 3 channels of x");
  test::ExpectError(
      test::RunOp("FusedBatchNormV3", {x, v3, v3, v3, v2}, Attrs(true, 1e-3, 0.5)).status(),
      Code::kInvalidArgument, "variance must be a vector of the 3 channels of x, got shape [2]");
  test::ExpectError(test::RunOp("FusedBatchNormV3", {x, v3, v3, v3, v3}, Attrs(true, -1)).status(),
                    Code::kInvalidArgument, "epsilon must be finite and >= 0, got -1");
  AttrMap nchw = Attrs(true);
  nchw["data_format"] = AttrValue::String("NCHW");
  test::ExpectError(test::RunOp("FusedBatchNormV3", {x, v3, v3, v3, v3}, nchw).status(),
                    Code::kInvalidArgument, "data_format 'NCHW' is not supported on CPU");
  test::ExpectError(
      test::RunOp("FusedBatchNormGradV3",
                  {test::Random<float>(TensorShape({2, 2, 2, 2}), 43), x, v3, v3, v3, empty},
                  GradAttrs(true)).status(),
      Code::kInvalidArgument, "y_backprop [2,2,2,2] and x [2,2,2,3] must have one shape");
  test::ExpectError(
      test::RunOp("FusedBatchNormGradV3", {x, x, v3, v2, v3, empty}, GradAttrs(true)).status(),
      Code::kInvalidArgument, "reserve_space_1 (the mean) must be a vector of the 3 channels");
}

}  // namespace
}  // namespace tact
