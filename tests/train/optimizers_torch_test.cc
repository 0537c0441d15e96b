// Every optimizer against PyTorch's (torch.optim, Debian's python3-torch)
// on the same problem: 30 steps of a least-squares fit, the gradients
// computed by each framework from its own weights, so a difference in any
// step's update carries into every later one. The settings are those
// where the two define the same update:
// - Momentum and Nesterov: torch.optim.SGD's momentum is TensorFlow's.
// - Adam: PyTorch adds epsilon to sqrt(v) after the bias correction and
//   TensorFlow before it; at epsilon 1e-8 and these gradients the two
//   differ by far less than the tolerance.
// - RMSProp: PyTorch adds epsilon outside the square root, TensorFlow
//   inside, so epsilon is 0 here; ms starts at zero in both.
// - Adagrad: torch.optim.Adagrad with initial_accumulator_value 0.1 and
//   epsilon 1e-7 is Keras's Adagrad, ApplyAdagradV2.
// And the learning-rate schedules and clipping of the trainer, against
// torch.optim.lr_scheduler (StepLR is the staircase decay, a LambdaLR the
// smooth one) and torch.nn.utils.clip_grad_norm_ (which divides by the
// norm plus 1e-6: within the tolerance).
// Skipped, saying so, where PyTorch is not installed
// (scripts/setup_peers.sh installs it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "graph/gradients/gradients.h"
#include "graph/nn/clipping.h"
#include "graph/nn/initializers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/schedules.h"
#include "graph/ops/all_ops.h"
#include "tests/apps/run_command.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

constexpr int kSteps = 30;
constexpr int kRows = 8, kCols = 3;

// The problem, the same bytes on both sides: x [8, 3], y [8], w0 [3], b0.
std::vector<float> X() {
  std::vector<float> x(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) x[i] = 0.25f * static_cast<float>((i * 7) % 11) - 1.0f;
  return x;
}
std::vector<float> Y() {
  std::vector<float> y(kRows);
  for (int i = 0; i < kRows; ++i) y[i] = 0.5f * static_cast<float>(i % 5) - 0.75f;
  return y;
}
const std::vector<float> kW0 = {0.3f, -0.2f, 0.1f};
constexpr float kB0 = 0.05f;

// What happens around each step besides the optimizer's update.
struct Extras {
  int64_t decay_steps = 0;  // 0: a constant rate
  double decay_rate = 1;
  bool staircase = false;
  double clip_norm = 0;  // 0: no clipping
};

// w and b after kSteps steps of `opt` in tact.
std::vector<double> TrainInTact(Optimizer opt, const Extras& extras = {}) {
  Scope s = Scope::NewRootScope();
  auto w = VariableWithInit(s, "w", TensorShape({kCols, 1}),
                            [](const Scope& is, const TensorShape&, DataType) {
                              return Const(is, Tensor::FromVector<float>(kW0, {kCols, 1}));
                            });
  auto b = VariableWithInit(s, "b", TensorShape({}), ConstantInit(kB0));
  auto x = Const(s, Tensor::FromVector<float>(X(), {kRows, kCols}));
  auto y = Const(s, Tensor::FromVector<float>(Y(), {kRows, 1}));
  auto loss = Mean(s, Square(s, Sub(s, Add(s, MatMul(s, x, w), b), y)), {0, 1});
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(s, {loss}, {w, b}, {}, &grads).ok());
  Output step = GlobalStep(s);
  if (extras.decay_steps > 0) {
    auto rate = ExponentialDecay(s, opt.learning_rate, step, extras.decay_steps, extras.decay_rate,
                                 extras.staircase);
    EXPECT_TRUE(rate.ok()) << rate.status().ToString();
    if (rate.ok()) opt = opt.WithLearningRate(*rate);
  }
  if (extras.clip_norm > 0) {
    auto clipped = ClipByGlobalNorm(s, grads, extras.clip_norm);
    EXPECT_TRUE(clipped.ok()) << clipped.status().ToString();
    if (clipped.ok()) grads = clipped->grads;
  }
  auto train = ApplyGradients(s, opt, {{grads[0], w}, {grads[1], b}}, step, false);
  EXPECT_TRUE(train.ok()) << train.status().ToString();
  if (!train.ok()) return {};
  InitAllVariables(s.WithOpName("init"));
  auto session = test::NewSession(s);
  EXPECT_TRUE(session->Run({}, {}, {"init"}).ok());
  for (int step = 0; step < kSteps; ++step) {
    auto out = session->Run({}, {}, {train->name()});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
  }
  std::vector<double> got = test::AsDoubles<float>(test::Fetch(session.get(), "w"));
  got.push_back(test::AsDoubles<float>(test::Fetch(session.get(), "b"))[0]);
  return got;
}

