// A task that sent a step's tensor and answered its part of the step, then
// died before the tensor reached its peer: the step fails at once, naming
// the task, and does not wait for its deadline. Real `tact worker`
// processes over loopback; the peer is stopped while the sender sends, so
// that the tensor is still on its way when the sender dies (half written
// on the socket, or lent and not yet copied).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kFloats = int64_t{8} << 20;  // 32 MiB: more than loopback's socket buffers

// 32 MiB of ones made on worker 0, summed on worker 1.
GraphDef OnesSentToWorker1() {
  Scope s = Scope::NewRootScope();
  Scope w0 = s.WithDevice("/job:worker/task:0");
  auto ones = Fill(w0.WithOpName("ones"), Const(w0, Tensor::FromVector<int32_t>({kFloats}, {1})),
                   Const(w0, Tensor::Scalar<float>(1.0f)));
  Scope w1 = s.WithDevice("/job:worker/task:1");
  Sum(w1.WithOpName("total"), ones, Const(w1, Tensor::FromVector<int32_t>({0}, {1})));
  return *s.ToGraphDef();
}

void SenderDiesWithItsTensorOnTheWay(bool lending) {
  // The workers read it as they start.
  if (!lending) setenv("TACT_LINK_LENDING", "0", 1);
  auto cluster = test_util::StartCluster({{"worker", 2}});
  unsetenv("TACT_LINK_LENDING");
  ASSERT_NE(cluster, nullptr);
  SessionOptions o;
  o.health_timeout_ms = 30000;     // the stopped worker 1 is not lost meanwhile
  o.operation_timeout_ms = 20000;  // a step that waited for it would end here
  auto session = test_util::Connect(*cluster, OnesSentToWorker1(), o);
  ASSERT_NE(session, nullptr);
  auto warm = session->Run({}, {"total"}, {});
  ASSERT_TRUE(warm.ok()) << warm.status().ToString();
  EXPECT_EQ((*warm)[0].scalar<float>(), static_cast<float>(kFloats));

  const std::string sender = TaskName("worker", 0), peer = TaskName("worker", 1);
  ASSERT_TRUE(cluster->Signal(peer, SIGSTOP).ok());
  ASSERT_TRUE(test_util::StoppedWithin(cluster->Pid(peer), std::chrono::seconds(5)));
  StatusOr<std::vector<Tensor>> r = errors::Internal("not run");
  std::thread step([&] { r = session->Run({}, {"total"}, {}); });
  // Worker 0 makes its tensor, hands it to its link and answers; the link
  // writes until the stopped peer's socket is full (or lends it).
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(cluster->Signal(sender, SIGKILL).ok());
  const Clock::time_point killed = Clock::now();
  ASSERT_TRUE(cluster->Signal(peer, SIGCONT).ok());
  step.join();
  const auto took = Clock::now() - killed;
  ASSERT_FALSE(r.ok()) << "the step finished without its sender";
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().ToString();
  EXPECT_NE(r.status().message().find(sender), std::string::npos) << r.status().ToString();
  EXPECT_LT(took, std::chrono::seconds(5)) << r.status().ToString();
}

TEST(LostTensorTest, ASenderThatAnsweredAndDiedFailsTheStepAtOnce) {
  SenderDiesWithItsTensorOnTheWay(/*lending=*/false);
}

TEST(LostTensorTest, ASenderThatLentItsTensorAndDiedFailsTheStepAtOnce) {
  SenderDiesWithItsTensorOnTheWay(/*lending=*/true);
}

}  // namespace
}  // namespace tact
