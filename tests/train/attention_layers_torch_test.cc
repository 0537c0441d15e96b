// LayerNormalization and MultiHeadAttention (graph/nn/attention.h) against
// the same formulas written in PyTorch (F.layer_norm; projections, a
// masked softmax and products through torch.matmul, not einsum) in
// float64, with the variables' initial values fetched from tact: the
// values, and the gradients of sum(y * c) for a random c with respect to
// the inputs and every trainable variable. Skipped, saying so, where
// PyTorch is not installed (scripts/setup_peers.sh installs it).
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "graph/gradients/gradients.h"
#include "graph/nn/attention.h"
#include "graph/nn/layers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/torch_reference.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

// Doubles uniform in [lo, hi) from `seed`.
Tensor RandomDoubles(const TensorShape& shape, unsigned seed, double lo = -1, double hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(DT_DOUBLE, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(gen);
  return t;
}

class AttentionLayersTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::TorchAvailable()) {
      GTEST_SKIP() << "PyTorch is not installed (scripts/setup_peers.sh installs it)";
    }
  }

  // Builds loss = sum(y * c) beside y, initialises the variables, and
  // returns y, the gradients for `inputs` and then for every trainable
  // variable, each as doubles; the variables' values go to `variables`.
  std::vector<std::vector<double>> Run(const Scope& s, const std::vector<Output>& inputs,
                                       const std::vector<Tensor>& values, Output y,
                                       const Tensor& c, std::vector<Tensor>* variables) {
    Output loss = Sum(s, Mul(s, y, Const(s, c)), {0, 1, 2});
    std::vector<Output> xs = inputs;
    std::vector<std::string> names;
    for (const VariableInfo& v : TrainableVariables(s)) {
      xs.push_back(v.var);
      names.push_back(v.name);
    }
    std::vector<Output> grads;
    EXPECT_TRUE(AddSymbolicGradients(s, {loss}, xs, {}, &grads).ok()) << s.status().ToString();
    InitAllVariables(s.WithOpName("init"));
    auto session = test::NewSession(s);
    EXPECT_TRUE(session->Run({}, {}, {"init"}).ok());
    for (const std::string& name : names) variables->push_back(test::Fetch(session.get(), name));
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(inputs[i].name(), values[i]);
    std::vector<std::string> fetches = {y.name()};
    for (const Output& g : grads) fetches.push_back(g.name());
    auto out = session->Run(feeds, fetches, {});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    std::vector<std::vector<double>> result;
    if (out.ok()) {
      for (const Tensor& t : *out) result.push_back(test::FlatDoubles(t));
    }
    return result;
  }

  void ExpectLinesMatch(const std::vector<std::vector<double>>& tact, const std::string& script) {
    auto torch = test::RunTorchScript(script);
    ASSERT_TRUE(torch.ok()) << torch.status().ToString();
    ASSERT_EQ(torch->size(), tact.size());
    for (size_t i = 0; i < tact.size(); ++i) {
      SCOPED_TRACE(i == 0 ? std::string("values") : "gradient " + std::to_string(i - 1));
      test::ExpectMatches(tact[i], (*torch)[i], 1e-10);
    }
  }
};

TEST_F(AttentionLayersTorchTest, LayerNormalizationMatchesFLayerNorm) {
  Scope s = Scope::NewRootScope();
  const TensorShape shape({4, 3, 6});
  Output x = Placeholder(s.WithOpName("x"), DT_DOUBLE, shape);
  Output y = LayerNormalization(s, x);
  const Tensor xv = RandomDoubles(shape, 1, -3, 3), c = RandomDoubles(shape, 2);
  std::vector<Tensor> vars;
  auto tact = Run(s, {x}, {xv}, y, c, &vars);
  ASSERT_EQ(vars.size(), 2u);  // gamma, beta
  std::ostringstream script;
  script << test::kTorchPreamble << "x = " << test::TorchTensor(xv) << ".requires_grad_()\n"
         << "g = " << test::TorchTensor(vars[0]) << ".requires_grad_()\n"
         << "b = " << test::TorchTensor(vars[1]) << ".requires_grad_()\n"
         << "y = F.layer_norm(x, (6,), g, b, eps=1e-3)\nout(y)\n"
         << "(y * " << test::TorchTensor(c) << ").sum().backward()\n"
         << "out(x.grad)\nout(g.grad)\nout(b.grad)\n";
  ExpectLinesMatch(tact, script.str());
}

const char kTorchAttention[] = R"(
import math
def mha(query, value, Wq, bq, Wk, bk, Wv, bv, Wo, bo, causal):
    B, T, D = query.shape
    S, N, H = value.shape[1], bq.shape[0], bq.shape[1]
    def heads(x, W, b, L):
        p = x.reshape(B * L, -1) @ W.reshape(W.shape[0], N * H) + b.reshape(N * H)
        return p.reshape(B, L, N, H).transpose(1, 2)
    q, k, v = heads(query, Wq, bq, T), heads(value, Wk, bk, S), heads(value, Wv, bv, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(H)
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(T, S, dtype=torch.bool), 1), float('-inf'))
    o = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, N * H)
    return o @ Wo.reshape(N * H, Wo.shape[2]) + bo
)";

