// A queue on a worker process (paper 4.6 on a cluster): the queue and its
// ops stay on the worker (ref edges colocate them), the client's values
// cross to it and back, two client sessions share it through the worker's
// container, and a Dequeue that waits there ends at the step's timeout.
#include <gtest/gtest.h>

#include <thread>

#include "actors/session.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// A float queue on worker 0 whose input is doubled on worker 1 first.
GraphDef WorkerQueue() {
  Scope s = Scope::NewRootScope();
  Scope w0 = s.WithDevice("/job:worker/task:0");
  Scope w1 = s.WithDevice("/job:worker/task:1");
  Output q = FIFOQueue(w0.WithOpName("q"), {DT_FLOAT}, {PartialTensorShape({})}, -1, "", "shared_q");
  Output x = Placeholder(w1.WithOpName("x"), DT_FLOAT);
  Output twice = Add(w1.WithOpName("twice"), x, x);
  QueueEnqueue(w0.WithOpName("enqueue"), q, {twice});
  QueueDequeue(w0.WithOpName("dequeue"), q, {DT_FLOAT});
  QueueSize(w0.WithOpName("size"), q);
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return *def;
}

TEST(QueueClusterTest, TwoSessionsShareAQueueOnAWorkerAndAWaitingDequeueEndsAtItsTimeout) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  const GraphDef g = WorkerQueue();
  SessionOptions o;
  o.operation_timeout_ms = 500;
  auto producer = test_util::Connect(*cluster, g, o);
  auto consumer = test_util::Connect(*cluster, g, o);
  ASSERT_NE(producer, nullptr);
  ASSERT_NE(consumer, nullptr);

  // Empty: the consumer's Dequeue waits on the worker, holding no thread
  // there, until the step's timeout ends it.
  auto early = consumer->Run({}, {"dequeue:0"}, {});
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().code(), Code::kDeadlineExceeded) << early.status().ToString();

  for (int k = 1; k <= 3; ++k) {
    ASSERT_TRUE(producer->Run({{"x:0", Tensor::Scalar<float>(static_cast<float>(k))}}, {}, {"enqueue"}).ok());
  }
  auto size = consumer->Run({}, {"size:0"}, {});
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ((*size)[0].scalar<int32_t>(), 3);
  for (int k = 1; k <= 3; ++k) {
    auto out = consumer->Run({}, {"dequeue:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].scalar<float>(), 2.0f * static_cast<float>(k));
  }

  // A Dequeue waiting when the producer's Enqueue comes gets it.
  StatusOr<std::vector<Tensor>> waited = errors::Internal("not run");
  SessionOptions patient;
  auto slow = test_util::Connect(*cluster, g, patient);
  ASSERT_NE(slow, nullptr);
  std::thread consumer_thread([&] { waited = slow->Run({}, {"dequeue:0"}, {}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(producer->Run({{"x:0", Tensor::Scalar<float>(21)}}, {}, {"enqueue"}).ok());
  consumer_thread.join();
  ASSERT_TRUE(waited.ok()) << waited.status().ToString();
  EXPECT_EQ((*waited)[0].scalar<float>(), 42.0f);
}

// A client's master that dies while its Dequeue waits on the worker takes
// no element afterwards: the dead step is aborted there (by the client, on
// the connection the session's next master registers on, and by the worker
// as it sees the master gone), so the element the session enqueues next
// goes to a live consumer. The Run in flight answers (it waited for ever).
TEST(QueueClusterTest, ADequeueWhoseMasterDiedTakesNoElement) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  const GraphDef g = WorkerQueue();
  auto orphan = test_util::Connect(*cluster, g);
  ASSERT_NE(orphan, nullptr);
  StatusOr<std::vector<Tensor>> lost = errors::Internal("not run");
  std::thread waiting([&] { lost = orphan->Run({}, {"dequeue:0"}, {}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CrashMaster(*orphan);
  (void)orphan->Run({}, {"size:0"}, {});  // the master dies as it takes this Run
  waiting.join();
  EXPECT_EQ(lost.status().code(), Code::kUnavailable) << lost.status().ToString();
  Status put = errors::Unavailable("not run");
  for (int i = 0; i < 500 && put.code() == Code::kUnavailable; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // a new master starts
    put = orphan->Run({{"x:0", Tensor::Scalar<float>(4)}}, {}, {"enqueue"}).status();
  }
  ASSERT_TRUE(put.ok()) << put.ToString();
  SessionOptions o;
  o.operation_timeout_ms = 5000;
  auto consumer = test_util::Connect(*cluster, g, o);
  ASSERT_NE(consumer, nullptr);
  auto out = consumer->Run({}, {"dequeue:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].scalar<float>(), 8.0f);
}

}  // namespace
}  // namespace tact
