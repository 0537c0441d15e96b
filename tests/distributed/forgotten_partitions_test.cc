// A master that forgets a Run's partitions while it lives has them dropped
// where they are: when a task is lost, the master forgets every signature
// that spanned it and registers each anew on all its tasks, so the tasks
// that stayed held the old partitions, each with its graph and kernels,
// until the client went (before session 20). A worker that stays while its
// peer is cut again and again now keeps its size.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"
#include "graph/ops/all_ops.h"
#include "tests/distributed/process_use.h"

namespace tact {
namespace {

TEST(ForgottenPartitionsTest, AWorkerDropsWhatItsMasterRegisteredAgainAfterItsPeerWasLost) {
  apps::LocalClusterOptions c;
  c.binary = TACT_BINARY;
  c.jobs = {{"worker", 2}};
  auto cluster = apps::LocalCluster::Start(c);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  const std::string w0 = TaskName("worker", 0), w1 = TaskName("worker", 1);
  // A 4 MiB Const on worker 0, summed there and fetched through worker 1:
  // the Run spans both workers, and a partition kept on worker 0 shows in
  // its memory.
  constexpr int64_t kElements = int64_t{1} << 20;
  Tensor big(DT_FLOAT, TensorShape({kElements}));
  for (int64_t i = 0; i < kElements; ++i) big.data<float>()[i] = static_cast<float>(i % 7);  // sums to 3145722
  Scope s = Scope::NewRootScope();
  auto x = Const(s.WithDevice("/job:worker/task:0"), big);
  auto sum = Sum(s.WithDevice("/job:worker/task:0"), x, Const(s, Tensor::Scalar<int32_t>(0)));
  Identity(s.WithDevice("/job:worker/task:1").WithOpName("out"), sum);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  SessionOptions o;
  o.cluster = (*cluster)->spec();
  o.cluster_secret = (*cluster)->secret();
  o.supervision.task_wait_ms = 10000;  // a Run waits for the cut task to be attached again
  auto session = Session::Create(o);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());

  // Cuts worker 1's connections, then runs until a step passes: the master
  // has lost worker 1, forgotten the Run's partitions on both workers, and
  // registered them again.
  auto cycle = [&](int i) {
    ASSERT_TRUE((*cluster)->Signal(w1, SIGUSR1).ok());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (;;) {
      auto out = (*session)->Run({}, {"out:0"}, {});
      if (out.ok()) {
        // Every partial sum is an integer below 2^24: exact in any order.
        ASSERT_EQ(out->at(0).scalar<float>(), 3145722.0f) << "cycle " << i;
        return;
      }
      ASSERT_EQ(out.status().code(), Code::kUnavailable) << "cycle " << i << ": " << out.status().ToString();
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "cycle " << i << ": " << out.status().ToString();
    }
  };
  for (int i = 0; i < 5; ++i) cycle(i);  // every pool and buffer at its working size
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const pid_t worker = (*cluster)->Pid(w0);
  const int64_t before = test_util::UseOf(worker).rss_kib;
  constexpr int kCycles = 30;
  for (int i = 0; i < kCycles; ++i) {
    cycle(i);
    if (HasFatalFailure()) return;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t after = test_util::UseOf(worker).rss_kib;
  std::printf("%d cycles: worker 0 rss %lld -> %lld KiB\n", kCycles, static_cast<long long>(before),
              static_cast<long long>(after));
  // 30 kept partitions would hold 30 copies of the 4 MiB Const at least.
  EXPECT_LE(after, before + 24 * 1024);
}

}  // namespace
}  // namespace tact