// Cross-attention (query and value of different lengths and depths), and
// causal self-attention (value is the query).
TEST_F(AttentionLayersTorchTest, MultiHeadAttentionMatchesTheFormulaInPyTorch) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal self-attention" : "cross-attention");
    Scope s = Scope::NewRootScope();
    const TensorShape qshape({2, 5, 8}), vshape({2, 4, 6});
    Output query = Placeholder(s.WithOpName("query"), DT_DOUBLE, qshape);
    Output value = causal ? query : Placeholder(s.WithOpName("value"), DT_DOUBLE, vshape);
    Output y = MultiHeadAttention(s, query, value, /*num_heads=*/2, /*key_dim=*/3, causal, 7);
    const Tensor qv = RandomDoubles(qshape, 3, -2, 2), vv = RandomDoubles(vshape, 4, -2, 2);
    const Tensor c = RandomDoubles(qshape, 5);
    const std::vector<Output> inputs =
        causal ? std::vector<Output>{query} : std::vector<Output>{query, value};
    const std::vector<Tensor> values = causal ? std::vector<Tensor>{qv} : std::vector<Tensor>{qv, vv};
    std::vector<Tensor> vars;
    auto tact = Run(s, inputs, values, y, c, &vars);
    ASSERT_EQ(vars.size(), 8u);  // query, key, value, attention_output: kernel and bias each
    std::ostringstream script;
    script << test::kTorchPreamble << kTorchAttention
           << "query = " << test::TorchTensor(qv) << ".requires_grad_()\n"
           << "value = " << (causal ? "query" : test::TorchTensor(vv) + ".requires_grad_()") << "\n"
           << "w = [";
    for (const Tensor& v : vars) script << test::TorchTensor(v) << ".requires_grad_(), ";
    script << "]\ny = mha(query, value, *w, " << (causal ? "True" : "False") << ")\nout(y)\n"
           << "(y * " << test::TorchTensor(c) << ").sum().backward()\nout(query.grad)\n"
           << (causal ? "" : "out(value.grad)\n") << "for t in w:\n    out(t.grad)\n";
    ExpectLinesMatch(tact, script.str());
  }
}

// The loss after `steps` steps of Adam (the default optimizer, lr 1e-2) fitting
// y = MultiHeadAttention(x, x) to the running mean of x over positions
// 0..t, which attention computes exactly when it attends evenly to the
// visible positions: possible with the causal mask, not without it (the
// inputs carry no position).
double RunningMeanLoss(bool causal, int steps) {
  constexpr int64_t kBatch = 16, kLength = 6, kDepth = 4;
  Scope s = Scope::NewRootScope();
  const Tensor xv = RandomDoubles({kBatch, kLength, kDepth}, 9, -1, 1);
  Tensor target(DT_DOUBLE, xv.shape());
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t d = 0; d < kDepth; ++d) {
      double sum = 0;
      for (int64_t t = 0; t < kLength; ++t) {
        sum += xv.data<double>()[(b * kLength + t) * kDepth + d];
        target.data<double>()[(b * kLength + t) * kDepth + d] = sum / static_cast<double>(t + 1);
      }
    }
  }
  Output x = Const(s, xv);
  Output y = MultiHeadAttention(s, x, x, /*num_heads=*/2, /*key_dim=*/4, causal, 3);
  Output loss = Mean(s.WithOpName("loss"), SquaredDifference(s, y, Const(s, target)), {0, 1, 2});
  GradsAndVars pairs;
  std::vector<Output> vars;
  for (const VariableInfo& v : TrainableVariables(s)) vars.push_back(v.var);
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(s, {loss}, vars, {}, &grads).ok());
  for (size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(grads[i], vars[i]);
  auto train = ApplyGradients(s, Optimizer::Adam(1e-2), pairs, GlobalStep(s), false);
  EXPECT_TRUE(train.ok()) << train.status().ToString();
  InitAllVariables(s.WithOpName("init"));
  auto session = test::NewSession(s);
  EXPECT_TRUE(session->Run({}, {}, {"init"}).ok());
  for (int i = 0; i < steps; ++i) EXPECT_TRUE(session->Run({}, {}, {train->node->name()}).ok());
  return test::Fetch(session.get(), "loss").data<double>()[0];
}

TEST(AttentionLayersTest, CausalSelfAttentionLearnsTheRunningMeanWithAdam) {
  const double start = RunningMeanLoss(true, 0);
  const double causal = RunningMeanLoss(true, 300);
  const double open = RunningMeanLoss(false, 300);
  EXPECT_LT(causal, start / 20) << "start " << start;
  EXPECT_GT(open, causal * 5) << "without the mask the fit should stay poor";
}

TEST(AttentionLayersTest, AnUnknownDepthIsNamed) {
  Scope s = Scope::NewRootScope();
  Output q = Placeholder(s.WithOpName("q"), DT_FLOAT, PartialTensorShape({-1, 5, -1}));
  Output y = MultiHeadAttention(s, q, q, 2, 4);
  EXPECT_FALSE(y.ok());
  EXPECT_NE(s.status().message().find("multi_head_attention: query 'q' must be [batch, length, "
                                      "depth] with a known depth"),
            std::string::npos)
      << s.status().ToString();
}

}  // namespace
}  // namespace tact
