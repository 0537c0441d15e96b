// A task whose peer comes and goes keeps nothing of it: after many cycles
// of a worker's connections cut and the worker attached again (each cycle
// a fresh CAF connection, a new hello and a new tensor link between the
// two workers), the other worker's open files, threads and memory are
// where they were.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "graph/ops/all_ops.h"
#include "tests/distributed/cluster_test_util.h"
#include "tests/distributed/process_use.h"
#include "tests/sanitizer.h"

namespace tact {
namespace {

using test_util::ProcessUse;
using test_util::UseOf;

TEST(PeerCyclesTest, AWorkerCutAndAttachedAgainLeavesItsPeerAsItWas) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  const std::string w0 = TaskName("worker", 0), w1 = TaskName("worker", 1);
  // A tensor from worker 1 to worker 0 and back: each step uses the link
  // from worker 1 into worker 0 that every cut breaks.
  Scope s = Scope::NewRootScope();
  auto x = Const(s.WithDevice("/job:worker/task:1"), Tensor(DT_FLOAT, TensorShape({1024})));
  auto y = Identity(s.WithDevice("/job:worker/task:0"), x);
  Size(s.WithDevice("/job:worker/task:1").WithOpName("n"), y);
  SessionOptions o;
  o.supervision.task_wait_ms = 10000;  // a Run waits for the cut task to be attached again
  auto session = test_util::Connect(*cluster, *s.ToGraphDef(), o);
  ASSERT_NE(session, nullptr);

  auto cycle = [&](int i) {
    StatusOr<Tensor> n = test_util::CutThenRun(*cluster, w1, *session, "n:0");
    ASSERT_TRUE(n.ok()) << "cycle " << i << ": " << n.status().ToString();
    ASSERT_EQ(n->scalar<int32_t>(), 1024) << "cycle " << i;
  };
  for (int i = 0; i < 20; ++i) cycle(i);  // every pool and buffer at its working size
  const pid_t peer = cluster->Pid(w0);
  const ProcessUse before = UseOf(peer);
  const int kCycles = std::getenv("TACT_PEER_CYCLES") ? std::atoi(std::getenv("TACT_PEER_CYCLES")) : 1000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCycles; ++i) {
    cycle(i);
    if (HasFatalFailure()) return;
  }
  const ProcessUse after = UseOf(peer);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d cycles in %.1f s; worker 0: fds %lld -> %lld, threads %lld -> %lld, rss %lld -> %lld KiB\n",
              kCycles, secs, static_cast<long long>(before.fds), static_cast<long long>(after.fds),
              static_cast<long long>(before.threads), static_cast<long long>(after.threads),
              static_cast<long long>(before.rss_kib), static_cast<long long>(after.rss_kib));
  // A link or reader kept per cycle would add a thousand of each.
  EXPECT_LE(after.fds, before.fds + 4);
  EXPECT_LE(after.threads, before.threads + 4);
  // Under AddressSanitizer freed blocks wait in a quarantine of 256 MiB.
  if (!test_util::kUnderSanitizer) {
    EXPECT_LE(after.rss_kib, before.rss_kib + 32 * 1024);
  }
}

}  // namespace
}  // namespace tact
