// The optimizers' sparse updates of an embedding table (graph/nn/optimizers.h):
// an embedding trained for several steps on ids that change from step to
// step (rows picked twice, rows picked in one step and not the next), with
// sparse_updates on and off, each against the same training written as
// plain double loops with TensorFlow's sparse or dense formulas; the ops
// each path builds; the dense gradient left uncomputed; and the cases that
// stay dense; and the sparse path against PyTorch's nn.Embedding(sparse=True)
// with SGD, Adagrad and SparseAdam (lazy Adam), its optimizers that take
// sparse gradients with TensorFlow's formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "graph/gradients/gradients.h"
#include "graph/nn/initializers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/torch_reference.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

constexpr int kVocab = 12, kDim = 4, kBatch = 6, kSteps = 6;

// Each step's ids: rows repeat within a step, and rows come and go.
std::vector<int32_t> Ids(int step) {
  std::vector<int32_t> ids(kBatch);
  for (int p = 0; p < kBatch; ++p) ids[p] = (step * 5 + (p % 4) * 3) % kVocab;
  return ids;
}
// Exact in float, so every computation of them gives the same bits.
double Table0(int i) { return (((i * 7) % 13) - 6) / 8.0; }
double Target(int i) { return (((i * 5) % 11) - 4) / 32.0; }

struct Trained {
  std::vector<double> table;
  std::set<std::string> ops;
  int dense_gradient_consumers = -1;  // data edges out of Gather's UnsortedSegmentSum
};

// loss = mean((Gather(table, ids) - target)^2) (+ l2 * L2Loss(table)),
// trained for kSteps steps by `opt`.
Trained TrainInTact(const Optimizer& opt, double l2 = 0, bool check_numerics = false,
                    double target_nan_at = -1) {
  Scope s = Scope::NewRootScope();
  Output table = VariableWithInit(s, "table", TensorShape({kVocab, kDim}),
                                  [](const Scope& is, const TensorShape&, DataType) {
                                    std::vector<float> v(kVocab * kDim);
                                    for (int i = 0; i < kVocab * kDim; ++i) v[i] = Table0(i);
                                    return Const(is, Tensor::FromVector<float>(v, {kVocab, kDim}));
                                  });
  std::vector<float> target(kBatch * kDim);
  for (int i = 0; i < kBatch * kDim; ++i) target[i] = Target(i);
  if (target_nan_at >= 0) target[static_cast<int>(target_nan_at)] = std::nanf("");
  auto ids = Placeholder(s.WithOpName("ids"), DT_INT32);
  Output diff = Sub(s, Gather(s, table, ids), Const(s, Tensor::FromVector<float>(target, {kBatch, kDim})));
  Output loss = Mean(s, Square(s, diff), {0, 1});
  if (l2 > 0) loss = Add(s, loss, Mul(s, L2Loss(s, table), static_cast<float>(l2)));
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(s, {loss}, {table}, {}, &grads).ok());
  auto train = ApplyGradients(s, opt, {{grads[0], table}}, Output(), check_numerics);
  EXPECT_TRUE(train.ok()) << train.status().ToString();
  InitAllVariables(s.WithOpName("init"));
  Trained out;
  for (Node* n : s.graph()->nodes()) {
    out.ops.insert(n->op());
    if (n->op() == "UnsortedSegmentSum" && n == grads[0].node) {
      out.dense_gradient_consumers = 0;
      for (const Edge* e : n->out_edges()) out.dense_gradient_consumers += !e->IsControlEdge();
    }
  }
  auto session = test::NewSession(s);
  EXPECT_TRUE(session->Run({}, {}, {"init"}).ok());
  for (int step = 0; step < kSteps; ++step) {
    auto r = session->Run({{"ids", Tensor::FromVector<int32_t>(Ids(step))}}, {}, {train->name()});
    if (!r.ok()) {
      out.ops.insert("<failed: " + r.status().ToString() + ">");
      break;
    }
  }
  out.table = test::AsDoubles<float>(test::Fetch(session.get(), "table"));
  return out;
}

