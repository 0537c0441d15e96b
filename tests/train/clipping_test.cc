// ClipByGlobalNorm against the formula in double: above the norm, below
// it, a NaN or Inf gradient, and bad arguments.
#include "graph/nn/clipping.h"

#include <cmath>
#include <limits>

#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

const std::vector<float> kA = {3, -1, 2, 0.5};  // [2, 2]
const std::vector<float> kB = {-4, 1.5, 2.5};   // [3]

// The clipped gradients and the norm, for `a` and `b` fed as [2, 2] and [3].
std::vector<std::vector<double>> Clip(const std::vector<float>& a, const std::vector<float>& b,
                                      double clip_norm) {
  Scope s = Scope::NewRootScope();
  auto ga = Placeholder(s.WithOpName("a"), DT_FLOAT);
  auto gb = Placeholder(s.WithOpName("b"), DT_FLOAT);
  auto clipped = ClipByGlobalNorm(s, {ga, gb}, clip_norm);
  EXPECT_TRUE(clipped.ok()) << clipped.status().ToString();
  if (!clipped.ok()) return {};
  auto session = test::NewSession(s);
  auto out = session->Run({{"a", Tensor::FromVector<float>(a, TensorShape({2, 2}))},
                           {"b", Tensor::FromVector<float>(b)}},
                          {clipped->grads[0].name(), clipped->grads[1].name(),
                           clipped->global_norm.name()},
                          {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].shape().DebugString(), "[2,2]");
  std::vector<std::vector<double>> r;
  for (const Tensor& t : *out) r.push_back(test::AsDoubles<float>(t));
  return r;
}

double Norm() {
  double sq = 0;
  for (float v : kA) sq += double(v) * v;
  for (float v : kB) sq += double(v) * v;
  return std::sqrt(sq);
}

TEST(ClipByGlobalNormTest, AboveTheNormEveryGradientIsScaledAlike) {
  const double norm = Norm();  // about 6.3
  auto r = Clip(kA, kB, 2.0);
  ASSERT_EQ(r.size(), 3u);
  test::ExpectNear(r[2], {norm}, 1e-6);
  std::vector<double> a, b;
  for (float v : kA) a.push_back(v * 2.0 / norm);
  for (float v : kB) b.push_back(v * 2.0 / norm);
  test::ExpectNear(r[0], a, 1e-6);
  test::ExpectNear(r[1], b, 1e-6);
}

TEST(ClipByGlobalNormTest, BelowTheNormTheGradientsAreUnchanged) {
  auto r = Clip(kA, kB, 100.0);
  ASSERT_EQ(r.size(), 3u);
  test::ExpectNear(r[0], std::vector<double>(kA.begin(), kA.end()), 1e-7);
  test::ExpectNear(r[1], std::vector<double>(kB.begin(), kB.end()), 1e-7);
}

// As TensorFlow: one bad element makes every clipped gradient NaN, so a
// CheckNumerics after the clip stops the step.
TEST(ClipByGlobalNormTest, ANaNOrInfGradientMakesEveryClippedOneNaN) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::vector<float> b = kB;
    b[1] = bad;
    auto r = Clip(kA, b, 2.0);
    ASSERT_EQ(r.size(), 3u);
    for (double v : r[0]) EXPECT_TRUE(std::isnan(v)) << bad;
    for (double v : r[1]) EXPECT_TRUE(std::isnan(v)) << bad;
  }
}

TEST(ClipByGlobalNormTest, BadArgumentsAreRefusedNamingThem) {
  Scope s = Scope::NewRootScope();
  auto f = Placeholder(s.WithOpName("f"), DT_FLOAT);
  auto d = Placeholder(s.WithOpName("d"), DT_DOUBLE);
  struct Case {
    std::vector<Output> grads;
    double clip_norm;
    const char* says;
  };
  for (const Case& c : {Case{{}, 1.0, "no gradients"},
                        Case{{f}, 0.0, "clip_norm must be a finite number > 0, got 0"},
                        Case{{f}, std::nan(""), "clip_norm must be a finite number > 0, got nan"},
                        Case{{f, d}, 1.0, "gradient 'd' is double"},
                        Case{{f, Output()}, 1.0, "an empty gradient"}}) {
    Scope t = Scope::NewRootScope();
    auto clipped = ClipByGlobalNorm(t, c.grads, c.clip_norm);
    ASSERT_FALSE(clipped.ok()) << c.says;
    EXPECT_EQ(clipped.status().code(), Code::kInvalidArgument);
    EXPECT_NE(clipped.status().message().find(c.says), std::string::npos)
        << clipped.status().ToString();
  }
}

}  // namespace
}  // namespace tact
