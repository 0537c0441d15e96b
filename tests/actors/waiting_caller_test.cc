// The thread that calls Session::Run runs its step's expensive kernels
// while it waits (WaitingCaller, actors/executor.h): one at a time, so a
// second one ready at once runs on a device thread beside it; each
// client's kernels on its own thread; never for a run started with
// StartFollowing, whose caller does not wait yet.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "graph/ops/all_ops.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

REGISTER_OP("TestRecordThread").Input("x: float").Output("y: float");

// Each run: the input's first element and the thread that computed it.
std::mutex g_mu;
std::vector<std::pair<float, std::thread::id>> g_runs;

// Expensive (the default) and busy for 200 us, so that it is never learned
// cheap; y = x + 1.
class TestRecordThreadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (std::chrono::steady_clock::now() < until) {
    }
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int64_t i = 0; i < x.NumElements(); ++i) y->data<float>()[i] = x.data<float>()[i] + 1;
    std::lock_guard<std::mutex> lock(g_mu);
    g_runs.emplace_back(x.data<float>()[0], std::this_thread::get_id());
  }
};
REGISTER_KERNEL_BUILDER(Name("TestRecordThread").Device(DEVICE_CPU), TestRecordThreadOp);

std::vector<std::pair<float, std::thread::id>> TakeRuns() {
  std::lock_guard<std::mutex> lock(g_mu);
  return std::move(g_runs);
}

// For each name N in `outputs`, x_N -> N, a TestRecordThread (inputs of
// their own, so that CSE does not merge them).
std::unique_ptr<Session> NewSession(const std::vector<std::string>& outputs) {
  Scope s = Scope::NewRootScope();
  for (const std::string& name : outputs) {
    auto x = Placeholder(s.WithOpName("x_" + name), DT_FLOAT);
    OpBuilder(s.WithOpName(name), "TestRecordThread").Input(x).FinalizeOutput();
  }
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok());
  EXPECT_TRUE((*session)->Extend(*def).ok());
  return std::move(session).value();
}

Tensor Scalar(float v) { return Tensor::FromVector<float>({v}); }

TEST(WaitingCallerTest, TheExpensiveKernelRunsOnTheThreadThatCalledRun) {
  auto session = NewSession({"y"});
  TakeRuns();
  for (int i = 0; i < 20; ++i) {
    auto out = session->Run({{"x_y", Scalar(static_cast<float>(i))}}, {"y:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].data<float>()[0], i + 1.0f);
  }
  const auto runs = TakeRuns();
  ASSERT_EQ(runs.size(), 20u);
  for (const auto& [x, thread] : runs) EXPECT_EQ(thread, std::this_thread::get_id()) << "run " << x;
}

TEST(WaitingCallerTest, TwoReadyAtOnceRunOneOnTheCallerAndOneBesideIt) {
  auto session = NewSession({"a", "b"});
  TakeRuns();
  for (int i = 0; i < 10; ++i) {
    const Tensor x = Scalar(static_cast<float>(i));
    auto out = session->Run({{"x_a", x}, {"x_b", x}}, {"a:0", "b:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    auto runs = TakeRuns();
    ASSERT_EQ(runs.size(), 2u);
    const int on_caller = (runs[0].second == std::this_thread::get_id()) +
                          (runs[1].second == std::this_thread::get_id());
    EXPECT_EQ(on_caller, 1) << "step " << i;
  }
}

TEST(WaitingCallerTest, EachClientRunsItsOwnSteps) {
  auto session = NewSession({"y"});
  TakeRuns();
  constexpr int kClients = 4, kRuns = 50;
  std::map<float, std::thread::id> client_of;  // by the first x a client feeds
  std::vector<std::thread::id> ids(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      ids[c] = std::this_thread::get_id();
      for (int r = 0; r < kRuns; ++r) {
        const float x = static_cast<float>(c * 1000 + r);
        auto out = session->Run({{"x_y", Scalar(x)}}, {"y:0"}, {});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        EXPECT_EQ((*out)[0].data<float>()[0], x + 1);
      }
    });
  }
  for (std::thread& t : clients) t.join();
  const auto runs = TakeRuns();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kClients * kRuns));
  for (const auto& [x, thread] : runs) {
    EXPECT_EQ(thread, ids[static_cast<int>(x) / 1000]) << "x = " << x;
  }
}

// Its caller goes on with other work, so the device's threads run it.
TEST(WaitingCallerTest, ARunStartedWithStartFollowingRunsOnTheDevice) {
  auto session = NewSession({"y"});
  TakeRuns();
  for (int i = 0; i < 5; ++i) {
    auto pending =
        session->StartFollowing({{"x_y", Scalar(static_cast<float>(i))}}, {"y:0"}, {});
    auto out = pending->Wait();
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].data<float>()[0], i + 1.0f);
  }
  const auto runs = TakeRuns();
  ASSERT_EQ(runs.size(), 5u);
  for (const auto& [x, thread] : runs) EXPECT_NE(thread, std::this_thread::get_id()) << "run " << x;
}

}  // namespace
}  // namespace tact
