// Conditionals and loops through a Session (paper 4.4): the builder API of
// graph/ops/cond.h and graph/ops/while_loop.h, run by the executor with
// frames (actors/frame_executor.h). Values are checked against the same
// computation written as a plain C++ loop.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <thread>

#include "actors/session.h"
#include "graph/op_registry.h"
#include "graph/ops/all_ops.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// An expensive identity that sleeps 2 ms and records how many of it ran at
// once: iterations of a loop overlap up to parallel_iterations.
REGISTER_OP("TestSlowIdentity").Input("x: float").Output("y: float");
std::atomic<int> g_slow_running{0};
std::atomic<int> g_slow_most{0};

class TestSlowIdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int now = ++g_slow_running;
    int most = g_slow_most.load();
    while (now > most && !g_slow_most.compare_exchange_weak(most, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --g_slow_running;
    ctx->set_output(0, ctx->input(0));
  }
};
REGISTER_KERNEL_BUILDER(Name("TestSlowIdentity").Device(DEVICE_CPU), TestSlowIdentityOp);

std::unique_ptr<Session> NewSession(const Scope& s) {
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  EXPECT_TRUE(session.ok());
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_TRUE((*session)->Extend(*def).ok());
  return std::move(session).value();
}

float RunScalar(Session* session, const std::vector<std::pair<std::string, Tensor>>& feeds,
                const Output& fetch, RunMetadata* meta = nullptr) {
  auto out = session->Run(feeds, {fetch.name()}, {}, meta);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0].scalar<float>() : NAN;
}

std::vector<Output> One(Output o) { return {o}; }

TEST(ControlFlowTest, CondRunsOnlyTheTakenBranch) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto r = Cond(
      s, Less(s, x, 0.0f),
      [&](const Scope& t) { return One(Neg(t.WithOpName("negate"), x)); },
      [&](const Scope& f) { return One(Mul(f.WithOpName("double"), x, 2.0f)); });
  ASSERT_EQ(r.size(), 1u);
  auto session = NewSession(s);
  for (float v : {-3.0f, 2.5f, 0.0f}) {
    RunMetadata meta;
    EXPECT_EQ(RunScalar(session.get(), {{"x", Tensor::Scalar<float>(v)}}, r[0], &meta),
              v < 0 ? -v : 2 * v);
    EXPECT_EQ(meta.step_stats.Ran("cond/true/negate"), v < 0);
    EXPECT_EQ(meta.step_stats.Ran("cond/false/double"), !(v < 0));
  }
}

// Branches that build constants (no inputs) and return tensors built
// outside; two values; a Cond nested in a branch.
TEST(ControlFlowTest, CondWithConstantsOutsideValuesAndNesting) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto y = Square(s.WithOpName("y"), x);
  auto r = Cond(
      s, Greater(s, x, 10.0f),
      [&](const Scope& t) { return std::vector<Output>{Const(t, Tensor::Scalar<float>(100)), y}; },
      [&](const Scope& f) {
        auto inner = Cond(
            f, Greater(f, x, 0.0f),
            [&](const Scope& t2) { return One(Add(t2, x, 1000.0f)); },
            [&](const Scope& f2) { return One(Const(f2, Tensor::Scalar<float>(-1))); });
        return std::vector<Output>{inner.empty() ? Output() : inner[0], x};
      });
  ASSERT_EQ(r.size(), 2u) << s.status().ToString();
  auto session = NewSession(s);
  for (float v : {20.0f, 5.0f, -5.0f}) {
    auto out = session->Run({{"x", Tensor::Scalar<float>(v)}}, {r[0].name(), r[1].name()}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const float want0 = v > 10 ? 100 : (v > 0 ? v + 1000 : -1);
    const float want1 = v > 10 ? v * v : v;
    EXPECT_EQ((*out)[0].scalar<float>(), want0) << v;
    EXPECT_EQ((*out)[1].scalar<float>(), want1) << v;
  }
}

// i = 0; acc = 0; while (i < n) { acc += i; i += 1; }, for several n,
// the loop not run at all included.
TEST(ControlFlowTest, WhileLoopSums) {
  Scope s = Scope::NewRootScope();
  auto n = Placeholder(s.WithOpName("n"), DT_FLOAT);
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<float>(0)), Const(s, Tensor::Scalar<float>(0))},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
      [&](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{Add(b, v[0], 1.0f), Add(b, v[1], v[0])};
      });
  ASSERT_EQ(r.size(), 2u) << s.status().ToString();
  auto session = NewSession(s);
  for (int count : {0, 1, 10, 1000}) {
    auto out = session->Run({{"n", Tensor::Scalar<float>(static_cast<float>(count))}},
                            {r[0].name(), r[1].name()}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].scalar<float>(), count);
    EXPECT_EQ((*out)[1].scalar<float>(), count * (count - 1) / 2.0f) << count;
  }
}