std::string FloatList(const std::vector<float>& v) {
  std::ostringstream out;
  out.precision(9);
  for (float f : v) out << f << ",";
  return out.str();
}

// w and b after kSteps steps of `make_optimizer` (Python, over params) in
// PyTorch; empty, with the test failed, if the script fails.
std::vector<double> TrainInTorch(const std::string& make_optimizer, const Extras& extras = {}) {
  std::string clip, schedule;
  if (extras.clip_norm > 0) {
    clip = "    torch.nn.utils.clip_grad_norm_(params, " + std::to_string(extras.clip_norm) + ")\n";
  }
  std::string make_schedule = "None\n";
  if (extras.decay_steps > 0) {
    const std::string n = std::to_string(extras.decay_steps);
    const std::string rate = std::to_string(extras.decay_rate);
    make_schedule = extras.staircase
                        ? "torch.optim.lr_scheduler.StepLR(opt, step_size=" + n + ", gamma=" + rate +
                              ")\n"
                        : "torch.optim.lr_scheduler.LambdaLR(opt, lambda k: " + rate + " ** (k / " +
                              n + "))\n";
    schedule = "    schedule.step()\n";
  }
  char dir[] = "/tmp/tact_torch_XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  const std::string script = std::string(dir) + "/train.py";
  std::ofstream(script) << "import torch\n"
                        << "torch.set_num_threads(1)\n"
                        << "x = torch.tensor([" << FloatList(X()) << "]).reshape(" << kRows
                        << ", " << kCols << ")\n"
                        << "y = torch.tensor([" << FloatList(Y()) << "]).reshape(" << kRows
                        << ", 1)\n"
                        << "w = torch.tensor([" << FloatList(kW0) << "]).reshape(" << kCols
                        << ", 1).requires_grad_()\n"
                        << "b = torch.tensor(" << kB0 << ").requires_grad_()\n"
                        << "params = [w, b]\n"
                        << "opt = " << make_optimizer << "\n"
                        << "schedule = " << make_schedule
                        << "for _ in range(" << kSteps << "):\n"
                        << "    opt.zero_grad()\n"
                        << "    ((x @ w + b - y) ** 2).mean().backward()\n"
                        << clip << "    opt.step()\n"
                        << schedule
                        << "print(' '.join(repr(float(v)) for v in list(w.detach().ravel()) + [b]))\n";
  test::CommandResult r = test::RunCommand("/usr/bin/python3 " + script + " 2>&1");
  std::system(("rm -rf " + std::string(dir)).c_str());
  EXPECT_EQ(r.status, 0) << r.out;
  std::vector<double> got;
  std::istringstream in(r.out);
  for (double v; in >> v;) got.push_back(v);
  EXPECT_EQ(got.size(), static_cast<size_t>(kCols + 1)) << r.out;
  return got;
}

class OptimizersTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test::RunCommand("/usr/bin/python3 -c 'import torch' 2>&1").status != 0) {
      GTEST_SKIP() << "PyTorch is not installed (scripts/setup_peers.sh installs it)";
    }
  }
  void ExpectSameTrajectory(const Optimizer& opt, const std::string& torch_optimizer,
                            const Extras& extras = {}) {
    SCOPED_TRACE(torch_optimizer);
    const std::vector<double> tact = TrainInTact(opt, extras);
    const std::vector<double> torch = TrainInTorch(torch_optimizer, extras);
    ASSERT_EQ(tact.size(), torch.size());
    // The weights move by 0.1 to 1 over the run, so a wrong update in any
    // step shows far above this.
    for (size_t i = 0; i < tact.size(); ++i) {
      EXPECT_NEAR(tact[i], torch[i], 2e-5 * (1 + std::abs(torch[i]))) << "parameter " << i;
    }
    double moved = 0;
    for (int i = 0; i < kCols; ++i) moved += std::abs(torch[i] - kW0[i]);
    EXPECT_GT(moved, 0.05) << "the problem did not train, so it compares nothing";
  }
};

TEST_F(OptimizersTorchTest, GradientDescent) {
  ExpectSameTrajectory(Optimizer::GradientDescent(0.1), "torch.optim.SGD(params, lr=0.1)");
}

TEST_F(OptimizersTorchTest, MomentumPlainAndNesterov) {
  ExpectSameTrajectory(Optimizer::Momentum(0.05, 0.9),
                       "torch.optim.SGD(params, lr=0.05, momentum=0.9)");
  ExpectSameTrajectory(Optimizer::Momentum(0.05, 0.9, /*use_nesterov=*/true),
                       "torch.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True)");
}

TEST_F(OptimizersTorchTest, Adam) {
  ExpectSameTrajectory(Optimizer::Adam(0.05, 0.9, 0.999, 1e-8),
                       "torch.optim.Adam(params, lr=0.05, betas=(0.9, 0.999), eps=1e-8)");
}

TEST_F(OptimizersTorchTest, RMSPropWithAndWithoutMomentum) {
  ExpectSameTrajectory(Optimizer::RMSProp(0.01, 0.9, 0.0, 0.0),
                       "torch.optim.RMSprop(params, lr=0.01, alpha=0.9, eps=0.0)");
  ExpectSameTrajectory(Optimizer::RMSProp(0.01, 0.9, 0.5, 0.0),
                       "torch.optim.RMSprop(params, lr=0.01, alpha=0.9, eps=0.0, momentum=0.5)");
}

TEST_F(OptimizersTorchTest, AdagradWithKerasDefaults) {
  ExpectSameTrajectory(
      Optimizer::Adagrad(0.1),
      "torch.optim.Adagrad(params, lr=0.1, initial_accumulator_value=0.1, eps=1e-7)");
}

TEST_F(OptimizersTorchTest, StaircaseAndSmoothExponentialDecay) {
  for (bool staircase : {true, false}) {
    Extras e;
    e.decay_steps = 7;
    e.decay_rate = 0.5;
    e.staircase = staircase;
    ExpectSameTrajectory(Optimizer::Momentum(0.1, 0.9),
                         "torch.optim.SGD(params, lr=0.1, momentum=0.9)", e);
    ExpectSameTrajectory(Optimizer::Adam(0.05, 0.9, 0.999, 1e-8),
                         "torch.optim.Adam(params, lr=0.05, betas=(0.9, 0.999), eps=1e-8)", e);
  }
}

// A norm below the gradients' (about 1-3 in the first steps), so most
// steps are clipped.
TEST_F(OptimizersTorchTest, ClippingByTheGlobalNorm) {
  Extras e;
  e.clip_norm = 0.5;
  ExpectSameTrajectory(Optimizer::GradientDescent(0.2), "torch.optim.SGD(params, lr=0.2)", e);
  ExpectSameTrajectory(Optimizer::Momentum(0.05, 0.9),
                       "torch.optim.SGD(params, lr=0.05, momentum=0.9)", e);
}

}  // namespace
}  // namespace tact
