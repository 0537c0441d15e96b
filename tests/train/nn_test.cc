// graph/nn: initializers, InitAllVariables, layers and CountParameters,
// run through a Session and checked against plain loops.
#include <cmath>

#include "graph/nn/initializers.h"
#include "graph/nn/layers.h"
#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

using test::AsDoubles;
using test::Fetch;

struct Stats {
  double mean = 0, stddev = 0, min = 1e300, max = -1e300;
};
Stats StatsOf(const std::vector<double>& v) {
  Stats s;
  for (double x : v) {
    s.mean += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean /= v.size();
  for (double x : v) s.stddev += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(s.stddev / v.size());
  return s;
}

TEST(InitializersTest, StatisticsWithinBounds) {
  Scope s = Scope::NewRootScope();
  const TensorShape shape({100, 200});
  Identity(s.WithOpName("zeros"), Zeros(s, shape));
  Identity(s.WithOpName("const"), ConstantFill(s, shape, 2.5, DT_DOUBLE));
  Identity(s.WithOpName("uniform"), RandomUniformValues(s, shape, -1, 3, DT_FLOAT, 1));
  Identity(s.WithOpName("normal"), RandomNormalValues(s, shape, 2, 0.5, DT_DOUBLE, 2));
  Identity(s.WithOpName("truncated"), TruncatedNormalValues(s, shape, 0, 1, DT_FLOAT, 3));
  Identity(s.WithOpName("glorot"), GlorotUniform(s, TensorShape({200, 300}), DT_FLOAT, 4));
  auto session = test::NewSession(s);

  Stats z = StatsOf(AsDoubles<float>(Fetch(session.get(), "zeros")));
  EXPECT_EQ(z.min, 0.0);
  EXPECT_EQ(z.max, 0.0);
  Stats c = StatsOf(AsDoubles<double>(Fetch(session.get(), "const")));
  EXPECT_EQ(c.min, 2.5);
  EXPECT_EQ(c.max, 2.5);

  // 20,000 samples: the mean's standard error is stddev / 141.
  Stats u = StatsOf(AsDoubles<float>(Fetch(session.get(), "uniform")));
  EXPECT_NEAR(u.mean, 1.0, 0.04);
  EXPECT_NEAR(u.stddev, 4 / std::sqrt(12.0), 0.03);
  EXPECT_GE(u.min, -1.0);
  EXPECT_LT(u.max, 3.0);
  EXPECT_LT(u.min, -0.99);
  EXPECT_GT(u.max, 2.99);

  Stats n = StatsOf(AsDoubles<double>(Fetch(session.get(), "normal")));
  EXPECT_NEAR(n.mean, 2.0, 0.02);
  EXPECT_NEAR(n.stddev, 0.5, 0.015);

  // A standard normal cut at +-2 has standard deviation 0.8796.
  Stats t = StatsOf(AsDoubles<float>(Fetch(session.get(), "truncated")));
  EXPECT_NEAR(t.mean, 0.0, 0.03);
  EXPECT_NEAR(t.stddev, 0.8796, 0.02);
  EXPECT_GT(t.min, -2.0);
  EXPECT_LT(t.max, 2.0);

  const double limit = std::sqrt(6.0 / (200 + 300));
  Stats g = StatsOf(AsDoubles<float>(Fetch(session.get(), "glorot")));
  EXPECT_GE(g.min, -limit);
  EXPECT_LT(g.max, limit);
  EXPECT_LT(g.min, -0.99 * limit);
  EXPECT_GT(g.max, 0.99 * limit);
  EXPECT_NEAR(g.stddev, limit / std::sqrt(3.0), 0.02 * limit);
}

TEST(InitializersTest, GlorotFansOfMatrixAndFilter) {
  Fans m = GlorotFans(TensorShape({784, 256}));
  EXPECT_EQ(m.fan_in, 784);
  EXPECT_EQ(m.fan_out, 256);
  Fans f = GlorotFans(TensorShape({3, 5, 2, 8}));
  EXPECT_EQ(f.fan_in, 30);
  EXPECT_EQ(f.fan_out, 120);
}

TEST(VariablesTest, InitAllVariablesInitialisesEverything) {
  Scope s = Scope::NewRootScope();
  VariableWithInit(s, "a", TensorShape({3}), ConstantInit(7));
  VariableWithInit(s, "a", TensorShape({2, 2}), TruncatedNormalInit(0, 1, 5), DT_DOUBLE);
  Scope sub = s.NewSubScope("layer");
  VariableWithInit(sub, "w", TensorShape({4}), ZerosInit(), DT_FLOAT, /*trainable=*/false);
  InitAllVariables(s.WithOpName("init"));
  auto vars = AllVariables(s);
  ASSERT_EQ(vars.size(), 3u);
  EXPECT_EQ(vars[0].name, "a");
  EXPECT_EQ(vars[1].name, "a_1");
  EXPECT_EQ(vars[2].name, "layer/w");
  EXPECT_EQ(vars[1].dtype, DT_DOUBLE);
  EXPECT_EQ(vars[1].shape, TensorShape({2, 2}));
  EXPECT_EQ(TrainableVariables(s).size(), 2u);
  for (const auto& v : vars) IsVariableInitialized(s.WithOpName(v.name + "_is_init"), v.var);
  auto session = test::NewSession(s);
  for (const auto& v : vars) {
    EXPECT_FALSE(Fetch(session.get(), v.name + "_is_init").data<bool>()[0]) << v.name;
  }
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  for (const auto& v : vars) {
    EXPECT_TRUE(Fetch(session.get(), v.name + "_is_init").data<bool>()[0]) << v.name;
  }
  auto a = AsDoubles<float>(Fetch(session.get(), "a"));
  EXPECT_EQ(a, std::vector<double>({7, 7, 7}));
}

TEST(VariablesTest, ANewGraphStartsWithNoVariables) {
  for (int i = 0; i < 2; ++i) {
    Scope s = Scope::NewRootScope();
    VariableWithInit(s, "v", TensorShape({1}), ZerosInit());
    EXPECT_EQ(AllVariables(s).size(), 1u);
  }
}

TEST(LayersTest, DenseMatchesPlainLoopsAndNamesItsVariables) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 3}));
  Identity(s.WithOpName("y"), Dense(s, x, 4, Relu, 7));
  Dense(s, x, 2);
  auto vars = TrainableVariables(s);
  ASSERT_EQ(vars.size(), 4u);
  EXPECT_EQ(vars[0].name, "dense/kernel");
  EXPECT_EQ(vars[1].name, "dense/bias");
  EXPECT_EQ(vars[2].name, "dense_1/kernel");
  EXPECT_EQ(vars[0].shape, TensorShape({3, 4}));
  // A non-zero bias so that it is seen to be added.
  Assign(s.WithOpName("set_bias"), vars[1].var, Tensor::FromVector<float>({0.1f, -0.2f, 0.3f, 5}));
  InitAllVariables(s.WithOpName("init"));
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(session->Run({}, {}, {"set_bias"}).ok());
  Tensor xv = Tensor::FromVector<float>({1, 2, -1, 0.5f, -3, 2}, TensorShape({2, 3}));
  auto y = AsDoubles<float>(Fetch(session.get(), "y", {{"x", xv}}));
  auto k = AsDoubles<float>(Fetch(session.get(), "dense/kernel"));
  auto b = AsDoubles<float>(Fetch(session.get(), "dense/bias"));
  ASSERT_EQ(y.size(), 8u);
  for (int r = 0; r < 2; ++r) {
    for (int j = 0; j < 4; ++j) {
      double acc = b[j];
      for (int i = 0; i < 3; ++i) acc += xv.data<float>()[r * 3 + i] * k[i * 4 + j];
      EXPECT_NEAR(y[r * 4 + j], std::max(acc, 0.0), 1e-5);
    }
  }
}

