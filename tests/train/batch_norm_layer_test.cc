// The BatchNormalization layer through a Session: training normalises by the
// batch's statistics and moves the running averages as Keras does; inference
// normalises by the averages and leaves them; the fed mode runs only one
// mode and gives the bool overload's values and gradients; only gamma and
// beta are trainable; bad arguments are named.
#include <cmath>

#include "graph/gradients/gradients.h"
#include "graph/nn/layers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

using test::AsDoubles;
using test::Fetch;

constexpr double kMomentum = 0.9, kEps = 1e-3;

// [rows, c] row-major, in double: per-channel mean and biased variance.
void Moments(const std::vector<double>& x, int64_t c, std::vector<double>* mean,
             std::vector<double>* var) {
  const int64_t rows = static_cast<int64_t>(x.size()) / c;
  mean->assign(c, 0);
  var->assign(c, 0);
  for (int64_t i = 0; i < rows * c; ++i) (*mean)[i % c] += x[i] / rows;
  for (int64_t i = 0; i < rows * c; ++i) (*var)[i % c] += std::pow(x[i] - (*mean)[i % c], 2) / rows;
}

std::vector<double> Normalise(const std::vector<double>& x, const std::vector<double>& mean,
                              const std::vector<double>& var) {
  const size_t c = mean.size();
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = (x[i] - mean[i % c]) / std::sqrt(var[i % c] + kEps);
  return y;
}

Tensor Batch(int64_t rows, int64_t c, int seed) {
  std::vector<float> v(rows * c);
  for (int64_t i = 0; i < rows * c; ++i) {
    v[i] = static_cast<float>(std::sin(seed * 7.1 + i * 1.3) * (1 + i % c) + (i % c) * 2.0);
  }
  return Tensor::FromVector<float>(v, TensorShape({rows, c}));
}

struct Graph {
  Scope s = Scope::NewRootScope();
  Output x, training, y;
};

// y = BatchNormalization(x [-1, 3]) with the mode fed, under "y".
Graph FedGraph() {
  Graph g;
  g.x = Placeholder(g.s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 3}));
  g.training = Placeholder(g.s.WithOpName("training"), DT_BOOL, PartialTensorShape({}));
  g.y = Identity(g.s.WithOpName("y"), BatchNormalization(g.s, g.x, g.training, kMomentum, kEps));
  InitAllVariables(g.s.WithOpName("init"));
  return g;
}

std::vector<double> Var(Session* session, const char* name) {
  return AsDoubles<float>(Fetch(session, std::string("batch_normalization/") + name));
}

TEST(BatchNormLayerTest, TrainingMovesTheAveragesAndInferenceUsesThem) {
  Graph g = FedGraph();
  // The layers after this one see x's static shape.
  EXPECT_EQ(g.y.node->output_shape(0).DebugString(), "[?,3]");
  auto session = test::NewSession(g.s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  std::vector<double> moving_mean(3, 0), moving_var(3, 1);
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    Tensor x = Batch(8, 3, step);
    auto y = AsDoubles<float>(
        Fetch(session.get(), "y", {{"x", x}, {"training", Tensor::Scalar<bool>(true)}}));
    std::vector<double> mean, var;
    Moments(AsDoubles<float>(x), 3, &mean, &var);
    test::ExpectNear(y, Normalise(AsDoubles<float>(x), mean, var), 1e-5);
    for (int j = 0; j < 3; ++j) {  // Keras: moving = m * moving + (1 - m) * batch (unbiased)
      moving_mean[j] = kMomentum * moving_mean[j] + (1 - kMomentum) * mean[j];
      moving_var[j] = kMomentum * moving_var[j] + (1 - kMomentum) * var[j] * 8 / 7;
    }
    test::ExpectNear(Var(session.get(), "moving_mean"), moving_mean, 1e-6);
    test::ExpectNear(Var(session.get(), "moving_variance"), moving_var, 1e-6);
  }
  Tensor x = Batch(5, 3, 9);
  auto y = AsDoubles<float>(Fetch(session.get(), "y", {{"x", x}, {"training", Tensor::Scalar<bool>(false)}}));
  test::ExpectNear(y, Normalise(AsDoubles<float>(x), moving_mean, moving_var), 1e-5);
  test::ExpectNear(Var(session.get(), "moving_mean"), moving_mean, 1e-6);
  test::ExpectNear(Var(session.get(), "moving_variance"), moving_var, 1e-6);
}