// A loop that would run for ever (its bound fed as 2^31 - 1) ends at the
// Run's timeout, as a step waiting on a Recv does: the abort stops the
// iterations, not only the waits. The session then runs the loop again,
// and Close ends it too.
TEST(ControlFlowTest, ALoopThatWouldNotEndStopsAtTheRunsTimeout) {
  Scope s = Scope::NewRootScope();
  auto n = Placeholder(s.WithOpName("n"), DT_INT32);
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0))},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
      [&](const Scope& b, const std::vector<Output>& v) { return std::vector<Output>{Add(b, v[0], 1)}; });
  ASSERT_EQ(r.size(), 1u) << s.status().ToString();
  auto session = NewSession(s);
  RunOptions timeout;
  timeout.timeout_ms = 300;
  const auto start = std::chrono::steady_clock::now();
  const Tensor forever = Tensor::Scalar<int32_t>(2147483647);
  auto endless = session->Run(timeout, {{"n", forever}}, {r[0].name()}, {}, nullptr);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(endless.ok());
  EXPECT_EQ(endless.status().code(), Code::kDeadlineExceeded) << endless.status().ToString();
  EXPECT_NE(endless.status().message().find("ran past the operation timeout of 300 ms"), std::string::npos)
      << endless.status().ToString();
  EXPECT_LT(took, 10.0);
  auto out = session->Run({{"n", Tensor::Scalar<int32_t>(100)}}, {r[0].name()}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].scalar<int32_t>(), 100);
  // With no timeout at all, closing the session ends the loop.
  Status status;
  std::thread running([&] { status = session->Run({{"n", forever}}, {r[0].name()}, {}).status(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(session->Close().ok());
  running.join();
  EXPECT_EQ(status.code(), Code::kCancelled) << status.ToString();
}

// x = tanh(W x), 50 times, W read from a Variable outside the loop: the
// same as a plain loop in double precision.
TEST(ControlFlowTest, WhileLoopMatchesAPlainLoop) {
  constexpr int kDim = 8, kSteps = 50;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0, 0.5f);
  std::vector<float> w(kDim * kDim), x0(kDim);
  for (float& v : w) v = normal(rng);
  for (float& v : x0) v = normal(rng);
  Scope s = Scope::NewRootScope();
  auto W = Variable(s.WithOpName("W"), {kDim, kDim});
  Assign(s.WithOpName("init"), W, Tensor::FromVector<float>(w, {kDim, kDim}));
  auto x = Const(s, Tensor::FromVector<float>(x0, {kDim, 1}));
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0)), x},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], kSteps); },
      [&](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{Add(b, v[0], 1), Tanh(b, MatMul(b, W, v[1]))};
      });
  ASSERT_EQ(r.size(), 2u) << s.status().ToString();
  auto session = NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  auto out = session->Run({}, {r[1].name()}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<double> want(x0.begin(), x0.end());
  for (int step = 0; step < kSteps; ++step) {
    std::vector<double> next(kDim, 0);
    for (int i = 0; i < kDim; ++i) {
      for (int j = 0; j < kDim; ++j) next[i] += w[i * kDim + j] * want[j];
      next[i] = std::tanh(next[i]);
    }
    want = next;
  }
  for (int i = 0; i < kDim; ++i) EXPECT_NEAR((*out)[0].data<float>()[i], want[i], 1e-5) << i;
}

// Iterations overlap up to parallel_iterations; the result does not
// depend on how many.
TEST(ControlFlowTest, ParallelIterationsGiveTheSameResult) {
  for (int parallel : {1, 2, 10, 32}) {
    Scope s = Scope::NewRootScope();
    WhileOptions options;
    options.parallel_iterations = parallel;
    // Two independent chains per iteration: a and b advance apart.
    auto r = WhileLoop(
        s,
        {Const(s, Tensor::Scalar<int32_t>(0)), Const(s, Tensor::Scalar<float>(1)),
         Const(s, Tensor::Scalar<float>(0))},
        [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 300); },
        [&](const Scope& b, const std::vector<Output>& v) {
          return std::vector<Output>{Add(b, v[0], 1), Mul(b, v[1], 1.01f), Add(b, v[2], 0.5f)};
        },
        options);
    ASSERT_EQ(r.size(), 3u) << s.status().ToString();
    auto session = NewSession(s);
    for (int run = 0; run < 5; ++run) {
      auto out = session->Run({}, {r[1].name(), r[2].name()}, {});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      float a = 1;
      for (int i = 0; i < 300; ++i) a *= 1.01f;
      EXPECT_EQ((*out)[0].scalar<float>(), a) << parallel;
      EXPECT_EQ((*out)[1].scalar<float>(), 150.0f) << parallel;
    }
  }
}

