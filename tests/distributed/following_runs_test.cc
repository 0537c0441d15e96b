// Runs that follow one another (Session::StartFollowing), in one process
// and on real worker processes: a step sent while the one before it still
// runs computes as if sent after it returned, and when the one before
// fails, it fails too (Aborted) without running.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// v = v + (a value dequeued from q): the step reads v first, on the
// variable's device, then waits for the queue, on the queue's. Two such
// steps at once would both read v before either wrote it. "enqueue" puts
// x in the queue, "enqueue_many" each element of xs.
// With `bump`, the sum also adds the fed "bump" (on the queue's device).
GraphDef AddFromQueue(const std::string& variable_device, const std::string& queue_device,
                      const std::string& shared_name, bool bump = false) {
  Scope s = Scope::NewRootScope();
  Scope on_v = s.WithDevice(variable_device);
  Scope on_q = s.WithDevice(queue_device);
  Output v = Variable(on_v.WithOpName("v"), PartialTensorShape({}), DT_FLOAT);
  Assign(on_v.WithOpName("init"), v, Const(on_v.WithOpName("zero"), Tensor::Scalar<float>(0)));
  Output read = Identity(on_v.WithOpName("read"), v);
  Output q = FIFOQueue(on_q.WithOpName("q"), {DT_FLOAT}, {PartialTensorShape({})}, -1, "", shared_name);
  Output x = Placeholder(on_q.WithOpName("x"), DT_FLOAT);
  QueueEnqueue(on_q.WithOpName("enqueue"), q, {x});
  Output xs = Placeholder(on_q.WithOpName("xs"), DT_FLOAT);
  QueueEnqueueMany(on_q.WithOpName("enqueue_many"), q, {xs});
  QueueClose(on_q.WithOpName("close"), q);
  Output got = QueueDequeue(on_q.WithOpName("dequeue"), q, {DT_FLOAT})[0];
  if (bump) got = Add(on_q.WithOpName("bumped"), got, Placeholder(on_q.WithOpName("bump"), DT_FLOAT));
  Assign(on_v.WithOpName("update"), v, Add(on_v.WithOpName("sum"), read, got));
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return *def;
}

Status Enqueue(Session& s, float x) {
  return s.Run({{"x:0", Tensor::Scalar<float>(x)}}, {}, {"enqueue"}).status();
}

// Two steps sent at once, while the queue is empty: the second reads v
// only after the first has written it.
void TheSecondReadsWhatTheFirstWrote(Session& session) {
  ASSERT_TRUE(session.Run({}, {}, {"init"}).ok());
  std::unique_ptr<PendingRun> first = session.StartFollowing({}, {"update:0"}, {});
  std::unique_ptr<PendingRun> second = session.StartFollowing({}, {"update:0"}, {});
  // Both are sent; let the second run ahead if it could.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(Enqueue(session, 1).ok());
  ASSERT_TRUE(Enqueue(session, 10).ok());
  StatusOr<std::vector<Tensor>> a = first->Wait();
  StatusOr<std::vector<Tensor>> b = second->Wait();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*a)[0].scalar<float>(), 1.0f);
  EXPECT_EQ((*b)[0].scalar<float>(), 11.0f);  // 10 alone had it read v before the first wrote
}

// The first fails (its queue is closed while it waits): the second fails
// with Aborted, naming the first, and never dequeues or writes.
void TheSecondFailsWithTheFirstWithoutRunning(Session& session) {
  ASSERT_TRUE(session.Run({}, {}, {"init"}).ok());
  std::unique_ptr<PendingRun> first = session.StartFollowing({}, {"update:0"}, {});
  std::unique_ptr<PendingRun> second = session.StartFollowing({}, {"update:0"}, {});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(session.Run({}, {}, {"close"}).ok());
  StatusOr<std::vector<Tensor>> a = first->Wait();
  StatusOr<std::vector<Tensor>> b = second->Wait();
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Code::kOutOfRange) << a.status().ToString();
  ASSERT_FALSE(b.ok());
  // Had it run, its Dequeue would have failed as the first's did.
  EXPECT_EQ(b.status().code(), Code::kAborted) << b.status().ToString();
  EXPECT_NE(b.status().message().find("follows, failed"), std::string::npos)
      << b.status().ToString();
  // v is as it was, and the session goes on.
  StatusOr<std::vector<Tensor>> v = session.Run({}, {"read:0"}, {});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)[0].scalar<float>(), 0.0f);
}

class FollowingRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = std::string("following_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  std::unique_ptr<Session> Local() {
    auto s = Session::Create();
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return nullptr;
    EXPECT_TRUE((*s)->Extend(AddFromQueue("", "", name_)).ok());
    return std::move(s).value();
  }
  std::string name_;
};

TEST_F(FollowingRunsTest, InOneProcessTheSecondReadsWhatTheFirstWrote) {
  auto session = Local();
  ASSERT_NE(session, nullptr);
  TheSecondReadsWhatTheFirstWrote(*session);
}