// The same training in double, TensorFlow's formulas: dense updates every
// row from the dense gradient; sparse updates each picked row once with its
// summed gradient and leaves the others (and their slots) alone.
std::vector<double> TrainInDoubles(const Optimizer& o, bool sparse) {
  std::vector<double> t(kVocab * kDim), a(t.size(), 0), b(t.size(), 0);
  for (int i = 0; i < kVocab * kDim; ++i) t[i] = Table0(i);
  if (o.kind == Optimizer::Kind::kAdagrad) a.assign(t.size(), o.initial_accumulator_value);
  const double lr = static_cast<float>(o.learning_rate);
  double beta1_power = o.beta1, beta2_power = o.beta2;
  for (int step = 0; step < kSteps; ++step) {
    const std::vector<int32_t> ids = Ids(step);
    std::vector<double> g(t.size(), 0);
    std::set<int> picked;
    for (int p = 0; p < kBatch; ++p) {
      picked.insert(ids[p]);
      for (int j = 0; j < kDim; ++j) {
        g[ids[p] * kDim + j] += 2 * (t[ids[p] * kDim + j] - Target(p * kDim + j)) /
                                (kBatch * kDim);
      }
    }
    for (int i = 0; i < kVocab * kDim; ++i) {
      if (sparse && picked.count(i / kDim) == 0) continue;
      switch (o.kind) {
        case Optimizer::Kind::kGradientDescent:
          t[i] -= lr * g[i];
          break;
        case Optimizer::Kind::kMomentum:
          a[i] = a[i] * o.momentum + g[i];
          t[i] -= lr * a[i];
          break;
        case Optimizer::Kind::kRMSProp:
          a[i] += (g[i] * g[i] - a[i]) * (1 - o.rho);
          b[i] = b[i] * o.momentum + lr * g[i] / std::sqrt(a[i] + o.epsilon);
          t[i] -= b[i];
          break;
        case Optimizer::Kind::kAdagrad:
          a[i] += g[i] * g[i];
          t[i] -= lr * g[i] / (std::sqrt(a[i]) + o.epsilon);
          break;
        case Optimizer::Kind::kAdam: {
          const double lr_t = lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
          a[i] += (g[i] - a[i]) * (1 - o.beta1);
          b[i] += (g[i] * g[i] - b[i]) * (1 - o.beta2);
          t[i] -= lr_t * a[i] / (std::sqrt(b[i]) + o.epsilon);
          break;
        }
      }
    }
    beta1_power *= o.beta1;
    beta2_power *= o.beta2;
  }
  return t;
}

Optimizer Dense(Optimizer o) {
  o.sparse_updates = false;
  return o;
}

Optimizer Lazy(Optimizer o) {
  o.lazy_adam = true;
  return o;
}

const std::map<std::string, Optimizer>& Optimizers() {
  static const auto* all = new std::map<std::string, Optimizer>{
      {"GradientDescent", Optimizer::GradientDescent(0.5)},
      {"Momentum", Optimizer::Momentum(0.2, 0.9)},
      {"RMSProp", Optimizer::RMSProp(0.05, 0.9, 0.5, 1e-3)},
      {"Adagrad", Optimizer::Adagrad(0.3)},
      {"Adam", Optimizer::Adam(0.05)},
      {"LazyAdam", Lazy(Optimizer::Adam(0.05))},
  };
  return *all;
}

TEST(SparseOptimizersTest, EachBuildsItsSparseUpdateAndLeavesTheDenseGradientUncomputed) {
  const std::map<std::string, std::string> sparse_op = {{"GradientDescent", "ScatterSub"},
                                                        {"Momentum", "SparseApplyMomentum"},
                                                        {"RMSProp", "SparseApplyRMSProp"},
                                                        {"Adagrad", "SparseApplyAdagradV2"},
                                                        {"Adam", "ApplyAdam"},
                                                        {"LazyAdam", "ScatterUpdate"}};
  const std::map<std::string, std::string> dense_op = {{"GradientDescent", "ApplyGradientDescent"},
                                                       {"Momentum", "ApplyMomentum"},
                                                       {"RMSProp", "ApplyRMSProp"},
                                                       {"Adagrad", "ApplyAdagradV2"},
                                                       {"Adam", "ApplyAdam"},
                                                       {"LazyAdam", "ApplyAdam"}};
  for (const auto& [name, opt] : Optimizers()) {
    SCOPED_TRACE(name);
    Trained sparse = TrainInTact(opt);
    EXPECT_EQ(sparse.ops.count(sparse_op.at(name)), 1u);
    if (name != "Adam") {
      EXPECT_EQ(sparse.ops.count(dense_op.at(name)), 0u);
      // Nothing reads the dense [12, 4] gradient, so no step computes it.
      EXPECT_EQ(sparse.dense_gradient_consumers, 0);
    }
    Trained dense = TrainInTact(Dense(opt));
    EXPECT_EQ(dense.ops.count(dense_op.at(name)), 1u);
    EXPECT_EQ(dense.ops.count(sparse_op.at(name)), name == "Adam" ? 1u : 0u);
    EXPECT_EQ(dense.dense_gradient_consumers, 1);
  }
}