// The slow op of each iteration is off the loop's critical path (i), so
// iterations overlap: as many as parallel_iterations allows and the
// device's threads can run, never more.
TEST(ControlFlowTest, ParallelIterationsBoundsTheOverlap) {
  for (int parallel : {1, 3}) {
    Scope s = Scope::NewRootScope();
    auto r = WhileLoop(
        s, {Const(s, Tensor::Scalar<float>(0)), Const(s, Tensor::Scalar<float>(0))},
        [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 24.0f); },
        [&](const Scope& b, const std::vector<Output>& v) {
          auto slow = OpBuilder(b, "TestSlowIdentity").Input(v[0]).FinalizeOutput();
          return std::vector<Output>{Add(b, v[0], 1.0f), Add(b, v[1], slow)};
        },
        WhileOptions{"overlap", parallel});
    ASSERT_EQ(r.size(), 2u) << s.status().ToString();
    SessionOptions options;
    options.intra_op_threads = 8;
    auto session = Session::Create(options);
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
    g_slow_most = 0;
    auto out = (*session)->Run({}, {r[1].name()}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].scalar<float>(), 23 * 24 / 2.0f);
    EXPECT_LE(g_slow_most.load(), parallel);
    if (parallel > 1) {
      EXPECT_GE(g_slow_most.load(), 2);
    }
  }
}

// A long loop frees its iterations as it goes: memory stays flat.
TEST(ControlFlowTest, IterationsAreFreedAsTheLoopGoes) {
  Scope s = Scope::NewRootScope();
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0)), Const(s, Tensor::FromVector<float>({0, 0, 0, 0}))},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 200000); },
      [&](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{Add(b, v[0], 1), Add(b, v[1], 1.0f)};
      });
  auto session = NewSession(s);
  auto rss = [] {
    std::ifstream statm("/proc/self/statm");
    int64_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
  };
  ASSERT_TRUE(session->Run({}, {r[1].name()}, {}).ok());
  const int64_t before = rss();
  auto out = session->Run({}, {r[1].name()}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<float>()[3], 200000.0f);
  // 200,000 iterations kept would hold well over 50 MB of state.
  EXPECT_LT(rss() - before, 8 << 20);
}

// An inner loop per outer iteration, reading a tensor from outside both.
TEST(ControlFlowTest, NestedLoops) {
  Scope s = Scope::NewRootScope();
  auto step = Placeholder(s.WithOpName("step"), DT_FLOAT);
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0)), Const(s, Tensor::Scalar<float>(0))},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 5); },
      [&](const Scope& b, const std::vector<Output>& v) {
        auto inner = WhileLoop(
            b, {Const(b, Tensor::Scalar<int32_t>(0)), v[1]},
            [&](const Scope& c2, const std::vector<Output>& u) { return Less(c2, u[0], 4); },
            [&](const Scope& b2, const std::vector<Output>& u) {
              return std::vector<Output>{Add(b2, u[0], 1), Add(b2, u[1], step)};
            });
        return std::vector<Output>{Add(b, v[0], 1), inner.empty() ? Output() : inner[1]};
      });
  ASSERT_EQ(r.size(), 2u) << s.status().ToString();
  auto session = NewSession(s);
  EXPECT_EQ(RunScalar(session.get(), {{"step", Tensor::Scalar<float>(0.5f)}}, r[1]), 10.0f);
  EXPECT_EQ(RunScalar(session.get(), {{"step", Tensor::Scalar<float>(2)}}, r[1]), 40.0f);
}