// The bool overload, each mode built alone, gives the fed graph's y and
// gradients; images (rank 4) take the fused op directly.
TEST(BatchNormLayerTest, TheFedModeMatchesEachBuiltModeWithItsGradients) {
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "inference");
    std::vector<std::vector<double>> results;
    for (bool fed : {true, false}) {
      Scope s = Scope::NewRootScope();
      Output x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 2, 2, 3}));
      Output flag = Placeholder(s.WithOpName("training"), DT_BOOL, PartialTensorShape({}));
      Output y = fed ? BatchNormalization(s, x, flag) : BatchNormalization(s, x, training);
      Output w = Const(s, Tensor::FromVector<float>({0.5f, -1.5f, 2.0f}));
      Output loss = Sum(s, Square(s, Mul(s, y, w)), {0, 1, 2, 3});
      std::vector<VariableInfo> vars = TrainableVariables(s);
      ASSERT_EQ(vars.size(), 2u);
      std::vector<Output> grads;
      ASSERT_TRUE(AddSymbolicGradients(s, {loss}, {x, vars[0].var, vars[1].var}, {}, &grads).ok());
      for (size_t i = 0; i < grads.size(); ++i) Identity(s.WithOpName("g" + std::to_string(i)), grads[i]);
      Identity(s.WithOpName("y"), y);
      InitAllVariables(s.WithOpName("init"));
      auto session = test::NewSession(s);
      ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
      const Tensor rows = Batch(12, 3, 4);
      const float* v = rows.data<float>();
      std::vector<std::pair<std::string, Tensor>> feeds = {
          {"x", Tensor::FromVector<float>(std::vector<float>(v, v + 36), TensorShape({3, 2, 2, 3}))},
          {"training", Tensor::Scalar<bool>(training)}};
      if (!fed) feeds.pop_back();
      auto out = session->Run(feeds, {"y", "g0", "g1", "g2"}, {});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      std::vector<double> all;
      for (const Tensor& t : *out) {
        auto v = AsDoubles<float>(t);
        all.insert(all.end(), v.begin(), v.end());
      }
      results.push_back(all);
    }
    EXPECT_EQ(results[0], results[1]);
  }
}

// A Const mode (the inference graph's) builds that mode alone: no Switch,
// and no assignment in inference, so the graph freezes.
TEST(BatchNormLayerTest, AConstantModeBuildsThatModeAlone) {
  for (bool training : {true, false}) {
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({-1, 3}));
    BatchNormalization(s, x, Const(s, Tensor::Scalar<bool>(training)));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    int switches = 0, assigns = 0;
    for (const Node* n : s.graph()->nodes()) {
      switches += n->op() == "Switch";
      assigns += n->op() == "Assign" && n->name().find("update_moving") != std::string::npos;
    }
    EXPECT_EQ(switches, 0);
    EXPECT_EQ(assigns, training ? 2 : 0);
  }
}

TEST(BatchNormLayerTest, OnlyGammaAndBetaAreTrainable) {
  Graph g = FedGraph();
  std::vector<std::string> all, trainable;
  for (const VariableInfo& v : AllVariables(g.s)) all.push_back(v.name);
  for (const VariableInfo& v : TrainableVariables(g.s)) trainable.push_back(v.name);
  EXPECT_EQ(all, (std::vector<std::string>{"batch_normalization/gamma", "batch_normalization/beta",
                                           "batch_normalization/moving_mean",
                                           "batch_normalization/moving_variance"}));
  EXPECT_EQ(trainable,
            (std::vector<std::string>{"batch_normalization/gamma", "batch_normalization/beta"}));
  EXPECT_EQ(CountParameters(g.s), 6);
}

void ExpectError(const Status& st, const std::string& substring) {
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.ToString().find(substring), std::string::npos) << st.ToString();
}

TEST(BatchNormLayerTest, BadArgumentsAreNamed) {
  auto error_of = [](auto build) {
    Scope s = Scope::NewRootScope();
    build(s);
    return s.status();
  };
  ExpectError(error_of([](const Scope& s) {
                      auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({-1, 3}));
                      BatchNormalization(s, x, Placeholder(s, DT_INT32, PartialTensorShape({})));
                    }),
                    "batch_normalization: training must be a bool scalar, got int32");
  ExpectError(error_of([](const Scope& s) {
                      auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({1, 2, 3, 4, 5}));
                      BatchNormalization(s, x, true);
                    }),
                    "must have rank 2 to 4, has shape [1,2,3,4,5]");
  ExpectError(error_of([](const Scope& s) {
                      auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({4, -1}));
                      BatchNormalization(s, x, true);
                    }),
                    "batch_normalization: dimension -1 of input");
  ExpectError(error_of([](const Scope& s) {
                      auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({4, 3}));
                      BatchNormalization(s, x, true, 1.5);
                    }),
                    "momentum must lie in [0, 1] and epsilon be > 0, got 1.5");
}

}  // namespace
}  // namespace tact
