// ApplyGradients: GradientDescent, Momentum, Adam, RMSProp and Adagrad on
// hand-fed gradients against the formulas in double, global_step, the
// slots, check_numerics and hyper-parameters out of range.
#include "graph/nn/optimizers.h"

#include <cmath>
#include <limits>

#include "graph/nn/initializers.h"
#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

using test::AsDoubles;
using test::ExpectNear;
using test::Fetch;

const std::vector<float> kW0 = {0.5f, -1.0f, 2.0f, 0.25f};
const std::vector<float> kB0 = {1.0f, -3.0f};

struct Model {
  std::unique_ptr<Session> session;
  std::string train;
};

// w [2, 2] and b [2], gradients fed through "gw" and "gb".
Model Build(const Optimizer& opt, bool check_numerics) {
  Scope s = Scope::NewRootScope();
  auto w = VariableWithInit(s, "w", TensorShape({2, 2}),
                            [](const Scope& is, const TensorShape&, DataType) {
                              return Const(is, Tensor::FromVector<float>(kW0, TensorShape({2, 2})));
                            });
  auto b =
      VariableWithInit(s, "b", TensorShape({2}), [](const Scope& is, const TensorShape&, DataType) {
        return Const(is, Tensor::FromVector<float>(kB0));
      });
  auto gw = Placeholder(s.WithOpName("gw"), DT_FLOAT, PartialTensorShape({2, 2}));
  auto gb = Placeholder(s.WithOpName("gb"), DT_FLOAT, PartialTensorShape({2}));
  auto step = GlobalStep(s);
  auto train = ApplyGradients(s, opt, {{gw, w}, {gb, b}}, step, check_numerics);
  EXPECT_TRUE(train.ok()) << train.status().ToString();
  InitAllVariables(s.WithOpName("init"));
  Model m{test::NewSession(s), train.ok() ? train->name() : ""};
  EXPECT_TRUE(m.session->Run({}, {}, {"init"}).ok());
  return m;
}

std::vector<double> Grad(int step, int n) {
  std::vector<double> g(n);
  for (int i = 0; i < n; ++i) g[i] = std::sin(1.0 + i + 3.0 * step);
  return g;
}

Tensor ToTensor(const std::vector<double>& v, const TensorShape& shape) {
  return Tensor::FromVector<float>(std::vector<float>(v.begin(), v.end()), shape);
}

// Runs 3 steps and checks w and b after each against `update(param, grad,
// slot1, slot2, step)` applied in double.
template <typename Update>
void RunThreeSteps(const Optimizer& opt, Update update) {
  Model m = Build(opt, /*check_numerics=*/true);
  std::vector<double> w(kW0.begin(), kW0.end()), b(kB0.begin(), kB0.end());
  std::vector<double> w1(4, 0), w2(4, 0), b1(2, 0), b2(2, 0);
  for (int step = 1; step <= 3; ++step) {
    auto gw = Grad(step, 4), gb = Grad(step + 10, 2);
    auto out = m.session->Run(
        {{"gw", ToTensor(gw, TensorShape({2, 2}))}, {"gb", ToTensor(gb, TensorShape({2}))}}, {},
        {m.train});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int i = 0; i < 4; ++i) update(&w[i], gw[i], &w1[i], &w2[i], step);
    for (int i = 0; i < 2; ++i) update(&b[i], gb[i], &b1[i], &b2[i], step);
    ExpectNear(AsDoubles<float>(Fetch(m.session.get(), "w")), w, 1e-5);
    ExpectNear(AsDoubles<float>(Fetch(m.session.get(), "b")), b, 1e-5);
    EXPECT_EQ(Fetch(m.session.get(), "global_step").data<int64_t>()[0], step);
  }
}

TEST(OptimizersTest, GradientDescentOverThreeSteps) {
  const double lr = 0.1f;
  RunThreeSteps(Optimizer::GradientDescent(0.1),
                [&](double* p, double g, double*, double*, int) { *p -= lr * g; });
}