// A loop in the untaken branch of a Cond does not run, and is dead: the
// Cond's value comes from the other branch. A Cond in a loop's body.
TEST(ControlFlowTest, LoopInsideCondAndCondInsideLoop) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto r = Cond(
      s, Greater(s, x, 0.0f),
      [&](const Scope& t) {
        // Sum over i < 6 of (i < 3 ? i : -x).
        auto loop = WhileLoop(
            t, {Const(t, Tensor::Scalar<float>(0)), Const(t, Tensor::Scalar<float>(0))},
            [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 6.0f); },
            [&](const Scope& b, const std::vector<Output>& v) {
              auto term = Cond(
                  b, Less(b, v[0], 3.0f), [&](const Scope& bt) { return One(Identity(bt, v[0])); },
                  [&](const Scope& bf) { return One(Neg(bf.WithOpName("minus_x"), x)); });
              return std::vector<Output>{Add(b, v[0], 1.0f),
                                         Add(b, v[1], term.empty() ? Output() : term[0])};
            },
            WhileOptions{"sum", 10});
        return One(loop.empty() ? Output() : loop[1]);
      },
      [&](const Scope& f) { return One(Identity(f.WithOpName("x_again"), x)); });
  ASSERT_EQ(r.size(), 1u) << s.status().ToString();
  auto session = NewSession(s);
  RunMetadata meta;
  EXPECT_EQ(RunScalar(session.get(), {{"x", Tensor::Scalar<float>(2)}}, r[0], &meta),
            0 + 1 + 2 - 3 * 2.0f);
  EXPECT_TRUE(meta.step_stats.Ran("cond/true/sum/body/cond/false/minus_x"));
  RunMetadata untaken;
  EXPECT_EQ(RunScalar(session.get(), {{"x", Tensor::Scalar<float>(-4)}}, r[0], &untaken), -4.0f);
  EXPECT_FALSE(untaken.step_stats.Ran("cond/true/sum/body/cond/false/minus_x"));
  EXPECT_TRUE(untaken.step_stats.Ran("cond/false/x_again"));
}

// Many steps of one loop from several threads: frames of concurrent steps
// are apart.
TEST(ControlFlowTest, ConcurrentStepsOfOneLoop) {
  Scope s = Scope::NewRootScope();
  auto n = Placeholder(s.WithOpName("n"), DT_INT32);
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0)), Const(s, Tensor::Scalar<int32_t>(0))},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
      [&](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{Add(b, v[0], 1), Add(b, v[1], v[0])};
      });
  auto session = NewSession(s);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const int count = 10 + t * 7 + i;
        auto out = session->Run({{"n", Tensor::Scalar<int32_t>(count)}}, {r[1].name()}, {});
        if (!out.ok() || (*out)[0].scalar<int32_t>() != count * (count - 1) / 2) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ControlFlowTest, FetchingADeadTensorIsAnErrorAndTheSessionGoesOn) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto sw = Switch(s.WithOpName("sw"), x, Greater(s, x, 0.0f));
  Identity(s.WithOpName("pos"), sw.output_true);
  auto session = NewSession(s);
  auto bad = session->Run({{"x", Tensor::Scalar<float>(-1)}}, {"pos"}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("dead"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("pos"), std::string::npos) << bad.status().ToString();
  auto good = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"pos"}, {});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ((*good)[0].scalar<float>(), 3.0f);
}

TEST(ControlFlowTest, BuilderErrorsNameTheLoopOrCond) {
  {
    Scope s = Scope::NewRootScope();
    WhileLoop(
        s, {Const(s, Tensor::Scalar<float>(0))},
        [](const Scope& c, const std::vector<Output>& v) { return Add(c, v[0], 1.0f); },
        [](const Scope&, const std::vector<Output>& v) { return v; });
    EXPECT_NE(s.status().message().find("WhileLoop 'while'"), std::string::npos);
    EXPECT_NE(s.status().message().find("bool scalar"), std::string::npos) << s.status().ToString();
  }
  {
    Scope s = Scope::NewRootScope();
    WhileLoop(
        s, {Const(s, Tensor::Scalar<float>(0))},
        [](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 1.0f); },
        [](const Scope& b, const std::vector<Output>& v) {
          return std::vector<Output>{Cast(b, v[0], DT_INT32)};
        },
        WhileOptions{"typed", 10});
    EXPECT_NE(s.status().message().find("WhileLoop 'typed': loop variable 0 is float but the "
                                        "body returns int32"),
              std::string::npos)
        << s.status().ToString();
  }
  {
    Scope s = Scope::NewRootScope();
    WhileLoop(
        s, {Const(s, Tensor::FromVector<float>({1, 2}))},
        [](const Scope& c, const std::vector<Output>&) { return Less(c, 0.0f, 1.0f); },
        [](const Scope& b, const std::vector<Output>&) {
          return std::vector<Output>{Const(b, Tensor::FromVector<float>({1, 2, 3}))};
        });
    EXPECT_NE(s.status().message().find("keeps its shape"), std::string::npos)
        << s.status().ToString();
  }
  {
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s, DT_FLOAT);
    Cond(
        s, Less(s, x, 0.0f), [&](const Scope&) { return One(x); },
        [&](const Scope&) { return std::vector<Output>{x, x}; });
    EXPECT_NE(s.status().message().find("Cond 'cond': the true branch returns 1 values and the "
                                        "false branch 2"),
              std::string::npos)
        << s.status().ToString();
  }
  {
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s, DT_FLOAT);
    Cond(
        s, x, [&](const Scope&) { return One(x); }, [&](const Scope&) { return One(x); });
    EXPECT_NE(s.status().message().find("pred must be a bool scalar"), std::string::npos)
        << s.status().ToString();
  }
}

