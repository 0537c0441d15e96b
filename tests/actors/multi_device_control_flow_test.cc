// Loops and conditionals whose nodes span devices of one process (paper
// 4.4, distributed control flow): the partitions run the loop's iterations
// in step through their control loops (placement/loop_control.h), each
// iteration's transfers meet their own, and dead tensors cross devices.
// Every result is compared with the same graph on one device.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>
#include <thread>

#include "actors/session.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

std::string Cpu(int i) { return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i); }

// Builds a graph with devices (or with every device request left out),
// runs it with `feeds` and returns the fetches.
using BuildFn = std::function<std::vector<Output>(const Scope& s, bool devices)>;

std::vector<Tensor> RunOn(const BuildFn& build, bool devices,
                          const std::vector<std::pair<std::string, Tensor>>& feeds,
                          std::set<std::string>* used = nullptr) {
  Scope s = Scope::NewRootScope();
  std::vector<Output> fetches = build(s, devices);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  SessionOptions o;
  o.device_count = {{"CPU", devices ? 2 : 1}};
  auto session = Session::Create(o);
  EXPECT_TRUE(session.ok());
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_TRUE((*session)->Extend(*def).ok());
  std::vector<std::string> names;
  for (const Output& f : fetches) names.push_back(f.name());
  RunMetadata meta;
  auto out = (*session)->Run(feeds, names, {}, &meta);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (used != nullptr) {
    for (const NodeExecStats& n : meta.step_stats.nodes()) used->insert(n.device);
  }
  return out.ok() ? *out : std::vector<Tensor>();
}

Scope On(const Scope& s, bool devices, int cpu) { return devices ? s.WithDevice(Cpu(cpu)) : s; }

void ExpectSame(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape()) << i;
    EXPECT_TRUE(a[i].BitwiseEqual(b[i])) << i << ": " << a[i].DebugString() << " vs "
                                         << b[i].DebugString();
  }
}

// x = tanh(W x) 20 times: the loop's control and Tanh on CPU:0, the
// MatMul on CPU:1, W read as an invariant on CPU:1.
TEST(MultiDeviceControlFlowTest, LoopBodyOnTwoDevices) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0, 0.4f);
  std::vector<float> w(16), x(4);
  for (float& v : w) v = normal(rng);
  for (float& v : x) v = normal(rng);
  for (int parallel : {1, 10}) {
    BuildFn build = [&](const Scope& s, bool devices) {
      auto W = Const(On(s, devices, 1), Tensor::FromVector<float>(w, {4, 4}));
      auto x0 = Const(s, Tensor::FromVector<float>(x, {4, 1}));
      auto r = WhileLoop(
          On(s, devices, 0), {Const(s, Tensor::Scalar<int32_t>(0)), x0},
          [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 20); },
          [&](const Scope& b, const std::vector<Output>& v) {
            auto m = MatMul(On(b, devices, 1), W, v[1]);
            return std::vector<Output>{Add(b, v[0], 1), Tanh(On(b, devices, 0), m)};
          },
          WhileOptions{"chain", parallel});
      return r;
    };
    std::set<std::string> used;
    const std::vector<Tensor> two = RunOn(build, true, {}, &used);
    EXPECT_EQ(used.size(), 2u) << "parallel_iterations " << parallel;
    ExpectSame(two, RunOn(build, false, {}));
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[0].scalar<int32_t>(), 20);
  }
}

