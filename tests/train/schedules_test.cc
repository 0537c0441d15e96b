// Learning-rate schedules against their formulas at chosen steps, fed as
// global_step's value, and as an optimizer's rate over real steps.
#include "graph/nn/schedules.h"

#include <cmath>

#include "graph/nn/initializers.h"
#include "graph/nn/optimizers.h"
#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

// The schedule's rate at each of `steps`, global_step a fed int64.
template <typename Make>
std::vector<double> RatesAt(const std::vector<int64_t>& steps, Make make,
                            DataType dtype = DT_FLOAT) {
  Scope s = Scope::NewRootScope();
  auto step = Placeholder(s.WithOpName("step"), DT_INT64, PartialTensorShape({}));
  StatusOr<Output> rate = make(s, step);
  EXPECT_TRUE(rate.ok()) << rate.status().ToString();
  if (!rate.ok()) return {};
  EXPECT_EQ(rate->node->output_shape(rate->index).DebugString(), "[]");
  auto session = test::NewSession(s);
  std::vector<double> out;
  for (int64_t k : steps) {
    Tensor t = test::Fetch(session.get(), rate->name(), {{"step", Tensor::Scalar<int64_t>(k)}});
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.dims(), 0);
    out.push_back(dtype == DT_DOUBLE ? t.data<double>()[0] : t.data<float>()[0]);
  }
  return out;
}

TEST(SchedulesTest, ExponentialDecaySmoothAndStaircase) {
  const std::vector<int64_t> steps = {0, 1, 99, 100, 101, 250, 1000};
  for (bool staircase : {false, true}) {
    std::vector<double> got = RatesAt(steps, [&](const Scope& s, Output step) {
      return ExponentialDecay(s, 0.1, step, 100, 0.5, staircase);
    });
    std::vector<double> want;
    for (int64_t k : steps) {
      const double p = staircase ? std::floor(k / 100.0) : k / 100.0;
      want.push_back(0.1 * std::pow(0.5, p));
    }
    test::ExpectNear(got, want, 1e-6);
  }
}

TEST(SchedulesTest, ExponentialDecayInDoubleAndFromAnInt32Step) {
  std::vector<double> got = RatesAt(
      {0, 7, 30},
      [](const Scope& s, Output step) {
        return ExponentialDecay(s, 2.0, step, 10, 0.9, false, DT_DOUBLE);
      },
      DT_DOUBLE);
  test::ExpectNear(got, {2.0, 2.0 * std::pow(0.9, 0.7), 2.0 * std::pow(0.9, 3.0)}, 1e-12);
  std::vector<double> from_int32 = RatesAt({5, 20}, [](const Scope& s, Output step) {
    return ExponentialDecay(s, 1.0, Cast(s, step, DT_INT32), 10, 0.5, true);
  });
  test::ExpectNear(from_int32, {1.0, 0.25}, 1e-7);
}

TEST(SchedulesTest, PiecewiseConstantDecayAtAndAroundEachBoundary) {
  const std::vector<int64_t> steps = {0, 100, 101, 500, 501, 10000, -5};
  std::vector<double> got = RatesAt(steps, [](const Scope& s, Output step) {
    return PiecewiseConstantDecay(s, step, {100, 500}, {1.0, 0.5, 0.1});
  });
  test::ExpectNear(got, {1.0, 1.0, 0.5, 0.5, 0.1, 0.1, 1.0}, 1e-7);
  std::vector<double> one = RatesAt({0, 1 << 20}, [](const Scope& s, Output step) {
    return PiecewiseConstantDecay(s, step, {}, {0.25});
  });
  test::ExpectNear(one, {0.25, 0.25}, 1e-7);
}