// A TensorArray keeps what was written by index; a read of an entry never
// written, or a write of another dtype, is an error naming the array.
TEST(ControlFlowTest, TensorArrayWritesAndReadsByIndex) {
  Scope s = Scope::NewRootScope();
  auto array = TensorArray(s, 0, DT_FLOAT);
  auto w2 = TensorArrayWrite(s, array.handle, 2, Const(s, Tensor::Scalar<float>(7)), array.flow);
  auto w0 = TensorArrayWrite(s, array.handle, 0, Const(s, Tensor::Scalar<float>(5)), w2);
  auto r2 = TensorArrayRead(s.WithOpName("r2"), array.handle, 2, w0, DT_FLOAT);
  auto r0 = TensorArrayRead(s.WithOpName("r0"), array.handle, 0, w0, DT_FLOAT);
  auto r1 = TensorArrayRead(s.WithOpName("r1"), array.handle, 1, w0, DT_FLOAT);
  auto bad = TensorArrayWrite(s.WithOpName("bad"), array.handle, 3, Const(s, Tensor::Scalar<int32_t>(1)), w0);
  auto session = NewSession(s);
  auto out = session->Run({}, {r2.name(), r0.name()}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].scalar<float>(), 7.0f);
  EXPECT_EQ((*out)[1].scalar<float>(), 5.0f);
  auto unwritten = session->Run({}, {r1.name()}, {});
  ASSERT_FALSE(unwritten.ok());
  EXPECT_NE(unwritten.status().message().find(
                "index 1 of a TensorArray of float (3 entries) was never written"),
            std::string::npos)
      << unwritten.status().ToString();
  auto wrong = session->Run({}, {bad.name()}, {});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("cannot write a int32 into a TensorArray of float"),
            std::string::npos)
      << wrong.status().ToString();
}

// Hand-built graphs that break the frame rules fail at their first Run,
// naming the node; the session stays usable.
TEST(ControlFlowTest, MalformedFramesAreClearErrors) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Exit(s.WithOpName("stray_exit"), x);
  NextIteration(s.WithOpName("stray_next"), x);
  auto e = Enter(s.WithOpName("e"), x, "f");
  auto m = Merge(s.WithOpName("m"), {e, e});
  Add(s.WithOpName("mixed"), m.output, x);  // the loop frame and the root frame
  Neg(s.WithOpName("fine"), x);
  auto session = NewSession(s);
  auto stray = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"stray_exit"}, {});
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.status().message().find("stray_exit"), std::string::npos);
  EXPECT_NE(stray.status().message().find("inside a loop's frame"), std::string::npos)
      << stray.status().ToString();
  auto next = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"stray_next"}, {});
  ASSERT_FALSE(next.ok());
  EXPECT_NE(next.status().message().find("node 'stray_next' (op 'NextIteration'): a NextIteration must be "
                                         "inside a loop's frame"),
            std::string::npos)
      << next.status().ToString();
  auto mixed = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"mixed"}, {});
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("'mixed'"), std::string::npos);
  EXPECT_NE(mixed.status().message().find("two frames"), std::string::npos)
      << mixed.status().ToString();
  // A tensor inside the loop is no fetch: this Run waited forever before.
  for (const char* inside : {"e", "m"}) {
    auto fetched = session->Run({{"x", Tensor::Scalar<float>(1)}}, {inside}, {});
    ASSERT_FALSE(fetched.ok()) << inside;
    const std::string expected = "fetch '" + std::string(inside) +
                                 ":0' is a tensor of loop frame 'f': only tensors of the root frame "
                                 "can be fetched";
    EXPECT_NE(fetched.status().message().find(expected), std::string::npos) << fetched.status().ToString();
  }
  auto fine = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"fine"}, {});
  ASSERT_TRUE(fine.ok()) << fine.status().ToString();
  EXPECT_EQ((*fine)[0].scalar<float>(), -1.0f);
}

}  // namespace
}  // namespace tact