// The gradients of a loop whose body spans devices (a gradient loop that
// reads each iteration's values back) equal one device's.
TEST(MultiDeviceControlFlowTest, GradientsOfALoopAcrossDevices) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0, 0.4f);
  std::vector<float> w(16), x(4);
  for (float& v : w) v = normal(rng);
  for (float& v : x) v = normal(rng);
  BuildFn build = [&](const Scope& s, bool devices) {
    auto W = Placeholder(On(s, devices, 1).WithOpName("W"), DT_FLOAT);
    auto x0 = Placeholder(On(s, devices, 0).WithOpName("x0"), DT_FLOAT);
    auto r = WhileLoop(
        On(s, devices, 0), {Const(s, Tensor::Scalar<int32_t>(0)), x0},
        [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 12); },
        [&](const Scope& b, const std::vector<Output>& v) {
          auto m = MatMul(On(b, devices, 1), W, v[1]);
          return std::vector<Output>{Add(b, v[0], 1), Tanh(On(b, devices, 0), m)};
        });
    std::vector<Output> grads;
    Status st = AddSymbolicGradients(s, {Sum(s, r[1], {0, 1})}, {W, x0}, {}, &grads);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return grads;
  };
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"W", Tensor::FromVector<float>(w, {4, 4})}, {"x0", Tensor::FromVector<float>(x, {4, 1})}};
  std::set<std::string> used;
  const std::vector<Tensor> two = RunOn(build, true, feeds, &used);
  EXPECT_EQ(used.size(), 2u);
  const std::vector<Tensor> one = RunOn(build, false, feeds);
  ASSERT_EQ(two.size(), one.size());
  for (size_t g = 0; g < one.size(); ++g) {
    ASSERT_EQ(two[g].shape(), one[g].shape());
    for (int64_t i = 0; i < one[g].NumElements(); ++i) {
      EXPECT_NEAR(two[g].data<float>()[i], one[g].data<float>()[i], 1e-6) << g << " " << i;
    }
  }
}

// The loop's Merge, Switch and NextIteration of one variable on CPU:1,
// the other's on CPU:0, the LoopCond on CPU:0; and a device whose only
// work in the loop reads an invariant.
TEST(MultiDeviceControlFlowTest, LoopVariablesOnTwoDevices) {
  BuildFn build = [&](const Scope& s, bool devices) {
    auto n = Placeholder(s.WithOpName("n"), DT_INT32);
    auto step = Const(On(s, devices, 1), Tensor::Scalar<float>(0.25f));
    auto r = WhileLoop(
        On(s, devices, 0), {Const(s, Tensor::Scalar<int32_t>(0)), Const(s, Tensor::Scalar<float>(1))},
        [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
        [&](const Scope& b, const std::vector<Output>& v) {
          auto half = Mul(On(b, devices, 1), step, 2.0f);  // reads only the invariant
          return std::vector<Output>{Add(b, v[0], 1), Add(On(b, devices, 0), Mul(b, v[1], 1.5f), half)};
        });
    return r;
  };
  for (int count : {0, 1, 7}) {
    const std::vector<std::pair<std::string, Tensor>> feeds = {{"n", Tensor::Scalar<int32_t>(count)}};
    const std::vector<Tensor> two = RunOn(build, true, feeds);
    ExpectSame(two, RunOn(build, false, feeds));
    float want = 1;
    for (int i = 0; i < count; ++i) want = want * 1.5f + 0.5f;
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[1].scalar<float>(), want) << count;
  }
}

// A Cond whose branches run on different devices than its predicate: the
// untaken branch's values cross devices dead.
TEST(MultiDeviceControlFlowTest, CondAcrossDevices) {
  BuildFn build = [&](const Scope& s, bool devices) {
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
    auto r = Cond(
        On(s, devices, 0), Greater(s, x, 0.0f),
        [&](const Scope& t) { return std::vector<Output>{Exp(On(t, devices, 1), x)}; },
        [&](const Scope& f) { return std::vector<Output>{Neg(On(f, devices, 0), x)}; });
    return std::vector<Output>{Square(On(s, devices, 1), r[0])};
  };
  for (float v : {1.5f, -2.0f}) {
    const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::Scalar<float>(v)}};
    const std::vector<Tensor> two = RunOn(build, true, feeds);
    ExpectSame(two, RunOn(build, false, feeds));
  }
}

// Many steps of one loop across devices, from two threads at once.
TEST(MultiDeviceControlFlowTest, ConcurrentStepsAcrossDevices) {
  Scope s = Scope::NewRootScope();
  auto n = Placeholder(s.WithOpName("n"), DT_INT32);
  auto r = WhileLoop(
      s.WithDevice(Cpu(0)), {Const(s, Tensor::Scalar<int32_t>(0)), Const(s, Tensor::Scalar<int32_t>(0))},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
      [&](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{Add(b, v[0], 1), Add(b.WithDevice(Cpu(1)), v[1], v[0])};
      });
  SessionOptions o;
  o.device_count = {{"CPU", 2}};
  auto session = Session::Create(o);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        const int count = 5 + 3 * t + i;
        auto out = (*session)->Run({{"n", Tensor::Scalar<int32_t>(count)}}, {r[1].name()}, {});
        if (!out.ok() || (*out)[0].scalar<int32_t>() != count * (count - 1) / 2) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace tact