TEST(OptimizersTest, MomentumOverThreeSteps) {
  const double lr = 0.05f, mom = 0.9f;
  RunThreeSteps(Optimizer::Momentum(0.05, 0.9), [&](double* p, double g, double* a, double*, int) {
    *a = *a * mom + g;
    *p -= lr * *a;
  });
}

TEST(OptimizersTest, AdamOverThreeSteps) {
  const double lr = 0.01f, b1 = 0.9f, b2 = 0.999f, eps = 1e-7f;
  RunThreeSteps(Optimizer::Adam(0.01), [&](double* p, double g, double* m, double* v, int step) {
    const double lr_t = lr * std::sqrt(1 - std::pow(b2, step)) / (1 - std::pow(b1, step));
    *m = b1 * *m + (1 - b1) * g;
    *v = b2 * *v + (1 - b2) * g * g;
    *p -= lr_t * *m / (std::sqrt(*v) + eps);
  });
}

// With and without momentum: ms and mom are the two slots.
TEST(OptimizersTest, RMSPropOverThreeSteps) {
  for (double momentum : {0.0, 0.9}) {
    const double lr = 0.01f, rho = 0.9f, mu = static_cast<float>(momentum), eps = 1e-7f;
    RunThreeSteps(Optimizer::RMSProp(0.01, 0.9, momentum),
                  [&](double* p, double g, double* ms, double* mom, int) {
                    *ms = rho * *ms + (1 - rho) * g * g;
                    *mom = mu * *mom + lr * g / std::sqrt(*ms + eps);
                    *p -= *mom;
                  });
  }
}

// The accumulator starts at initial_accumulator_value, not at zero.
TEST(OptimizersTest, AdagradOverThreeSteps) {
  const double lr = 0.05f, eps = 1e-7f, init = 0.1f;
  RunThreeSteps(Optimizer::Adagrad(0.05), [&](double* p, double g, double* a, double*, int step) {
    if (step == 1) *a = init;
    *a += g * g;
    *p -= lr * g / (std::sqrt(*a) + eps);
  });
}

TEST(OptimizersTest, RMSPropAndAdagradSlotsHaveTensorFlowsNamesAndStartValues) {
  struct Case {
    Optimizer opt;
    std::vector<std::string> slots;
    double start;
  };
  for (const Case& c : {Case{Optimizer::RMSProp(0.1), {"w/RMSProp", "w/RMSProp_1"}, 0.0},
                        Case{Optimizer::Adagrad(0.1, 0.25), {"w/Adagrad"}, 0.25}}) {
    Scope s = Scope::NewRootScope();
    auto w = VariableWithInit(s, "w", TensorShape({3}), ZerosInit());
    auto g = Placeholder(s.WithOpName("g"), DT_FLOAT);
    ASSERT_TRUE(ApplyGradients(s, c.opt, {{g, w}}, GlobalStep(s), false).ok());
    std::vector<std::string> names;
    for (const auto& v : AllVariables(s)) names.push_back(v.name);
    std::vector<std::string> want = {"w", "global_step"};
    want.insert(want.end(), c.slots.begin(), c.slots.end());
    EXPECT_EQ(names, want);
    ASSERT_EQ(TrainableVariables(s).size(), 1u);
    InitAllVariables(s.WithOpName("init"));
    auto session = test::NewSession(s);
    ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
    for (const std::string& slot : c.slots) {
      EXPECT_EQ(AsDoubles<float>(Fetch(session.get(), slot)), std::vector<double>(3, c.start))
          << slot;
    }
  }
}

