// Large tensors between real `tact worker` processes while the machine is
// busy (actors/bulk_transfer.h): with the default health settings a task
// that is moving bytes is never declared lost, because no tensor bytes
// share the CAF connection that carries the pings and the control
// messages. Two CPU-bound processes compete with the cluster for the cores,
// as a user's other work does.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// Processes that spin until destroyed (or for two minutes at most).
class BusyLoops {
 public:
  explicit BusyLoops(int n) {
    for (int i = 0; i < n; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        alarm(120);
        volatile uint64_t spins = 0;
        for (;;) spins = spins + 1;
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~BusyLoops() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }
  size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

using test_util::Connect;  // default SessionOptions: pings every 500 ms, a 2 s deadline

std::unique_ptr<apps::LocalCluster> StartWorkers() { return test_util::StartCluster({{"worker", 2}}); }

constexpr int64_t k256MiBOfInt32 = int64_t{64} << 20;

TEST(BulkTransferTest, TensorsOf256MiBCrossBackAndForthUnderLoadWithDefaultHealthChecks) {
  auto cluster = StartWorkers();
  ASSERT_NE(cluster, nullptr);
  // a = iota + v on worker 0; b = 2a on worker 1; c = b - 2 iota back on
  // worker 0: every element of c is 2v only if every byte crossed twice.
  Scope s = Scope::NewRootScope();
  Scope w0 = s.WithDevice("/job:worker/task:0"), w1 = s.WithDevice("/job:worker/task:1");
  auto v = Placeholder(s.WithOpName("v"), DT_INT32);
  auto iota = Range(w0.WithOpName("iota"), Const(w0, Tensor::Scalar<int32_t>(0)),
                    Const(w0, Tensor::Scalar<int32_t>(static_cast<int32_t>(k256MiBOfInt32))),
                    Const(w0, Tensor::Scalar<int32_t>(1)));
  auto a = Add(w0.WithOpName("a"), iota, v);
  auto b = Mul(w1.WithOpName("b"), a, Const(w1, Tensor::Scalar<int32_t>(2)));
  auto c = Sub(w0.WithOpName("c"), b, Mul(w0, iota, Const(w0, Tensor::Scalar<int32_t>(2))));
  auto axis = Const(w0, Tensor::Scalar<int32_t>(0));
  Max(w0.WithOpName("max"), c, axis);
  Min(w0.WithOpName("min"), c, axis);
  auto session = Connect(*cluster, *s.ToGraphDef());
  ASSERT_NE(session, nullptr);

  BusyLoops busy(2);
  ASSERT_EQ(busy.size(), 2u);
  for (int32_t step = 1; step <= 10; ++step) {
    auto out = session->Run({{"v:0", Tensor::Scalar<int32_t>(step)}}, {"max:0", "min:0"}, {});
    ASSERT_TRUE(out.ok()) << "step " << step << ": " << out.status().ToString();
    EXPECT_EQ(out->at(0).scalar<int32_t>(), 2 * step) << "step " << step;
    EXPECT_EQ(out->at(1).scalar<int32_t>(), 2 * step) << "step " << step;
  }
}

// The main job's benchmark: a 64 MiB Const travels in its registration and
// a 64 MiB feed in its step, each beside the control message on the link.
TEST(BulkTransferTest, ALargeConstAndALargeFeedReachTheirTaskUnderLoad) {
  auto cluster = StartWorkers();
  ASSERT_NE(cluster, nullptr);
  const int64_t n = int64_t{16} << 20;  // floats: 64 MiB
  Tensor big(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) big.data<float>()[i] = static_cast<float>(i % 251);
  Scope s = Scope::NewRootScope();
  Scope w0 = s.WithDevice("/job:worker/task:0"), w1 = s.WithDevice("/job:worker/task:1");
  auto axis = Const(s, Tensor::Scalar<int32_t>(0));
  auto k = Const(w0.WithOpName("k"), big);
  auto x = Placeholder(w1.WithOpName("x"), DT_FLOAT);
  // Max of k - x: 0 only if both arrived whole (x is fed as k).
  Max(w1.WithOpName("diff"), Abs(w1, Sub(w1, k, x)), axis);
  Max(w1.WithOpName("kmax"), k, axis);
  auto session = Connect(*cluster, *s.ToGraphDef());
  ASSERT_NE(session, nullptr);

  BusyLoops busy(2);
  for (int step = 0; step < 3; ++step) {
    auto out = session->Run({{"x:0", big}}, {"diff:0", "kmax:0"}, {});
    ASSERT_TRUE(out.ok()) << "step " << step << ": " << out.status().ToString();
    EXPECT_EQ(out->at(0).scalar<float>(), 0.0f);
    EXPECT_EQ(out->at(1).scalar<float>(), 250.0f);
  }
  // A feed of another value must change the answer: the step read this
  // step's feed, not a stale one.
  Tensor shifted = big.DeepCopy();
  shifted.data<float>()[n - 1] += 7;
  auto out = session->Run({{"x:0", shifted}}, {"diff:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at(0).scalar<float>(), 7.0f);
}

// A StepDone's large fetch travels on the link ahead of it
// (actors/step_link.h), so 64 MiB coming back to the client never holds
// the pings either.
TEST(BulkTransferTest, ALargeFetchComesBackWholeUnderLoad) {
  auto cluster = StartWorkers();
  ASSERT_NE(cluster, nullptr);
  const int32_t n = 16 << 20;  // int32s: 64 MiB
  Scope s = Scope::NewRootScope();
  Scope w1 = s.WithDevice("/job:worker/task:1");
  auto v = Placeholder(s.WithOpName("v"), DT_INT32);
  Add(w1.WithOpName("big"),
      Range(w1, Const(w1, Tensor::Scalar<int32_t>(0)), Const(w1, Tensor::Scalar<int32_t>(n)),
            Const(w1, Tensor::Scalar<int32_t>(1))),
      v);
  Identity(w1.WithOpName("small"), v);
  auto session = Connect(*cluster, *s.ToGraphDef());
  ASSERT_NE(session, nullptr);

  BusyLoops busy(2);
  for (int32_t step = 1; step <= 5; ++step) {
    auto out = session->Run({{"v:0", Tensor::Scalar<int32_t>(step)}}, {"big:0", "small:0"}, {});
    ASSERT_TRUE(out.ok()) << "step " << step << ": " << out.status().ToString();
    ASSERT_EQ(out->at(0).NumElements(), n);
    const int32_t* big = out->at(0).data<int32_t>();
    int64_t wrong = 0;
    for (int32_t i = 0; i < n; ++i) wrong += big[i] != i + step;
    EXPECT_EQ(wrong, 0) << "step " << step;
    EXPECT_EQ(out->at(1).scalar<int32_t>(), step);
  }
}

int Threads(pid_t pid) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    (void)e;
    ++n;
  }
  return n;
}

// Each session's master gets a link back from every task it ran a step
// on; the task drops it when the session ends, so a client that opens
// sessions in a loop leaves no threads or sockets behind in the workers.
TEST(BulkTransferTest, SessionsComingAndGoingLeaveTheWorkersThreadsAsTheyWere) {
  auto cluster = StartWorkers();
  ASSERT_NE(cluster, nullptr);
  Scope s = Scope::NewRootScope();
  Identity(s.WithDevice("/job:worker/task:1").WithOpName("y"), Const(s, Tensor::Scalar<float>(3)));
  const GraphDef graph = *s.ToGraphDef();
  const pid_t worker = cluster->Pid(TaskName("worker", 1));
  auto one_session = [&] {
    auto session = Connect(*cluster, graph);
    ASSERT_NE(session, nullptr);
    for (int i = 0; i < 3; ++i) {
      auto y = session->Run({}, {"y:0"}, {});
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      EXPECT_EQ(y->at(0).scalar<float>(), 3.0f);
    }
  };
  one_session();
  const int before = Threads(worker);
  for (int i = 0; i < 30; ++i) one_session();
  // The last session's link may still be closing.
  int after = Threads(worker);
  for (int wait = 0; wait < 50 && after > before; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after = Threads(worker);
  }
  EXPECT_LE(after, before) << "threads of the worker: " << before << " -> " << after;
}

}  // namespace
}  // namespace tact