// A depthwise layer of multiplier 2 with a VALID 2x2 window and stride 2:
// output channel c * 2 + m is input channel c's window times kernel[:, :, c, m].
TEST(LayersTest, DepthwiseConv2DLayerMatchesAPlainLoop) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 4, 4, 3}));
  auto y = DepthwiseConv2DLayer(s, x, {2, 2}, {2, 2}, "VALID", /*depth_multiplier=*/2, Relu, 5);
  Identity(s.WithOpName("y"), y);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(y.node->output_shape(0), PartialTensorShape({-1, 2, 2, 6}));
  InitAllVariables(s.WithOpName("init"));
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  std::vector<float> xs(4 * 4 * 3);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = std::sin(0.3 * i);
  auto out = session->Run({{"x", Tensor::FromVector<float>(xs, TensorShape({1, 4, 4, 3}))}},
                          {"y", "depthwise_conv2d/depthwise_kernel", "depthwise_conv2d/bias"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[1].shape(), TensorShape({2, 2, 3, 2}));
  EXPECT_EQ((*out)[2].shape(), TensorShape({6}));
  auto y_got = AsDoubles<float>((*out)[0]);
  auto k = AsDoubles<float>((*out)[1]);
  for (int oy = 0; oy < 2; ++oy) {
    for (int ox = 0; ox < 2; ++ox) {
      for (int c = 0; c < 3; ++c) {
        for (int m = 0; m < 2; ++m) {
          double acc = 0;  // bias is zero
          for (int ky = 0; ky < 2; ++ky) {
            for (int kx = 0; kx < 2; ++kx) {
              acc += xs[((oy * 2 + ky) * 4 + ox * 2 + kx) * 3 + c] * k[((ky * 2 + kx) * 3 + c) * 2 + m];
            }
          }
          EXPECT_NEAR(y_got[(oy * 2 + ox) * 6 + c * 2 + m], std::max(acc, 0.0), 1e-5);
        }
      }
    }
  }
}