TEST(SparseOptimizersTest, SparseAndDenseEachMatchTheirFormulas) {
  for (const auto& [name, opt] : Optimizers()) {
    SCOPED_TRACE(name);
    const std::vector<double> want_sparse = TrainInDoubles(opt, name != "Adam");
    const std::vector<double> want_dense = TrainInDoubles(opt, false);
    test::ExpectNear(TrainInTact(opt).table, want_sparse, 2e-5);
    test::ExpectNear(TrainInTact(Dense(opt)).table, want_dense, 2e-5);
    double moved = 0, apart = 0;
    for (int i = 0; i < kVocab * kDim; ++i) {
      moved += std::abs(want_sparse[i] - Table0(i));
      apart += std::abs(want_sparse[i] - want_dense[i]);
    }
    EXPECT_GT(moved, 0.1) << "the table did not train, so this compares nothing";
    // GradientDescent and Adagrad leave a row without gradient alone either
    // way; Momentum, RMSProp and lazy Adam move it densely (their slots
    // decay); Adam is dense either way.
    const bool same = name == "GradientDescent" || name == "Adagrad" || name == "Adam";
    if (same) {
      EXPECT_LT(apart, 1e-9);
    } else {
      EXPECT_GT(apart, 1e-3);
    }
  }
}

TEST(SparseOptimizersTest, ANonFiniteGradientStopsTheSparseStepBeforeAnyRowChanges) {
  // Target element 1 (batch position 0) is NaN: the first step's gradient
  // of row Ids(0)[0] is NaN, and the check fails that step.
  Trained t = TrainInTact(Optimizer::Momentum(0.2, 0.9), 0, /*check_numerics=*/true, 1);
  bool failed = false;
  for (const std::string& op : t.ops) {
    if (op.rfind("<failed: ", 0) != 0) continue;
    failed = true;
    EXPECT_NE(op.find("gradient for table"), std::string::npos) << op;
    EXPECT_NE(op.find("NaN"), std::string::npos) << op;
  }
  EXPECT_TRUE(failed);
  for (int i = 0; i < kVocab * kDim; ++i) EXPECT_EQ(t.table[i], Table0(i)) << i;
}

TEST(SparseOptimizersTest, GatherV2AlongAxisZeroIsSparseAndAlongAnotherDense) {
  // tf.gather's op: along a constant axis 0 it is an embedding lookup.
  for (int axis : {0, 1}) {
    Scope s = Scope::NewRootScope();
    Output table = VariableWithInit(s, "table", TensorShape({kVocab, kDim}), ConstantInit(0.5));
    Output loss = Sum(s, GatherV2(s, table, Tensor::FromVector<int32_t>({1, 3, 1}), axis), {0, 1});
    std::vector<Output> grads;
    ASSERT_TRUE(AddSymbolicGradients(s, {loss}, {table}, {}, &grads).ok());
    auto train = ApplyGradients(s, Optimizer::GradientDescent(0.5), {{grads[0], table}}, Output(), false);
    ASSERT_TRUE(train.ok()) << train.status().ToString();
    InitAllVariables(s.WithOpName("init"));
    std::set<std::string> ops;
    for (Node* n : s.graph()->nodes()) ops.insert(n->op());
    EXPECT_EQ(ops.count("ScatterSub"), axis == 0 ? 1u : 0u) << "axis " << axis;
    auto session = test::NewSession(s);
    ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
    ASSERT_TRUE(session->Run({}, {}, {train->node->name()}).ok());
    // Each picked row or column moves by lr times the times it was picked.
    std::vector<double> want(kVocab * kDim, 0.5);
    for (int r = 0; r < kVocab; ++r) {
      for (int c = 0; c < kDim; ++c) {
        const int picked = axis == 0 ? (r == 1) * 2 + (r == 3) : (c == 1) * 2 + (c == 3);
        want[r * kDim + c] -= 0.5 * picked;
      }
    }
    test::ExpectNear(test::AsDoubles<float>(test::Fetch(session.get(), "table")), want, 1e-6);
  }
}

