// Batch normalization against PyTorch's F.batch_norm in float64 (NCHW there,
// NHWC here), in training and in inference: y, the running averages after
// one step of momentum 0.1, the gradients of sum(y * w) for x, gamma and
// beta, and a second derivative (d/dx of sum(w * d/dx sum((y * w)^2)), which
// torch.autograd.grad builds with create_graph). Skipped, saying so, where
// PyTorch is not installed.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/gradients/torch_reference.h"

namespace tact {
namespace {

Output GradOf(const Scope& s, Output y, Output x) {
  std::vector<Output> g;
  EXPECT_TRUE(AddSymbolicGradients(s, {y}, {x}, {}, &g).ok());
  return g.empty() ? Output() : g[0];
}

std::string Repr(float v) {
  std::ostringstream out;
  out.precision(17);
  out << static_cast<double>(v);
  return out.str();
}

class BatchNormTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::TorchAvailable()) {
      GTEST_SKIP() << "PyTorch is not installed (scripts/setup_peers.sh installs it)";
    }
  }
};

TEST_F(BatchNormTorchTest, ValuesRunningAveragesAndGradientsMatchPyTorch) {
  const TensorShape shape({4, 3, 3, 5});
  const Tensor x = RandomDoubles(shape, 1, -2, 3), w = RandomDoubles(shape, 6);
  const Tensor gamma = RandomDoubles(TensorShape({5}), 2, 0.5, 2), beta = RandomDoubles(TensorShape({5}), 3);
  const Tensor mean = RandomDoubles(TensorShape({5}), 4), var = RandomDoubles(TensorShape({5}), 5, 0.5, 2);
  const char* const kWhat[] = {"y", "running mean", "running variance", "d/dx", "d/dgamma",
                               "d/dbeta", "second derivative"};
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "inference");
    Scope s = Scope::NewRootScope();
    std::vector<Output> in;
    for (const char* name : {"x", "gamma", "beta", "w"}) {
      in.push_back(Placeholder(s.WithOpName(name), DT_DOUBLE));
    }
    FusedBatchNormOutputs bn = FusedBatchNorm(
        s, in[0], in[1], in[2], Const(s, mean), Const(s, var),
        {.epsilon = 1e-3f, .exponential_avg_factor = 0.1f, .is_training = training});
    Output weighted = Mul(s, bn.y, in[3]);
    std::vector<Output> grads;
    ASSERT_TRUE(AddSymbolicGradients(s, {Sum(s, weighted, {0, 1, 2, 3})}, {in[0], in[1], in[2]},
                                     {}, &grads).ok());
    Output penalty = GradOf(s, Sum(s, Square(s, weighted), {0, 1, 2, 3}), in[0]);
    Output second = GradOf(s, Sum(s, Mul(s, penalty, in[3]), {0, 1, 2, 3}), in[0]);
    auto got = RunGraph(s, in, {x, gamma, beta, w},
                        {bn.y, bn.batch_mean, bn.batch_variance, grads[0], grads[1], grads[2],
                         second});
    ASSERT_TRUE(got.ok()) << got.status().ToString();

    std::ostringstream script;
    script << test::kTorchPreamble
           << "x = " << test::TorchTensor(x) << ".permute(0, 3, 1, 2).requires_grad_()\n"
           << "w = " << test::TorchTensor(w) << ".permute(0, 3, 1, 2)\n"
           << "g = " << test::TorchTensor(gamma) << ".requires_grad_()\n"
           << "b = " << test::TorchTensor(beta) << ".requires_grad_()\n"
           << "rm = " << test::TorchTensor(mean) << "\nrv = " << test::TorchTensor(var) << "\n"
           // The attrs are floats: PyTorch gets the same rounded values.
           << "y = F.batch_norm(x, rm, rv, g, b, training=" << (training ? "True" : "False")
           << ", momentum=" << Repr(0.1f) << ", eps=" << Repr(1e-3f) << ")\n"
           << "nhwc = lambda t: t.permute(0, 2, 3, 1)\n"
           << "out(nhwc(y))\nout(rm)\nout(rv)\n"
           << "for t in torch.autograd.grad((y * w).sum(), [x, g, b], retain_graph=True):\n"
           << "    out(nhwc(t) if t.dim() == 4 else t)\n"
           << "(p,) = torch.autograd.grad(((y * w) ** 2).sum(), [x], create_graph=True)\n"
           << "(d,) = torch.autograd.grad((p * w).sum(), [x])\n"
           << "out(nhwc(d))\n";
    auto torch = test::RunTorchScript(script.str());
    ASSERT_TRUE(torch.ok()) << torch.status().ToString();
    ASSERT_EQ(torch->size(), got->size());
    for (size_t i = 0; i < got->size(); ++i) {
      SCOPED_TRACE(kWhat[i]);
      test::ExpectMatches(test::FlatDoubles((*got)[i]), (*torch)[i], 1e-9);
    }
  }
}

}  // namespace
}  // namespace tact