TEST(LayersTest, Conv2DMaxPoolAndFlattenMatchPlainLoops) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 4, 5, 2}));
  auto conv = Conv2DLayer(s, x, 3, {3, 3}, {1, 1}, "SAME", nullptr, 3);
  Identity(s.WithOpName("conv"), conv);
  auto pool = MaxPool2DLayer(s, conv, {2, 2}, {2, 2}, "VALID");
  Identity(s.WithOpName("pool"), pool);
  auto flat = Flatten(s, pool);
  Identity(s.WithOpName("flat"), flat);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(flat.node->output_shape(0), PartialTensorShape({-1, 2 * 2 * 3}));
  InitAllVariables(s.WithOpName("init"));
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  std::vector<float> xs(4 * 5 * 2);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = std::sin(0.7 * i);
  Tensor xv = Tensor::FromVector<float>(xs, TensorShape({1, 4, 5, 2}));
  auto out = session->Run({{"x", xv}}, {"conv", "pool", "flat", "conv2d/kernel"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  auto c = AsDoubles<float>((*out)[0]);
  auto p = AsDoubles<float>((*out)[1]);
  auto f = AsDoubles<float>((*out)[2]);
  auto k = AsDoubles<float>((*out)[3]);
  EXPECT_EQ((*out)[0].shape(), TensorShape({1, 4, 5, 3}));
  EXPECT_EQ((*out)[1].shape(), TensorShape({1, 2, 2, 3}));
  EXPECT_EQ((*out)[2].shape(), TensorShape({1, 12}));
  // SAME with a 3x3 window, stride 1: one row/column of zero padding.
  for (int h = 0; h < 4; ++h) {
    for (int w = 0; w < 5; ++w) {
      for (int o = 0; o < 3; ++o) {
        double acc = 0;  // bias is zero
        for (int dh = 0; dh < 3; ++dh) {
          for (int dw = 0; dw < 3; ++dw) {
            const int ih = h + dh - 1, iw = w + dw - 1;
            if (ih < 0 || ih >= 4 || iw < 0 || iw >= 5) continue;
            for (int ci = 0; ci < 2; ++ci) {
              acc += xs[(ih * 5 + iw) * 2 + ci] * k[((dh * 3 + dw) * 2 + ci) * 3 + o];
            }
          }
        }
        EXPECT_NEAR(c[(h * 5 + w) * 3 + o], acc, 1e-5);
      }
    }
  }
  for (int h = 0; h < 2; ++h) {
    for (int w = 0; w < 2; ++w) {
      for (int o = 0; o < 3; ++o) {
        double m = -1e300;
        for (int dh = 0; dh < 2; ++dh) {
          for (int dw = 0; dw < 2; ++dw)
            m = std::max(m, c[((2 * h + dh) * 5 + 2 * w + dw) * 3 + o]);
        }
        EXPECT_EQ(p[(h * 2 + w) * 3 + o], m);
        EXPECT_EQ(f[(h * 2 + w) * 3 + o], m);
      }
    }
  }
}

TEST(LayersTest, DenseNeedsAKnownInputDimension) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  EXPECT_FALSE(Dense(s, x, 4).ok());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("dense"), std::string::npos) << s.status().ToString();
}

TEST(LayersTest, DropoutKeepsOneMinusRateScaledAndIsDeterministicPerStep) {
  const int64_t n = 20000;
  const double rate = 0.3;
  auto build = [&](Scope& s) {
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({n}));
    Identity(s.WithOpName("y"), Dropout(s, x, rate, true, 11));
    Identity(s.WithOpName("y_eval"), Dropout(s, x, rate, false, 11));
  };
  Scope s1 = Scope::NewRootScope(), s2 = Scope::NewRootScope();
  build(s1);
  build(s2);
  auto a = test::NewSession(s1), b = test::NewSession(s2);
  Tensor ones = Tensor::FromVector<float>(std::vector<float>(n, 1.0f));
  auto y1 = AsDoubles<float>(Fetch(a.get(), "y", {{"x", ones}}));
  int64_t kept = 0;
  for (double v : y1) {
    if (v != 0) {
      ++kept;
      EXPECT_NEAR(v, 1 / (1 - rate), 1e-6);
    }
  }
  // Binomial(20000, 0.7): standard deviation 65.
  EXPECT_NEAR(double(kept) / n, 1 - rate, 0.015);
  // The same seed and step id in another session: the same mask.
  EXPECT_EQ(AsDoubles<float>(Fetch(b.get(), "y", {{"x", ones}})), y1);
  // The next step draws a new one.
  EXPECT_NE(AsDoubles<float>(Fetch(a.get(), "y", {{"x", ones}})), y1);
  EXPECT_EQ(AsDoubles<float>(Fetch(a.get(), "y_eval", {{"x", ones}})), std::vector<double>(n, 1.0));
}