TEST(OptimizersTest, HyperParametersOutOfRangeAreRefusedNamingThem) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    Optimizer opt;
    const char* says;
  };
  for (const Case& c : {
           Case{Optimizer::GradientDescent(-0.1), "GradientDescent: learning_rate must be"},
           Case{Optimizer::Momentum(0.1, nan), "Momentum: momentum must be"},
           Case{Optimizer::Adam(0.1, 1.0), "Adam: beta1 must be in [0, 1), got 1"},
           Case{Optimizer::Adam(0.1, 0.9, 0.999, -1e-7), "Adam: epsilon must be"},
           Case{Optimizer::RMSProp(0.1, 1.5), "RMSProp: rho must be in [0, 1), got 1.5"},
           Case{Optimizer::RMSProp(0.1, 0.9, -0.5), "RMSProp: momentum must be"},
           Case{Optimizer::Adagrad(0.1, -0.1), "Adagrad: initial_accumulator_value must be"},
           Case{Optimizer::Adagrad(std::numeric_limits<double>::infinity()),
                "Adagrad: learning_rate must be a finite number >= 0, got inf"},
       }) {
    Scope s = Scope::NewRootScope();
    auto w = VariableWithInit(s, "w", TensorShape({3}), ZerosInit());
    auto g = Placeholder(s.WithOpName("g"), DT_FLOAT);
    auto train = ApplyGradients(s, c.opt, {{g, w}}, GlobalStep(s), false);
    ASSERT_FALSE(train.ok()) << c.says;
    EXPECT_EQ(train.status().code(), Code::kInvalidArgument);
    EXPECT_NE(train.status().message().find(c.says), std::string::npos)
        << train.status().ToString();
    EXPECT_FALSE(s.ok());
  }
}

TEST(OptimizersTest, AdamSlotsAreRecordedAndNotTrainable) {
  Scope s = Scope::NewRootScope();
  auto w = VariableWithInit(s, "w", TensorShape({3}), ZerosInit());
  auto g = Placeholder(s.WithOpName("g"), DT_FLOAT);
  ASSERT_TRUE(ApplyGradients(s, Optimizer::Adam(0.1), {{g, w}}, GlobalStep(s), false).ok());
  std::vector<std::string> names;
  for (const auto& v : AllVariables(s)) names.push_back(v.name);
  EXPECT_EQ(names, std::vector<std::string>(
                       {"w", "global_step", "beta1_power", "beta2_power", "w/Adam", "w/Adam_1"}));
  ASSERT_EQ(TrainableVariables(s).size(), 1u);
  EXPECT_EQ(TrainableVariables(s)[0].name, "w");
}

// A NaN in one gradient fails the step naming the check, and no variable,
// slot, power or step counter moves.
TEST(OptimizersTest, CheckNumericsStopsTheStepBeforeAnyUpdate) {
  Model m = Build(Optimizer::Adam(0.01), /*check_numerics=*/true);
  const std::vector<std::string> all = {"w",      "b",        "w/Adam",      "w/Adam_1",
                                        "b/Adam", "b/Adam_1", "beta1_power", "beta2_power"};
  // One good step first, so the slots hold non-zero values.
  ASSERT_TRUE(m.session
                  ->Run({{"gw", ToTensor(Grad(0, 4), TensorShape({2, 2}))},
                         {"gb", ToTensor(Grad(1, 2), TensorShape({2}))}},
                        {}, {m.train})
                  .ok());
  std::vector<std::vector<double>> before;
  for (const auto& name : all) before.push_back(AsDoubles<float>(Fetch(m.session.get(), name)));
  std::vector<double> bad = Grad(2, 2);
  bad[1] = std::numeric_limits<double>::quiet_NaN();
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto out = m.session->Run({{"gw", ToTensor(Grad(3, 4), TensorShape({2, 2}))},
                               {"gb", ToTensor(bad, TensorShape({2}))}},
                              {}, {m.train});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
    EXPECT_NE(out.status().message().find("CheckNumerics"), std::string::npos)
        << out.status().ToString();
    EXPECT_NE(out.status().message().find("gradient for b : Tensor had NaN values"),
              std::string::npos)
        << out.status().ToString();
  }
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(AsDoubles<float>(Fetch(m.session.get(), all[i])), before[i]) << all[i];
  }
  EXPECT_EQ(Fetch(m.session.get(), "global_step").data<int64_t>()[0], 1);
}

TEST(OptimizersTest, EmptyListIsAnError) {
  Scope s = Scope::NewRootScope();
  auto train = ApplyGradients(s, Optimizer::GradientDescent(0.1), {}, Output(), false);
  EXPECT_FALSE(train.ok());
  EXPECT_EQ(train.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace tact
