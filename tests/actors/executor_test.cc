#include "actors/executor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"
#include "kernels/rendezvous.h"
#include "tests/actors/executor_test_util.h"
#include "tests/sanitizer.h"

namespace tact {
namespace {

using test::Feed;
using test::Fetch;
using test::FetchKey;
using test::Key;
using test::kDev;
using test::MakeExecutor;

// Test ops, so that the executor is tested apart from the real kernels.
REGISTER_OP("TestPlusOne").Input("x: float").Output("y: float");      // expensive
REGISTER_OP("TestQuickPlusOne").Input("x: float").Output("y: float");  // declared expensive
REGISTER_OP("TestCheapAdd").Input("x: float").Input("y: float").Output("z: float");
REGISTER_OP("TestFailIfNegative").Input("x: float").Output("y: float");

// The thread the last TestPlusOne ran on.
std::atomic<std::thread::id> g_plus_one_thread;

// The threads TestQuickPlusOne and TestPlusOne ran on since the last clear.
std::mutex g_threads_mu;
std::vector<std::thread::id> g_threads;

void RecordThread() {
  std::lock_guard<std::mutex> lock(g_threads_mu);
  g_threads.push_back(std::this_thread::get_id());
}

void PlusOne(OpKernelContext* ctx) {
  const Tensor& x = ctx->input(0);
  Tensor* y;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
  for (int64_t i = 0; i < x.NumElements(); ++i) y->data<float>()[i] = x.data<float>()[i] + 1;
}

// Expensive in fact too: it runs for 20 us, well above what the executor
// keeps on a thread that made it ready (actors/kernel_costs.h).
class TestPlusOneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
    while (std::chrono::steady_clock::now() < until) {
    }
    PlusOne(ctx);
    g_plus_one_thread.store(std::this_thread::get_id());
    RecordThread();
  }
};

// Counts itself expensive (the default) but takes well under a microsecond.
class TestQuickPlusOneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    PlusOne(ctx);
    RecordThread();
  }
};

class TestCheapAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* z;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &z));
    for (int64_t i = 0; i < z->NumElements(); ++i) {
      z->data<float>()[i] = ctx->input(0).data<float>()[i] + ctx->input(1).data<float>()[i];
    }
  }
  bool IsExpensive() const override { return false; }
};

class TestFailIfNegativeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->input(0).data<float>()[0] >= 0,
                errors::InvalidArgument("input is negative"));
    ctx->set_output(0, ctx->input(0));
  }
};

REGISTER_KERNEL_BUILDER(Name("TestPlusOne").Device(DEVICE_CPU), TestPlusOneOp);
REGISTER_KERNEL_BUILDER(Name("TestQuickPlusOne").Device(DEVICE_CPU), TestQuickPlusOneOp);
REGISTER_KERNEL_BUILDER(Name("TestCheapAdd").Device(DEVICE_CPU), TestCheapAddOp);
REGISTER_KERNEL_BUILDER(Name("TestFailIfNegative").Device(DEVICE_CPU), TestFailIfNegativeOp);

TEST(ExecutorTest, ChainReleasesEachBufferAfterItsLastConsumer) {
  auto device = NewCpuDevice(kDev, 2);
  Scope s = Scope::NewRootScope();
  Output x = Feed(s, "x");
  for (int i = 0; i < 100; ++i) x = OpBuilder(s, "TestPlusOne").Input(x).FinalizeOutput();
  Fetch(s, x, "y");
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  const int64_t n = 1 << 18;  // 1 MiB of floats
  Tensor in(DT_FLOAT, {n});
  for (int64_t i = 0; i < n; ++i) in.data<float>()[i] = static_cast<float>(i);
  auto rv = NewLocalRendezvous();
  ASSERT_TRUE(rv->Send(Key("x"), in).ok());
  device->allocator()->ResetPeak();
  Executor::Args args;
  args.rendezvous = rv.get();
  ASSERT_TRUE(ex->Run(args).ok());
  auto out = rv->Recv(FetchKey("y"));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->data<float>()[12345], 12345.0f + 100);
  // The fed tensor came from elsewhere; on the device at most the input and
  // the output of one node are alive at a time.
  const int64_t bytes = n * 4;
  EXPECT_LE(device->allocator()->GetStats().peak_bytes_in_use, 2 * bytes);
  EXPECT_GE(device->allocator()->GetStats().peak_bytes_in_use, bytes);
}

