// Loops and conditionals across two worker processes (paper 4.4,
// distributed control flow; issue 18 item 4): the loop's control and part
// of its body on one task, the rest of the body on the other, each
// iteration's tensors crossing on the tensor links with the iteration in
// their keys, dead tensors crossing too. Each result equals the same graph
// run in one process.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

#include "actors/session.h"
#include "cluster_test_util.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

constexpr char kTask0[] = "/job:worker/task:0";
constexpr char kTask1[] = "/job:worker/task:1";

using BuildFn = std::function<std::vector<Output>(const Scope& s, bool tasks)>;

Scope On(const Scope& s, bool tasks, const char* task) { return tasks ? s.WithDevice(task) : s; }

std::vector<std::string> Names(const std::vector<Output>& outs) {
  std::vector<std::string> names;
  for (const Output& o : outs) names.push_back(o.name());
  return names;
}

// The graph's fetches in one process.
std::vector<Tensor> RunLocally(const BuildFn& build,
                               const std::vector<std::pair<std::string, Tensor>>& feeds) {
  Scope s = Scope::NewRootScope();
  const std::vector<Output> fetches = build(s, false);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  EXPECT_TRUE(session.ok());
  EXPECT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  auto out = (*session)->Run(feeds, Names(fetches), {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<Tensor>();
}

void ExpectSame(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape()) << i;
    EXPECT_TRUE(a[i].BitwiseEqual(b[i])) << i;
  }
}

class ControlFlowClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = test_util::StartCluster({{"worker", 2}});
    ASSERT_NE(cluster_, nullptr);
  }

  // Runs the graph on the cluster `runs` times, each equal to one process.
  void ExpectLikeOneProcess(const BuildFn& build,
                            const std::vector<std::vector<std::pair<std::string, Tensor>>>& feed_sets) {
    Scope s = Scope::NewRootScope();
    const std::vector<Output> fetches = build(s, true);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto session = test_util::Connect(*cluster_, *s.ToGraphDef());
    ASSERT_NE(session, nullptr);
    for (const auto& feeds : feed_sets) {
      RunMetadata meta;
      auto out = session->Run(feeds, Names(fetches), {}, &meta);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ExpectSame(*out, RunLocally(build, feeds));
      std::set<std::string> tasks;
      for (const NodeExecStats& n : meta.step_stats.nodes()) {
        tasks.insert(n.device.substr(0, n.device.find("/device:")));
      }
      EXPECT_EQ(tasks.size(), 2u) << "the step ran on both processes";
    }
  }

  std::unique_ptr<apps::LocalCluster> cluster_;
};

// x = tanh(W x), 30 times, x of 4 x 4096 floats (64 KiB: lent between
// the processes each iteration): the MatMul on task 1, the rest on task 0.
TEST_F(ControlFlowClusterTest, LoopBodyOnTwoProcesses) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0, 0.4f);
  std::vector<float> w(16), x(4 * 4096);
  for (float& v : w) v = normal(rng);
  for (float& v : x) v = normal(rng);
  for (int parallel : {1, 10}) {
    BuildFn build = [&](const Scope& s, bool tasks) {
      auto W = Const(On(s, tasks, kTask1), Tensor::FromVector<float>(w, {4, 4}));
      auto x0 = Const(On(s, tasks, kTask0), Tensor::FromVector<float>(x, {4, 4096}));
      auto n = Placeholder(s.WithOpName("n"), DT_INT32);
      return WhileLoop(
          On(s, tasks, kTask0), {Const(s, Tensor::Scalar<int32_t>(0)), x0},
          [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
          [&](const Scope& b, const std::vector<Output>& v) {
            auto m = MatMul(On(b, tasks, kTask1), W, v[1]);
            return std::vector<Output>{Add(b, v[0], 1), Tanh(On(b, tasks, kTask0), m)};
          },
          WhileOptions{"chain", parallel});
    };
    ExpectLikeOneProcess(build, {{{"n", Tensor::Scalar<int32_t>(30)}},
                                 {{"n", Tensor::Scalar<int32_t>(0)}},
                                 {{"n", Tensor::Scalar<int32_t>(3)}}});
  }
}