// Keyed by a step tensor, the mask depends on that step alone: the same
// step gives the same mask in another session or after other Runs (a run
// restored from a checkpoint draws what it drew before); another step, a
// new mask.
TEST(LayersTest, DropoutKeyedByAStepDrawsTheSameMaskForTheSameStep) {
  const int64_t n = 20000;
  auto build = [&](Scope& s) {
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({n}));
    auto training = Placeholder(s.WithOpName("training"), DT_BOOL, PartialTensorShape({}));
    auto step = Placeholder(s.WithOpName("step"), DT_INT64, PartialTensorShape({}));
    Identity(s.WithOpName("y"), Dropout(s, x, 0.3, training, 11, step));
  };
  Scope s1 = Scope::NewRootScope(), s2 = Scope::NewRootScope();
  build(s1);
  build(s2);
  auto a = test::NewSession(s1), b = test::NewSession(s2);
  Tensor ones = Tensor::FromVector<float>(std::vector<float>(n, 1.0f));
  auto at = [&](Session* session, int64_t step) {
    return AsDoubles<float>(Fetch(session, "y",
                                  {{"x", ones}, {"training", Tensor::Scalar<bool>(true)},
                                   {"step", Tensor::Scalar<int64_t>(step)}}));
  };
  const std::vector<double> five = at(a.get(), 5);
  int64_t kept = 0;
  for (double v : five) kept += v != 0;
  EXPECT_NEAR(double(kept) / n, 0.7, 0.015);
  const std::vector<double> six = at(a.get(), 6);
  EXPECT_NE(six, five);
  EXPECT_EQ(at(a.get(), 5), five);  // a later Run of the session
  EXPECT_EQ(at(b.get(), 5), five);  // the first Run of another
  EXPECT_EQ(AsDoubles<float>(Fetch(a.get(), "y",
                                   {{"x", ones}, {"training", Tensor::Scalar<bool>(false)},
                                    {"step", Tensor::Scalar<int64_t>(5)}})),
            std::vector<double>(n, 1.0));
}

// One graph, the mode fed: the same mask as the bool overload when
// training, the identity when not.
TEST(LayersTest, DropoutWithAFedTrainingFlag) {
  const int64_t n = 5000;
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({n}));
  auto training = Placeholder(s.WithOpName("training"), DT_BOOL, PartialTensorShape({}));
  Identity(s.WithOpName("y"), Dropout(s, x, 0.5, training, 5));
  Scope r = Scope::NewRootScope();
  auto rx = Placeholder(r.WithOpName("x"), DT_FLOAT, PartialTensorShape({n}));
  Identity(r.WithOpName("y"), Dropout(r, rx, 0.5, true, 5));
  auto a = test::NewSession(s), b = test::NewSession(r);
  std::vector<float> xs(n);
  for (int64_t i = 0; i < n; ++i) xs[i] = 0.5f + i % 7;
  Tensor xv = Tensor::FromVector<float>(xs);
  auto on =
      AsDoubles<float>(Fetch(a.get(), "y", {{"x", xv}, {"training", Tensor::Scalar<bool>(true)}}));
  EXPECT_EQ(on, AsDoubles<float>(Fetch(b.get(), "y", {{"x", xv}})));
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (on[i] != 0) {
      ++kept;
      EXPECT_FLOAT_EQ(on[i], 2 * xs[i]);
    }
  }
  EXPECT_NEAR(double(kept) / n, 0.5, 0.03);
  auto off =
      AsDoubles<float>(Fetch(a.get(), "y", {{"x", xv}, {"training", Tensor::Scalar<bool>(false)}}));
  EXPECT_EQ(off, AsDoubles<float>(xv));
}

TEST(LayersTest, CountParametersOfAnMlp) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 784}));
  Dense(s, Dense(s, Dense(s, x, 256, Relu), 128, Relu), 10);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(CountParameters(s), 235146);
}

}  // namespace
}  // namespace tact