TEST_F(FollowingRunsTest, InOneProcessTheSecondFailsWithTheFirstWithoutRunning) {
  auto session = Local();
  ASSERT_NE(session, nullptr);
  TheSecondFailsWithTheFirstWithoutRunning(*session);
}

TEST_F(FollowingRunsTest, ClosingTheSessionEndsAStepThatWaitsForTheOneItFollows) {
  auto session = Local();
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  std::unique_ptr<PendingRun> first = session->StartFollowing({}, {"update:0"}, {});
  std::unique_ptr<PendingRun> second = session->StartFollowing({}, {"update:0"}, {});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::thread closer([&] { EXPECT_TRUE(session->Close().ok()); });
  StatusOr<std::vector<Tensor>> a = first->Wait();
  StatusOr<std::vector<Tensor>> b = second->Wait();
  closer.join();
  ASSERT_FALSE(a.ok());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(a.status().code(), Code::kCancelled) << a.status().ToString();
  // Cancelled by the close, or Aborted for the first's cancellation.
  EXPECT_TRUE(b.status().code() == Code::kCancelled || b.status().code() == Code::kAborted)
      << b.status().ToString();
  std::unique_ptr<PendingRun> late = session->StartFollowing({}, {"update:0"}, {});
  EXPECT_EQ(late->Wait().status().code(), Code::kFailedPrecondition);
}

// Thousands sent while the first waits for the queue, each a cheap step:
// once the queue fills, each starts the next as it ends, in order, and
// none deeper in the stack than the first.
TEST_F(FollowingRunsTest, ThousandsSentAtOnceRunInOrder) {
  auto session = Local();
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  constexpr int kRuns = 20000;
  std::vector<std::unique_ptr<PendingRun>> runs;
  for (int i = 0; i < kRuns; ++i) runs.push_back(session->StartFollowing({}, {"update:0"}, {}));
  std::vector<float> ones(kRuns, 1.0f);
  ASSERT_TRUE(session->Run({{"xs:0", Tensor::FromVector<float>(ones, {kRuns})}}, {}, {"enqueue_many"}).ok());
  for (int i = 0; i < kRuns; ++i) {
    auto out = runs[i]->Wait();
    ASSERT_TRUE(out.ok()) << "run " << i << ": " << out.status().ToString();
    ASSERT_EQ((*out)[0].scalar<float>(), static_cast<float>(i + 1)) << "run " << i;
  }
}

// The variable on the ps, the queue on the worker: each step crosses both
// processes, and the second's partitions wait in each for the first's.
class FollowingRunsClusterTest : public ::testing::Test {
 protected:
  std::unique_ptr<Session> Connect(bool bump = false) {
    cluster_ = test_util::StartCluster({{"ps", 1}, {"worker", 1}});
    if (cluster_ == nullptr) return nullptr;
    return test_util::Connect(*cluster_, AddFromQueue("/job:ps/task:0", "/job:worker/task:0", "q", bump));
  }
  // The steps that still hold a rendezvous in `task`, as it prints them
  // once stopped; -1 after a test failure saying why.
  int64_t StopAndReadRendezvousSteps(const std::string& task) {
    const std::string line =
        test_util::StopAndReadLine(*cluster_, task, "tact worker " + task + " holds the rendezvous of ");
    return line.empty() ? -1 : std::strtoll(line.c_str(), nullptr, 10);
  }

  std::unique_ptr<apps::LocalCluster> cluster_;
};

TEST_F(FollowingRunsClusterTest, TheSecondReadsWhatTheFirstWrote) {
  auto session = Connect();
  ASSERT_NE(session, nullptr);
  TheSecondReadsWhatTheFirstWrote(*session);
}

TEST_F(FollowingRunsClusterTest, TheSecondFailsWithTheFirstWithoutRunning) {
  auto session = Connect();
  ASSERT_NE(session, nullptr);
  TheSecondFailsWithTheFirstWithoutRunning(*session);
}

// As above, with a feed that goes to the worker: the second step's fed
// tensor reaches the worker's rendezvous although the step never runs
// there, and is let go with it. No step is left holding a rendezvous in
// either process.
TEST_F(FollowingRunsClusterTest, TheFeedsOfAFollowerThatNeverRunsAreLetGo) {
  auto session = Connect(/*bump=*/true);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  std::unique_ptr<PendingRun> first =
      session->StartFollowing({{"bump:0", Tensor::Scalar<float>(1)}}, {"update:0"}, {});
  std::unique_ptr<PendingRun> second =
      session->StartFollowing({{"bump:0", Tensor::Scalar<float>(2)}}, {"update:0"}, {});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(session->Run({}, {}, {"close"}).ok());
  EXPECT_EQ(first->Wait().status().code(), Code::kOutOfRange);
  EXPECT_EQ(second->Wait().status().code(), Code::kAborted);
  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(StopAndReadRendezvousSteps("/job:worker/replica:0/task:0"), 0);
  EXPECT_EQ(StopAndReadRendezvousSteps("/job:ps/replica:0/task:0"), 0);
}

}  // namespace
}  // namespace tact