TEST(SchedulesTest, BadArgumentsAreRefusedNamingThem) {
  struct Case {
    std::function<StatusOr<Output>(const Scope&, Output)> make;
    const char* says;
  };
  const Case cases[] = {
      {[](const Scope& s, Output k) { return ExponentialDecay(s, 0.1, k, 0, 0.5); },
       "ExponentialDecay: decay_steps must be >= 1, got 0"},
      {[](const Scope& s, Output k) { return ExponentialDecay(s, -1, k, 10, 0.5); },
       "ExponentialDecay: the initial rate must be"},
      {[](const Scope& s, Output k) { return ExponentialDecay(s, 0.1, k, 10, 0); },
       "ExponentialDecay: decay_rate must be a finite number > 0, got 0"},
      {[](const Scope& s, Output k) { return ExponentialDecay(s, 0.1, Cast(s, k, DT_FLOAT), 10, 0.5); },
       "must be int64 or int32, got float"},
      {[](const Scope& s, Output k) { return ExponentialDecay(s, 0.1, k, 10, 0.5, false, DT_INT32); },
       "the rate's dtype must be float or double, got int32"},
      {[](const Scope& s, Output k) { return PiecewiseConstantDecay(s, k, {10, 20}, {1, 2}); },
       "2 boundaries need 3 values, got 2"},
      {[](const Scope& s, Output k) { return PiecewiseConstantDecay(s, k, {10, 10}, {1, 2, 3}); },
       "boundaries must increase, but boundary 1 (10) follows 10"},
      {[](const Scope& s, Output k) { return PiecewiseConstantDecay(s, k, {10}, {1, NAN}); },
       "value 1 must be a finite number >= 0, got nan"},
      {[](const Scope& s, Output) { return PiecewiseConstantDecay(s, Output(), {10}, {1, 2}); },
       "PiecewiseConstantDecay: no global_step given"},
  };
  for (const Case& c : cases) {
    Scope s = Scope::NewRootScope();
    auto step = Placeholder(s.WithOpName("step"), DT_INT64, PartialTensorShape({}));
    StatusOr<Output> rate = c.make(s, step);
    ASSERT_FALSE(rate.ok()) << c.says;
    EXPECT_EQ(rate.status().code(), Code::kInvalidArgument);
    EXPECT_NE(rate.status().message().find(c.says), std::string::npos) << rate.status().ToString();
    EXPECT_FALSE(s.ok()) << c.says;
  }
}

// Gradient descent with a staircase rate, steps counted by GlobalStep: the
// variable moves by each step's rate times a constant gradient of 1.
TEST(SchedulesTest, AnOptimizerTrainsAtTheRateOfEachStep) {
  Scope s = Scope::NewRootScope();
  auto w = VariableWithInit(s, "w", TensorShape({}), ZerosInit());
  Output step = GlobalStep(s);
  auto rate = ExponentialDecay(s, 1.0, step, 2, 0.5, /*staircase=*/true);
  ASSERT_TRUE(rate.ok()) << rate.status().ToString();
  auto train = ApplyGradients(s, Optimizer::GradientDescent(0).WithLearningRate(*rate),
                              {{Const(s, Tensor::Scalar<float>(1.0f)), w}}, step, false);
  ASSERT_TRUE(train.ok()) << train.status().ToString();
  InitAllVariables(s.WithOpName("init"));
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  double want = 0;
  for (int k = 0; k < 7; ++k) {
    ASSERT_TRUE(session->Run({}, {}, {train->name()}).ok());
    want -= std::pow(0.5, k / 2);  // rates 1, 1, 0.5, 0.5, 0.25, 0.25, 0.125
    EXPECT_NEAR(test::Fetch(session.get(), "w").data<float>()[0], want, 1e-6) << "step " << k;
  }
}

TEST(SchedulesTest, ARateOfAnotherDtypeThanTheVariablesIsRefused) {
  Scope s = Scope::NewRootScope();
  auto w = VariableWithInit(s, "w", TensorShape({}), ZerosInit());
  Output step = GlobalStep(s);
  auto rate = ExponentialDecay(s, 1.0, step, 2, 0.5, false, DT_DOUBLE);
  ASSERT_TRUE(rate.ok());
  auto train = ApplyGradients(s, Optimizer::Adam(0).WithLearningRate(*rate),
                              {{Const(s, Tensor::Scalar<float>(1.0f)), w}}, step, false);
  ASSERT_FALSE(train.ok());
  EXPECT_NE(train.status().message().find("is double and the variables are float"),
            std::string::npos)
      << train.status().ToString();
}

}  // namespace
}  // namespace tact
