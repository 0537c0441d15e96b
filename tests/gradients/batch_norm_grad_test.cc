// Batch normalization's gradients against central differences (float64):
// FusedBatchNormV3's for x, scale and offset, FusedBatchNormGradV3's for
// y_backprop, x and scale (a second derivative), and a gradient penalty, where
// y_backprop itself depends on x, in training and in inference.
#include <gtest/gtest.h>

#include <vector>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"

namespace tact {
namespace {

constexpr double kTol = 1e-6;

FusedBatchNormAttrs Mode(bool training) {
  return {.epsilon = 1e-3f, .exponential_avg_factor = 1.0f, .is_training = training};
}

// Inference's statistics (training's are the batch's); 3 channels.
Output GivenMean(const Scope& s) { return Const(s, Tensor::FromVector<double>({0.1, -0.2, 0.3})); }
Output GivenVariance(const Scope& s) { return Const(s, Tensor::FromVector<double>({0.5, 1.5, 0.8})); }

void ExpectSmall(const StatusOr<double>& err) {
  ASSERT_TRUE(err.ok()) << err.status().ToString();
  EXPECT_LT(*err, kTol);
}

TEST(BatchNormGradTest, FusedBatchNormForXScaleAndOffset) {
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "inference");
    ExpectSmall(GradientErrorOf({{2, 2, 2, 3}, {3}, {3}}, [&](const Scope& s, const auto& x) {
      return FusedBatchNorm(s, x[0], x[1], x[2], GivenMean(s), GivenVariance(s), Mode(training)).y;
    }));
  }
}

TEST(BatchNormGradTest, FusedBatchNormGradForYBackpropXAndScale) {
  for (bool training : {true, false}) {
    for (int out = 0; out < 3; ++out) {
      SCOPED_TRACE(std::string(training ? "training" : "inference") + ", output " +
                   std::to_string(out));
      // x0 = y_backprop, x1 = x, x2 = scale; the reserve spaces come from the
      // forward op, so in training they move with x as they would in a model.
      ExpectSmall(GradientErrorOf({{2, 2, 2, 3}, {2, 2, 2, 3}, {3}}, [&](const Scope& s,
                                                                         const auto& x) {
        Output offset = Const(s, Tensor::FromVector<double>({0.0, 0.0, 0.0}));
        FusedBatchNormOutputs f =
            FusedBatchNorm(s, x[1], x[2], offset, GivenMean(s), GivenVariance(s), Mode(training));
        FusedBatchNormGradOutputs d =
            FusedBatchNormGrad(s, x[0], x[1], x[2], f.reserve_space_1, f.reserve_space_2,
                               f.reserve_space_3, Mode(training));
        return std::vector<Output>{d.x_backprop, d.scale_backprop, d.offset_backprop}[out];
      }));
    }
  }
}

// d/dx of sum((bn(x) * w)^2): y_backprop = 2 bn(x) w^2 depends on x, and the
// second derivative must still treat the gradient op's inputs as its own.
TEST(BatchNormGradTest, GradientPenaltyThroughTheGradientOp) {
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "inference");
    ExpectSmall(GradientErrorOf({{2, 2, 2, 3}, {3}, {2, 2, 2, 3}}, [&](const Scope& s,
                                                                       const auto& x) {
      Output offset = Const(s, Tensor::FromVector<double>({0.2, 0.0, -0.1}));
      Output y = FusedBatchNorm(s, x[0], x[1], offset, GivenMean(s), GivenVariance(s), Mode(training)).y;
      Output loss = Sum(s, Square(s, Mul(s, y, x[2])), {0, 1, 2, 3});
      std::vector<Output> g;
      EXPECT_TRUE(AddSymbolicGradients(s, {loss}, {x[0]}, {}, &g).ok());
      return g.empty() ? Output() : g[0];
    }));
  }
}

}  // namespace
}  // namespace tact