TEST(ExecutorTest, WideGraphRunsBranchesOnManyThreadsAndJoins) {
  auto device = NewCpuDevice(kDev, 4);
  Scope s = Scope::NewRootScope();
  Output x = Feed(s, "x");
  std::vector<Output> branches;
  for (int i = 0; i < 32; ++i) {
    Output b = x;
    for (int j = 0; j <= i % 4; ++j) b = OpBuilder(s, "TestPlusOne").Input(b).FinalizeOutput();
    branches.push_back(b);
  }
  Output sum = branches[0];
  for (size_t i = 1; i < branches.size(); ++i) {
    sum = OpBuilder(s, "TestCheapAdd").Input(sum).Input(branches[i]).FinalizeOutput();
  }
  Fetch(s, sum, "y");
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  for (int step = 0; step < 20; ++step) {
    auto rv = NewLocalRendezvous();
    ASSERT_TRUE(rv->Send(Key("x"), Tensor::FromVector<float>({1.0f, 2.0f})).ok());
    Executor::Args args;
    args.step_id = step;
    args.rendezvous = rv.get();
    ASSERT_TRUE(ex->Run(args).ok());
    auto out = rv->Recv(FetchKey("y"));
    ASSERT_TRUE(out.ok());
    // Each of the 32 branches adds 1..4 (8 branches each): 32*x + 8*(1+2+3+4).
    EXPECT_EQ(out->data<float>()[0], 32 * 1.0f + 80);
    EXPECT_EQ(out->data<float>()[1], 32 * 2.0f + 80);
  }
}

TEST(ExecutorTest, FirstErrorAbortsTheStepNamesTheNodeAndWakesRecvs) {
  auto device = NewCpuDevice(kDev, 2);
  Scope s = Scope::NewRootScope();
  Output x = Feed(s, "x");
  Output bad = OpBuilder(s.WithOpName("check"), "TestFailIfNegative").Input(x).FinalizeOutput();
  // This branch waits for a tensor nobody sends: only the abort ends it.
  Output never = Feed(s, "never");
  Fetch(s, OpBuilder(s, "TestCheapAdd").Input(bad).Input(never).FinalizeOutput(), "y");
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  auto rv = NewLocalRendezvous();
  ASSERT_TRUE(rv->Send(Key("x"), Tensor::FromVector<float>({-1.0f})).ok());
  Executor::Args args;
  args.rendezvous = rv.get();
  Status st = ex->Run(args);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'check' (op 'TestFailIfNegative'): input is negative");
  // The executor is usable for the next step.
  auto rv2 = NewLocalRendezvous();
  ASSERT_TRUE(rv2->Send(Key("x"), Tensor::FromVector<float>({3.0f})).ok());
  ASSERT_TRUE(rv2->Send(Key("never"), Tensor::FromVector<float>({4.0f})).ok());
  args.rendezvous = rv2.get();
  ASSERT_TRUE(ex->Run(args).ok());
  EXPECT_EQ(rv2->Recv(FetchKey("y"))->data<float>()[0], 7.0f);
}

TEST(ExecutorTest, RecvCompletesLaterOnAnotherThread) {
  auto device = NewCpuDevice(kDev, 2);
  Scope s = Scope::NewRootScope();
  Fetch(s, OpBuilder(s, "TestPlusOne").Input(Feed(s, "x")).FinalizeOutput(), "y");
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  auto rv = NewLocalRendezvous();
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(rv->Send(Key("x"), Tensor::FromVector<float>({41.0f})).ok());
  });
  Executor::Args args;
  args.rendezvous = rv.get();
  StepStats stats;
  args.stats = &stats;
  ASSERT_TRUE(ex->Run(args).ok());
  sender.join();
  EXPECT_EQ(rv->Recv(FetchKey("y"))->data<float>()[0], 42.0f);
  EXPECT_TRUE(stats.Ran("x"));
  EXPECT_TRUE(stats.Ran("y_send"));
  EXPECT_EQ(stats.nodes().size(), 3u);
}

TEST(ExecutorTest, ConcurrentStepsOnOneExecutorAreIndependent) {
  auto device = NewCpuDevice(kDev, 2);
  Scope s = Scope::NewRootScope();
  Output x = Feed(s, "x");
  for (int i = 0; i < 10; ++i) x = OpBuilder(s, "TestPlusOne").Input(x).FinalizeOutput();
  Fetch(s, x, "y");
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto rv = NewLocalRendezvous();
        const float v = static_cast<float>(t * 1000 + i);
        if (!rv->Send(Key("x"), Tensor::FromVector<float>({v})).ok()) ++wrong;
        Executor::Args args;
        args.rendezvous = rv.get();
        if (!ex->Run(args).ok()) ++wrong;
        auto out = rv->Recv(FetchKey("y"));
        if (!out.ok() || out->data<float>()[0] != v + 10) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ExecutorTest, MissingRendezvousIsAnErrorNotACrash) {
  auto device = NewCpuDevice(kDev, 1);
  Scope s = Scope::NewRootScope();
  Fetch(s, Feed(s, "x"), "y");
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  Status st = ex->Run(Executor::Args());
  EXPECT_EQ(st.code(), Code::kFailedPrecondition) << st.ToString();
  EXPECT_NE(st.message().find("node 'x' (op '_Recv')"), std::string::npos) << st.message();
}