TEST(SparseOptimizersTest, ATableWithAnotherConsumerTrainsDensely) {
  // An L2 penalty on the whole table adds a dense gradient to Gather's:
  // the sum is dense, and so is the update.
  Trained t = TrainInTact(Optimizer::GradientDescent(0.5), /*l2=*/0.01);
  EXPECT_EQ(t.ops.count("ScatterSub"), 0u);
  EXPECT_EQ(t.ops.count("ApplyGradientDescent"), 1u);
  double moved = 0;
  for (int i = 0; i < kVocab * kDim; ++i) moved += std::abs(t.table[i] - Table0(i));
  EXPECT_GT(moved, 0.1);
}

// The table after the same training in PyTorch, `make_optimizer` building
// the optimizer over `params`; empty, with the test failed, if it fails.
std::vector<double> TrainInTorch(const std::string& make_optimizer) {
  std::ostringstream table, target, steps;
  table.precision(17);
  target.precision(17);
  for (int i = 0; i < kVocab * kDim; ++i) table << Table0(i) << ",";
  for (int i = 0; i < kBatch * kDim; ++i) target << Target(i) << ",";
  for (int step = 0; step < kSteps; ++step) {
    steps << "[";
    for (int32_t id : Ids(step)) steps << id << ",";
    steps << "],";
  }
  std::ostringstream script;
  script << test::kTorchPreamble
         << "emb = torch.nn.Embedding(" << kVocab << ", " << kDim << ", sparse=True)\n"
         << "with torch.no_grad():\n"
         << "    emb.weight.copy_(torch.tensor([" << table.str() << "]).reshape(" << kVocab << ", "
         << kDim << "))\n"
         << "target = torch.tensor([" << target.str() << "]).reshape(" << kBatch << ", " << kDim
         << ")\n"
         << "params = emb.parameters()\n"
         << "opt = " << make_optimizer << "\n"
         << "for ids in [" << steps.str() << "]:\n"
         << "    opt.zero_grad()\n"
         << "    ((emb(torch.tensor(ids)) - target) ** 2).mean().backward()\n"
         << "    assert emb.weight.grad.is_sparse\n"
         << "    opt.step()\n"
         << "out(emb.weight)\n";
  auto lines = test::RunTorchScript(script.str());
  EXPECT_TRUE(lines.ok()) << lines.status().ToString();
  if (!lines.ok() || lines->size() != 1) return {};
  EXPECT_EQ((*lines)[0].size(), static_cast<size_t>(kVocab * kDim));
  return (*lines)[0];
}

TEST(SparseOptimizersTest, SparseUpdatesMatchPyTorchsSparseEmbedding) {
  if (!test::TorchAvailable()) {
    GTEST_SKIP() << "PyTorch is not installed (scripts/setup_peers.sh installs it)";
  }
  const std::vector<std::pair<Optimizer, std::string>> cases = {
      {Optimizer::GradientDescent(0.5), "torch.optim.SGD(params, lr=0.5)"},
      {Optimizer::Adagrad(0.3), "torch.optim.Adagrad(params, lr=0.3, initial_accumulator_value=0.1, "
                                "eps=1e-7)"},
      {Lazy(Optimizer::Adam(0.05)), "torch.optim.SparseAdam(params, lr=0.05, eps=1e-7)"}};
  for (const auto& [opt, torch_optimizer] : cases) {
    SCOPED_TRACE(torch_optimizer);
    Trained tact = TrainInTact(opt);
    ASSERT_EQ(tact.ops.count(opt.kind == Optimizer::Kind::kAdagrad ? "SparseApplyAdagradV2"
                                                                   : "ScatterSub"),
              1u);
    EXPECT_EQ(tact.ops.count("ApplyAdam"), 0u);
    const std::vector<double> torch = TrainInTorch(torch_optimizer);
    ASSERT_EQ(torch.size(), tact.table.size());
    double moved = 0;
    for (size_t i = 0; i < torch.size(); ++i) {
      EXPECT_NEAR(tact.table[i], torch[i], 2e-6 * (1 + std::abs(torch[i]))) << "element " << i;
      moved += std::abs(torch[i] - Table0(static_cast<int>(i)));
    }
    EXPECT_GT(moved, 0.1) << "the table did not train, so this compares nothing";
  }
}

}  // namespace
}  // namespace tact
