// A task keeps nothing of a client that has gone: the partitions a
// session's master registered on a worker go when the master does, so a
// worker that serves one client after another (a parameter server across
// training runs) stays at its size. Before session 19 every partition ever
// registered stayed, each with its graph and kernels.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"
#include "graph/ops/all_ops.h"
#include "tests/distributed/process_use.h"

namespace tact {
namespace {

TEST(ClientCyclesTest, AWorkerDropsTheGraphsOfEachClientThatHasGone) {
  apps::LocalClusterOptions c;
  c.binary = TACT_BINARY;
  c.jobs = {{"worker", 1}};
  auto cluster = apps::LocalCluster::Start(c);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  // A 4 MiB Const on the worker: its partition holds it in its graph and
  // its kernel, so a kept partition shows in the worker's memory.
  constexpr int64_t kElements = int64_t{1} << 20;
  Tensor big(DT_FLOAT, TensorShape({kElements}));
  for (int64_t i = 0; i < kElements; ++i) big.data<float>()[i] = static_cast<float>(i % 7);  // sums to 3145722
  Scope s = Scope::NewRootScope();
  auto x = Const(s.WithDevice("/job:worker/task:0"), big);
  Sum(s.WithDevice("/job:worker/task:0").WithOpName("sum"), x, Const(s, Tensor::Scalar<int32_t>(0)));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const GraphDef def = *s.ToGraphDef();
  SessionOptions o;
  o.cluster = (*cluster)->spec();
  o.cluster_secret = (*cluster)->secret();
  auto client = [&](int i) {
    auto session = Session::Create(o);
    ASSERT_TRUE(session.ok()) << "client " << i << ": " << session.status().ToString();
    ASSERT_TRUE((*session)->Extend(def).ok());
    auto out = (*session)->Run({}, {"sum:0"}, {});
    ASSERT_TRUE(out.ok()) << "client " << i << ": " << out.status().ToString();
    // Every partial sum is an integer below 2^24: exact in any order.
    EXPECT_EQ(out->at(0).scalar<float>(), 3145722.0f) << "client " << i;
  };
  const pid_t worker = (*cluster)->Pid(TaskName("worker", 0));
  for (int i = 0; i < 5; ++i) client(i);  // every pool and buffer at its working size
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t before = test_util::UseOf(worker).rss_kib;
  constexpr int kClients = 30;
  for (int i = 0; i < kClients; ++i) {
    client(i);
    if (HasFatalFailure()) return;
  }
  // The last client's partitions go once the worker sees its master gone.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t after = test_util::UseOf(worker).rss_kib;
  std::printf("%d clients: worker rss %lld -> %lld KiB\n", kClients, static_cast<long long>(before),
              static_cast<long long>(after));
  // 30 kept partitions would hold 30 copies of the 4 MiB Const at least.
  EXPECT_LE(after, before + 24 * 1024);
}

}  // namespace
}  // namespace tact