TEST(ExecutorTest, ACallerThatMustNotComputeRunsOnlyCheapKernels) {
  auto device = NewCpuDevice(kDev, 2);
  Scope s = Scope::NewRootScope();
  Fetch(s, OpBuilder(s, "TestPlusOne").Input(Feed(s, "x")).FinalizeOutput(), "y");
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  for (bool may_compute : {true, false}) {
    auto rv = NewLocalRendezvous();
    ASSERT_TRUE(rv->Send(Key("x"), Tensor::FromVector<float>({1.0f})).ok());
    Executor::Args args;
    args.rendezvous = rv.get();
    args.caller_may_compute = may_compute;
    ASSERT_TRUE(ex->Run(args).ok());
    EXPECT_EQ(rv->Recv(FetchKey("y"))->data<float>()[0], 2.0f);
    // Run() calls RunAsync on this thread: the expensive kernel runs here
    // only if this thread may compute.
    EXPECT_EQ(g_plus_one_thread.load() == std::this_thread::get_id(), may_compute);
  }
}

// x -> 8 independent `op`s (TestPlusOne or TestQuickPlusOne) -> a sum,
// fetched.
class FanOut {
 public:
  FanOut(Device* device, const char* op) {
    Scope s = Scope::NewRootScope();
    Output x = Feed(s, "x");
    Output sum = OpBuilder(s, op).Input(x).FinalizeOutput();
    for (int i = 1; i < 8; ++i) {
      sum = OpBuilder(s, "TestCheapAdd").Input(sum).Input(OpBuilder(s, op).Input(x).FinalizeOutput())
                .FinalizeOutput();
    }
    Fetch(s, sum, "y");
    executor_ = MakeExecutor(s, device);
    OnOtherThreads();
  }
  // Runs one step; false if it failed or computed a wrong sum.
  bool Step(bool caller_may_compute = true) {
    auto rv = NewLocalRendezvous();
    if (!rv->Send(Key("x"), Tensor::FromVector<float>({1.0f})).ok()) return false;
    Executor::Args args;
    args.rendezvous = rv.get();
    args.caller_may_compute = caller_may_compute;
    if (executor_ == nullptr || !executor_->Run(args).ok()) return false;
    auto y = rv->Recv(FetchKey("y"));
    return y.ok() && y->data<float>()[0] == 16.0f;  // 8 * (1 + 1)
  }
  // How many of the `op`s run since the last call ran on a thread other
  // than this one, the one that runs the steps.
  int OnOtherThreads() {
    std::lock_guard<std::mutex> lock(g_threads_mu);
    int other = 0;
    for (std::thread::id t : g_threads) other += t != std::this_thread::get_id();
    g_threads.clear();
    return other;
  }

 private:
  std::unique_ptr<Executor> executor_;
};

TEST(ExecutorTest, AKernelDeclaredExpensiveThatRunsQuicklyIsLearnedCheap) {
  auto device = NewCpuDevice(kDev, 2);
  FanOut graph(device.get(), "TestQuickPlusOne");
  // Unmeasured, each counts as expensive: all but the last one kept here go
  // to the device's threads.
  ASSERT_TRUE(graph.Step());
  EXPECT_GE(graph.OnOtherThreads(), 7);
  // Timed, they take far less than a hand-off: from then on they run on
  // the thread that made them ready, this one. (A first run can be slow,
  // and a resampled run preempted: a few steps to learn, and a few runs
  // elsewhere, against 7 of 8 in every step unlearned.)
  for (int step = 0; step < 10; ++step) ASSERT_TRUE(graph.Step());
  graph.OnOtherThreads();
  int elsewhere = 0;
  for (int step = 0; step < 20; ++step) {
    ASSERT_TRUE(graph.Step());
    elsewhere += graph.OnOtherThreads();
  }
  EXPECT_LE(elsewhere, 16);  // of 160 runs
}

TEST(ExecutorTest, ACallerThatMustNotComputeRunsKernelsLearnedCheap) {
  // As it runs those declared cheap: a hand-off would cost more than they
  // do. (One that meets much bigger inputs is caught when it is timed
  // again, every KernelCosts::kResampleEvery-th run.)
  TACT_SKIP_UNDER_SANITIZER("every kernel runs several times slower, past what is learned cheap");
  auto device = NewCpuDevice(kDev, 2);
  FanOut graph(device.get(), "TestQuickPlusOne");
  for (int step = 0; step < 10; ++step) ASSERT_TRUE(graph.Step());
  graph.OnOtherThreads();
  int elsewhere = 0;
  for (int step = 0; step < 20; ++step) {
    ASSERT_TRUE(graph.Step(/*caller_may_compute=*/false));
    elsewhere += graph.OnOtherThreads();
  }
  EXPECT_LE(elsewhere, 16);  // of 160 runs, as above
}

TEST(ExecutorTest, AKernelThatIsExpensiveInFactKeepsGoingToTheDevicesThreads) {
  auto device = NewCpuDevice(kDev, 2);
  FanOut graph(device.get(), "TestPlusOne");
  for (int step = 0; step < 20; ++step) {
    ASSERT_TRUE(graph.Step());
    // Each step, 7 of the 8 go to the device's threads and this one keeps
    // the last.
    EXPECT_GE(graph.OnOtherThreads(), 7) << "step " << step;
  }
}

TEST(ExecutorTest, EmptyGraphFinishesAtOnce) {
  auto device = NewCpuDevice(kDev, 1);
  Scope s = Scope::NewRootScope();
  auto ex = MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  EXPECT_TRUE(ex->Run(Executor::Args()).ok());
}

}  // namespace
}  // namespace tact
