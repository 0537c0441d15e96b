#include "actors/session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "graph/op_registry.h"
#include "graph/ops/all_ops.h"
#include "tests/actors/thread_lives_on.h"
#include "tests/sanitizer.h"

namespace tact {
namespace {

// Resident set size of this process, from /proc/self/statm.
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

std::unique_ptr<Session> NewSession(const Scope& s) {
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  EXPECT_TRUE(session.ok());
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok());
  EXPECT_TRUE((*session)->Extend(*def).ok());
  return std::move(session).value();
}

TEST(SessionTest, Figure1ThroughRun) {
  Scope s = Scope::NewRootScope();
  auto b = Variable(s.WithOpName("b"), {3});
  auto W = Variable(s.WithOpName("W"), {2, 3});
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Relu(s.WithOpName("relu"), Add(s, MatMul(s, x, W), b));
  Assign(s.WithOpName("init_W"), W, Tensor::FromVector<float>({1, -2, 3, -4, 5, -6}, {2, 3}));
  Assign(s.WithOpName("init_b"), b, Tensor::FromVector<float>({0.5f, 0.5f, -10}));
  auto session = NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init_W", "init_b"}).ok());
  auto out = session->Run({{"x", Tensor::FromVector<float>({1, 2}, {1, 2})}}, {"relu"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // x W + b = [-6.5, 8.5, -19]; relu = [0, 8.5, 0].
  const Tensor& r = (*out)[0];
  EXPECT_EQ(r.data<float>()[0], 0.0f);
  EXPECT_EQ(r.data<float>()[1], 8.5f);
  EXPECT_EQ(r.data<float>()[2], 0.0f);
}

// Paper Figure 6: feeding b and fetching f:0 runs only what f needs from
// b; the producers of b (a) and the other branch (d, e) never run.
TEST(SessionTest, Figure6PartialExecutionRunsOnlyTheClosure) {
  Scope s = Scope::NewRootScope();
  auto a = Placeholder(s.WithOpName("a"), DT_FLOAT);
  auto b = Neg(s.WithOpName("b"), a);
  auto c = Square(s.WithOpName("c"), b);
  auto d = Exp(s.WithOpName("d"), b);
  Neg(s.WithOpName("e"), d);
  Add(s.WithOpName("f"), c, c);
  auto session = NewSession(s);
  RunMetadata meta;
  auto out = session->Run({{"b:0", Tensor::FromVector<float>({3})}}, {"f:0"}, {}, &meta);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<float>()[0], 18.0f);
  EXPECT_TRUE(meta.step_stats.Ran("c"));
  EXPECT_TRUE(meta.step_stats.Ran("f"));
  EXPECT_FALSE(meta.step_stats.Ran("a"));
  EXPECT_FALSE(meta.step_stats.Ran("b"));
  EXPECT_FALSE(meta.step_stats.Ran("d"));
  EXPECT_FALSE(meta.step_stats.Ran("e"));
}

TEST(SessionTest, AssignAddOverAThousandRunsAndFlatMemory) {
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v"), {}, DT_INT64);
  Assign(s.WithOpName("init"), v, Tensor::Scalar<int64_t>(0));
  Identity(s.WithOpName("add"), AssignAdd(s, v, Tensor::Scalar<int64_t>(1)));
  auto session = NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  StatusOr<std::vector<Tensor>> out = Status::OK();
  int64_t bytes_after_warmup = 0;
  int64_t rss_after_warmup = 0;
  for (int i = 0; i < 1000; ++i) {
    out = session->Run({}, {"add"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    if (i == 10) {
      bytes_after_warmup = CpuAllocator()->GetStats().bytes_in_use;
      rss_after_warmup = ResidentBytes();
    }
  }
  EXPECT_EQ((*out)[0].scalar<int64_t>(), 1000);
  EXPECT_LE(CpuAllocator()->GetStats().bytes_in_use, bytes_after_warmup + 1024);
  TACT_SKIP_UNDER_SANITIZER("freed blocks wait in a quarantine, so resident memory grows");
  // 990 more Runs may not grow the process by more than allocator slack.
  EXPECT_LE(ResidentBytes(), rss_after_warmup + (2 << 20));
}

TEST(SessionTest, ConcurrentRunsFromSeveralThreads) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Square(s.WithOpName("y"), Add(s, x, 1.0f));
  auto session = NewSession(s);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        const float v = static_cast<float>(t * 100 + i);
        auto out = session->Run({{"x", Tensor::FromVector<float>({v})}}, {"y"}, {});
        if (!out.ok() || (*out)[0].data<float>()[0] != (v + 1) * (v + 1)) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

REGISTER_OP("SessionTestNoKernel").Input("x: float").Output("y: float");

TEST(SessionTest, EveryErrorLeavesTheSessionUsable) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, {-1, 2});
  auto y = Sqrt(s.WithOpName("y"), x);
  OpBuilder(s.WithOpName("nokernel"), "SessionTestNoKernel").Input(x).Finalize();
  // Fails mid-step: Sqrt is fine, the matmul of [n,2] by [3,1] is not.
  MatMul(s.WithOpName("bad_matmul"), Reshape(s, y, {-1, 3}), Const(s, Tensor(DT_FLOAT, {3, 1})));
  auto session = NewSession(s);
  const Tensor good = Tensor::FromVector<float>({4, 9}, {1, 2});
  struct Case {
    std::vector<std::pair<std::string, Tensor>> feeds;
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
    Code code;
    const char* message;
  };
  const Case cases[] = {
      {{{"nope", good}}, {"y"}, {}, Code::kNotFound, "feed 'nope' names no node"},
      {{{"x", good}}, {"nope:0"}, {}, Code::kNotFound, "fetch 'nope:0' names no node"},
      {{{"x", good}}, {"y:3"}, {}, Code::kInvalidArgument, "fetch 'y:3': node 'y' (op 'Sqrt') has 1 outputs"},
      {{{"x", good}}, {}, {"nope"}, Code::kNotFound, "target 'nope' names no node"},
      {{{"x", Tensor::FromVector<int32_t>({1, 2}, {1, 2})}}, {"y"}, {}, Code::kInvalidArgument,
       "feed 'x' is int32 but the graph expects float"},
      {{{"x", Tensor::FromVector<float>({1, 2, 3}, {1, 3})}}, {"y"}, {}, Code::kInvalidArgument,
       "feed 'x' has shape [1,3] but placeholder 'x' has shape [?,2]"},
      {{{"x", good}}, {"nokernel"}, {}, Code::kInvalidArgument,
       "no CPU kernel for 'nokernel' (SessionTestNoKernel)"},
      {{{"x", good}}, {"bad_matmul"}, {}, Code::kInvalidArgument, "node 'Reshape' (op 'Reshape')"},
      {{}, {"y"}, {}, Code::kInvalidArgument, "node 'x' (op 'Placeholder'): a value must be fed"},
  };
  for (const Case& c : cases) {
    auto out = session->Run(c.feeds, c.fetches, c.targets);
    EXPECT_EQ(out.status().code(), c.code) << c.message << ": " << out.status().ToString();
    EXPECT_NE(out.status().message().find(c.message), std::string::npos) << out.status().message();
    // And the next Run works.
    auto ok = session->Run({{"x", good}}, {"y"}, {});
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ((*ok)[0].data<float>()[1], 3.0f);
  }
  // A cycle offered to Extend is refused, and the graph is unchanged.
  GraphDef cyclic;
  NodeDef a;
  a.name = "cyc_a";
  a.op = "Identity";
  a.inputs = {"cyc_b"};
  a.attrs["T"] = AttrValue::Type(DT_FLOAT);
  NodeDef b = a;
  b.name = "cyc_b";
  b.inputs = {"cyc_a"};
  cyclic.nodes = {a, b};
  Status ext = session->Extend(cyclic);
  EXPECT_EQ(ext.code(), Code::kInvalidArgument);
  EXPECT_NE(ext.message().find("cycle"), std::string::npos) << ext.message();
  EXPECT_TRUE(session->Run({{"x", good}}, {"y"}, {}).ok());
  // After Close every call fails cleanly.
  EXPECT_TRUE(session->Close().ok());
  auto closed = session->Run({{"x", good}}, {"y"}, {});
  EXPECT_EQ(closed.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(session->Extend(GraphDef()).code(), Code::kFailedPrecondition);
}

}  // namespace
}  // namespace tact

namespace tact {
namespace {

TEST(SessionTest, CreateRejectsBadOptions) {
  SessionOptions bad_type;
  bad_type.device_count = {{"tpu", 1}};
  EXPECT_EQ(Session::Create(bad_type).status().code(), Code::kNotFound);
  SessionOptions none;
  none.device_count = {{"cpu", 0}};
  EXPECT_EQ(Session::Create(none).status().code(), Code::kInvalidArgument);
  SessionOptions threads;
  threads.intra_op_threads = 0;
  EXPECT_EQ(Session::Create(threads).status().code(), Code::kInvalidArgument);
  for (double gain : {-0.1, 1.0, std::nan("")}) {
    SessionOptions spread;
    spread.placement_min_spread_gain = gain;
    Status st = Session::Create(spread).status();
    EXPECT_EQ(st.code(), Code::kInvalidArgument) << gain;
    EXPECT_NE(st.message().find("placement_min_spread_gain"), std::string::npos) << st.ToString();
  }
  SessionOptions four;
  four.device_count = {{"CPU", 4}};
  EXPECT_TRUE(Session::Create(four).ok());
}

// SessionOptions::placement_min_spread_gain reaches the placer: a twig
// beside a branch of four MatMuls would save under 2% of the step on a
// second device, so by default the Run stays on one; with 0 the twig goes.
TEST(SessionTest, TheSpreadMarginDecidesWhereATwigRuns) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({64, 256}));
  Output h = x;
  for (int i = 0; i < 4; ++i) {
    h = MatMul(s.WithOpName("branch" + std::to_string(i)), h, Const(s, Tensor(DT_FLOAT, {256, 256})));
  }
  MatMul(s.WithOpName("twig"), x, Const(s, Tensor(DT_FLOAT, {256, 16})));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Tensor in(DT_FLOAT, {64, 256});
  for (int64_t i = 0; i < in.NumElements(); ++i) in.data<float>()[i] = 0.001f * (i % 97);
  for (double gain : {0.0, 0.1}) {
    SessionOptions o;
    o.device_count = {{"CPU", 2}};
    o.placement_min_spread_gain = gain;
    auto session = Session::Create(o);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    ASSERT_TRUE((*session)->Extend(s.ToGraphDef().value()).ok());
    RunMetadata md;
    auto out = (*session)->Run({{"x:0", in}}, {"branch3:0", "twig:0"}, {}, &md);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    std::set<std::string> devices;
    std::string twig_device, branch_device;
    for (const NodeExecStats& n : md.step_stats.nodes()) {
      devices.insert(n.device);
      if (n.node_name == "twig") twig_device = n.device;
      if (n.node_name == "branch0") branch_device = n.device;
    }
    if (gain == 0) {
      EXPECT_NE(twig_device, branch_device);
      EXPECT_EQ(devices.size(), 2u);
    } else {
      EXPECT_EQ(twig_device, branch_device);
      EXPECT_EQ(devices.size(), 1u);
    }
    EXPECT_TRUE((*session)->Close().ok());
  }
}

// A server creates sessions on one thread and drops them on another. CAF
// keeps a reference to its actor system's logger in each thread that
// spawned an actor, and the system's destructor waits for the logger to
// go: a session created on a thread that lives on hung its destructor.
TEST(SessionTest, ASessionCreatedOnAThreadThatLivesOnEndsOnAnother) {
  std::promise<std::unique_ptr<Session>> made;
  test::ThreadThatLivesOn creator([&] {
    StatusOr<std::unique_ptr<Session>> s = Session::Create();
    made.set_value(s.ok() ? std::move(s).value() : nullptr);
  });
  std::unique_ptr<Session> session = made.get_future().get();
  ASSERT_NE(session, nullptr);
  Scope s = Scope::NewRootScope();
  Add(s.WithOpName("y"), Const(s, Tensor::Scalar<float>(2)), 3.0f);
  ASSERT_TRUE(session->Extend(*s.ToGraphDef()).ok());
  auto out = session->Run({}, {"y:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at(0).scalar<float>(), 5.0f);
  EXPECT_TRUE(creator.EndsWhileItLives([&] { session.reset(); }))
      << "the session's destructor waited for its creating thread to end";
}

}  // namespace
}  // namespace tact