// A loop on one worker that would not end (its bound fed as 2^31 - 1)
// stops at the Run's timeout and answers the abort: the worker does not
// spin on after the client has its DeadlineExceeded, and the next Run of
// the loop on the same worker ends with its value.
TEST_F(ControlFlowClusterTest, AnEndlessLoopOnAWorkerStopsAtTheRunsTimeout) {
  Scope s = Scope::NewRootScope();
  auto n = Placeholder(s.WithOpName("n"), DT_INT32);
  const Scope there = s.WithDevice(kTask1);
  auto r = WhileLoop(
      there, {Const(there, Tensor::Scalar<int32_t>(0))},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
      [&](const Scope& b, const std::vector<Output>& v) { return std::vector<Output>{Add(b, v[0], 1)}; });
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto session = test_util::Connect(*cluster_, *s.ToGraphDef());
  ASSERT_NE(session, nullptr);
  RunOptions timeout;
  timeout.timeout_ms = 300;
  const Tensor forever = Tensor::Scalar<int32_t>(2147483647);
  auto endless = session->Run(timeout, {{"n", forever}}, {r[0].name()}, {}, nullptr);
  ASSERT_FALSE(endless.ok());
  EXPECT_EQ(endless.status().code(), Code::kDeadlineExceeded) << endless.status().ToString();
  // Abandoned steps say "... did not answer its abort": this one answered.
  EXPECT_EQ(endless.status().message().find("did not answer its abort"), std::string::npos)
      << endless.status().ToString();
  auto out = session->Run({{"n", Tensor::Scalar<int32_t>(1000)}}, {r[0].name()}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].scalar<int32_t>(), 1000);
}

// The gradients of a loop whose body spans the two processes: the
// gradient loop, the forward loop's added counter and the values it keeps
// spread over both.
TEST_F(ControlFlowClusterTest, GradientsOfALoopAcrossProcesses) {
  std::mt19937 rng(13);
  std::normal_distribution<float> normal(0, 0.4f);
  std::vector<float> w(16), x(4);
  for (float& v : w) v = normal(rng);
  for (float& v : x) v = normal(rng);
  BuildFn build = [&](const Scope& s, bool tasks) {
    auto W = Placeholder(On(s, tasks, kTask1).WithOpName("W"), DT_FLOAT);
    auto x0 = Placeholder(On(s, tasks, kTask0).WithOpName("x0"), DT_FLOAT);
    auto r = WhileLoop(
        On(s, tasks, kTask0), {Const(s, Tensor::Scalar<int32_t>(0)), x0},
        [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 10); },
        [&](const Scope& b, const std::vector<Output>& v) {
          auto m = MatMul(On(b, tasks, kTask1), W, v[1]);
          return std::vector<Output>{Add(b, v[0], 1), Tanh(On(b, tasks, kTask0), m)};
        });
    std::vector<Output> grads;
    EXPECT_TRUE(AddSymbolicGradients(s, {Sum(s, r[1], {0, 1})}, {W, x0}, {}, &grads).ok());
    return grads;
  };
  ExpectLikeOneProcess(build, {{{"W", Tensor::FromVector<float>(w, {4, 4})},
                                {"x0", Tensor::FromVector<float>(x, {4, 1})}}});
}

// A Cond whose predicate is on task 0 and whose true branch is on task 1:
// when the predicate is false, task 1's branch gets dead tensors.
TEST_F(ControlFlowClusterTest, CondAcrossProcesses) {
  BuildFn build = [&](const Scope& s, bool tasks) {
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
    auto r = Cond(
        On(s, tasks, kTask0), Greater(s, x, 0.0f),
        [&](const Scope& t) { return std::vector<Output>{Exp(On(t, tasks, kTask1), x)}; },
        [&](const Scope& f) { return std::vector<Output>{Neg(On(f, tasks, kTask0), x)}; });
    return std::vector<Output>{Square(On(s, tasks, kTask1), r[0])};
  };
  ExpectLikeOneProcess(build, {{{"x", Tensor::Scalar<float>(0.5f)}},
                               {{"x", Tensor::Scalar<float>(-3.0f)}},
                               {{"x", Tensor::Scalar<float>(2.0f)}}});
}

}  // namespace
}  // namespace tact
