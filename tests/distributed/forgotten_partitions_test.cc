// A master that forgets a Run's partitions while it lives has them dropped
// where they are: when a task is lost, the master forgets every signature
// that spanned it and registers each anew on all its tasks, so the tasks
// that stayed held the old partitions, each with its graph and kernels,
// until the client went (before session 20). A worker that stays while its
// peer is cut again and again now keeps its size.
#include <gtest/gtest.h>
#include <chrono>
#include <string>
#include <thread>

#include "graph/ops/all_ops.h"
#include "tests/distributed/cluster_test_util.h"
#include "tests/distributed/process_use.h"

namespace tact {
namespace {

TEST(ForgottenPartitionsTest, AWorkerDropsWhatItsMasterRegisteredAgainAfterItsPeerWasLost) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
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
  o.supervision.task_wait_ms = 10000;  // a Run waits for the cut task to be attached again
  auto session = test_util::Connect(*cluster, *s.ToGraphDef(), o);
  ASSERT_NE(session, nullptr);

  // After each cut the master has lost worker 1, forgotten the Run's
  // partitions on both workers, and registered them again.
  auto cycle = [&](int i) {
    StatusOr<Tensor> out = test_util::CutThenRun(*cluster, w1, *session, "out:0");
    ASSERT_TRUE(out.ok()) << "cycle " << i << ": " << out.status().ToString();
    // Every partial sum is an integer below 2^24: exact in any order.
    ASSERT_EQ(out->scalar<float>(), 3145722.0f) << "cycle " << i;
  };
  for (int i = 0; i < 5; ++i) cycle(i);  // every pool and buffer at its working size
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const pid_t worker = cluster->Pid(w0);
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
