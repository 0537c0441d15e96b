// Queues as a user meets them (paper 4.6): built with the builder API, fed
// by one session and drained by another through a shared container, with
// Dequeues that wait without holding a thread and end when the queue is
// closed, the step times out or the session closes.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "graph/ops/all_ops.h"
#include "kernels/resource_mgr.h"

namespace tact {
namespace {

// A float queue "q" in `container`, with "enqueue" (of x), "dequeue:0",
// "size:0" and "close".
GraphDef QueueGraph(const std::string& container, int64_t capacity = -1) {
  Scope s = Scope::NewRootScope();
  Output q = FIFOQueue(s.WithOpName("q"), {DT_FLOAT}, {PartialTensorShape({})}, capacity, container);
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  QueueEnqueue(s.WithOpName("enqueue"), q, {x});
  QueueDequeue(s.WithOpName("dequeue"), q, {DT_FLOAT});
  QueueSize(s.WithOpName("size"), q);
  QueueClose(s.WithOpName("close"), q);
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return *def;
}

std::unique_ptr<Session> Open(const GraphDef& g, SessionOptions o = {}) {
  auto s = Session::Create(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE((*s)->Extend(g).ok());
  return std::move(*s);
}

Status Enqueue(Session& s, float v) {
  return s.Run({{"x:0", Tensor::Scalar<float>(v)}}, {}, {"enqueue"}).status();
}

class QueueSessionTest : public ::testing::Test {
 protected:
  // Each test its own container: containers are process-wide.
  void SetUp() override {
    container_ = std::string("queue_test_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override { ResourceMgr::Global()->Reset(container_); }
  std::string container_;
};

TEST_F(QueueSessionTest, OneSessionFeedsWhatAnotherDrainsInOrderWhileItsDequeuesWait) {
  const GraphDef g = QueueGraph(container_);
  SessionOptions one_thread;
  one_thread.intra_op_threads = 1;
  auto producer = Open(g), consumer = Open(g, one_thread);
  // The consumer waits first, in four Runs at once: none holds a thread of
  // the single-threaded device while it waits.
  std::vector<float> got(4, -1);
  std::vector<std::thread> waiting;
  for (int k = 0; k < 4; ++k) {
    waiting.emplace_back([&, k] {
      auto out = consumer->Run({}, {"dequeue:0"}, {});
      if (out.ok()) got[k] = (*out)[0].scalar<float>();
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (int k = 0; k < 10; ++k) ASSERT_TRUE(Enqueue(*producer, static_cast<float>(k)).ok());
  for (auto& t : waiting) t.join();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<float>{0, 1, 2, 3}));
  auto size = consumer->Run({}, {"size:0"}, {});
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].scalar<int32_t>(), 6);
  for (int k = 4; k < 10; ++k) {
    auto out = consumer->Run({}, {"dequeue:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].scalar<float>(), static_cast<float>(k));
  }
}

TEST_F(QueueSessionTest, AClosedQueueDrainsThenEndsTheInputWithOutOfRangeNamingTheNode) {
  auto s = Open(QueueGraph(container_));
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(Enqueue(*s, static_cast<float>(k)).ok());
  ASSERT_TRUE(s->Run({}, {}, {"close"}).ok());
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(s->Run({}, {"dequeue:0"}, {}).ok());
  auto end = s->Run({}, {"dequeue:0"}, {});
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status().code(), Code::kOutOfRange) << end.status().ToString();
  // Named once, by the executor: the kernels' own "node 'dequeue': " made
  // it twice.
  EXPECT_EQ(end.status().message().rfind("node 'dequeue' (op 'QueueDequeue'): queue 'q' is closed", 0), 0u)
      << end.status().ToString();
  Status late = Enqueue(*s, 9);
  EXPECT_EQ(late.code(), Code::kCancelled) << late.ToString();
}

// A queue's handle is no value to fetch: the error says what it holds, where
// it said "got a resource tensor"; the session goes on.
TEST_F(QueueSessionTest, FetchingTheQueueItselfSaysItIsAQueue) {
  auto s = Open(QueueGraph(container_));
  auto handle = s->Run({}, {"q:0"}, {});
  ASSERT_FALSE(handle.ok());
  const std::string expected = "expected a reference to a variable, got a reference to FIFOQueue";
  EXPECT_NE(handle.status().message().find(expected), std::string::npos) << handle.status().ToString();
  // Named as the client asked for it, not by the node the session added.
  EXPECT_EQ(handle.status().message().rfind("fetch 'q:0': ", 0), 0u) << handle.status().ToString();
  ASSERT_TRUE(Enqueue(*s, 5).ok());
  auto size = s->Run({}, {"size:0"}, {});
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ((*size)[0].scalar<int32_t>(), 1);
}

TEST_F(QueueSessionTest, AStepWaitingOnAnEmptyQueueEndsAtItsTimeoutAndTheSessionGoesOn) {
  SessionOptions o;
  o.operation_timeout_ms = 200;
  auto s = Open(QueueGraph(container_), o);
  const auto start = std::chrono::steady_clock::now();
  auto out = s->Run({}, {"dequeue:0"}, {});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kDeadlineExceeded) << out.status().ToString();
  EXPECT_EQ(out.status().message().rfind("node 'dequeue' (op 'QueueDequeue'): step ", 0), 0u)
      << out.status().ToString();
  EXPECT_NE(out.status().message().find("ran past the operation timeout of 200 ms"), std::string::npos)
      << out.status().ToString();
  EXPECT_LT(waited, 5.0);
  // The aborted wait took nothing: the next element goes to the next Run.
  ASSERT_TRUE(Enqueue(*s, 5).ok());
  auto next = s->Run({}, {"dequeue:0"}, {});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ((*next)[0].scalar<float>(), 5.0f);
}

TEST_F(QueueSessionTest, ClosingTheSessionEndsADequeueThatWaits) {
  auto s = Open(QueueGraph(container_));
  Status status;
  std::thread waiting([&] { status = s->Run({}, {"dequeue:0"}, {}).status(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(s->Close().ok());
  waiting.join();
  EXPECT_EQ(status.code(), Code::kCancelled) << status.ToString();
}

// A session's master that dies while its Dequeue waits takes no element
// afterwards: the Run answers, and the dead step is aborted before the
// session's next master registers anything, so the element the session
// enqueues next goes to a live consumer (another session on the queue).
TEST_F(QueueSessionTest, ADequeueWhoseMasterDiedTakesNoElement) {
  const GraphDef g = QueueGraph(container_);
  auto orphan = Open(g), consumer = Open(g);
  StatusOr<std::vector<Tensor>> lost = errors::Internal("not run");
  std::thread waiting([&] { lost = orphan->Run({}, {"dequeue:0"}, {}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CrashMaster(*orphan);
  (void)orphan->Run({}, {"size:0"}, {});  // the master dies as it takes this Run
  waiting.join();  // it waited for ever
  EXPECT_EQ(lost.status().code(), Code::kUnavailable) << lost.status().ToString();
  Status put = errors::Unavailable("not run");
  for (int i = 0; i < 500 && put.code() == Code::kUnavailable; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // a new master starts
    put = Enqueue(*orphan, 7);
  }
  ASSERT_TRUE(put.ok()) << put.ToString();
  RunOptions patient;
  patient.timeout_ms = 5000;
  auto out = consumer->Run(patient, {}, {"dequeue:0"}, {}, nullptr);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].scalar<float>(), 7.0f);
}

TEST_F(QueueSessionTest, AFullQueuesEnqueueWaitsUntilAnotherSessionMakesRoom) {
  const GraphDef g = QueueGraph(container_, /*capacity=*/2);
  auto producer = Open(g), consumer = Open(g);
  ASSERT_TRUE(Enqueue(*producer, 1).ok());
  ASSERT_TRUE(Enqueue(*producer, 2).ok());
  Status third = errors::Internal("not run");
  std::thread blocked([&] { third = Enqueue(*producer, 3); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto size = consumer->Run({}, {"size:0"}, {});
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].scalar<int32_t>(), 2);  // the third still waits
  auto first = consumer->Run({}, {"dequeue:0"}, {});
  ASSERT_TRUE(first.ok());
  blocked.join();
  EXPECT_TRUE(third.ok()) << third.ToString();
  for (float want : {2.0f, 3.0f}) {
    auto out = consumer->Run({}, {"dequeue:0"}, {});
    ASSERT_TRUE(out.ok());
    EXPECT_EQ((*out)[0].scalar<float>(), want);
  }
}

TEST_F(QueueSessionTest, AnEnqueueOfTheWrongKindIsRefusedNamingTheNodeAndTheSessionGoesOn) {
  auto s = Open(QueueGraph(container_));
  auto bad = s->Run({{"x:0", Tensor::FromVector<float>({1, 2})}}, {}, {"enqueue"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("enqueue"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("shape"), std::string::npos) << bad.status().ToString();
  ASSERT_TRUE(Enqueue(*s, 4).ok());
  auto out = s->Run({}, {"dequeue:0"}, {});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].scalar<float>(), 4.0f);
}

// Batches (paper 4.6's input pipelines): images and labels enqueued many
// at a time, dequeued as stacked batches; the last, short batch with UpTo.
TEST_F(QueueSessionTest, ManyElementsGoInAtOnceAndComeOutAsStackedBatches) {
  Scope s = Scope::NewRootScope();
  Output q = FIFOQueue(s.WithOpName("q"), {DT_FLOAT, DT_INT32},
                       {PartialTensorShape({2}), PartialTensorShape({})}, -1, container_);
  Output images = Placeholder(s.WithOpName("images"), DT_FLOAT);
  Output labels = Placeholder(s.WithOpName("labels"), DT_INT32);
  QueueEnqueueMany(s.WithOpName("enqueue_many"), q, {images, labels});
  Output n = Const(s, Tensor::Scalar<int32_t>(2));
  QueueDequeueMany(s.WithOpName("batch"), q, n, {DT_FLOAT, DT_INT32});
  QueueDequeueMany(s.WithOpName("last"), q, n, {DT_FLOAT, DT_INT32}, /*up_to=*/true);
  QueueClose(s.WithOpName("close"), q);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  auto session = Open(*def);
  // 3 elements: images [3, 2], labels [3].
  ASSERT_TRUE(session
                  ->Run({{"images:0", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}))},
                         {"labels:0", Tensor::FromVector<int32_t>({7, 8, 9})}},
                        {}, {"enqueue_many"})
                  .ok());
  auto batch = session->Run({}, {"batch:0", "batch:1"}, {});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ((*batch)[0].shape(), TensorShape({2, 2}));
  EXPECT_EQ((*batch)[0].data<float>()[3], 4.0f);
  EXPECT_EQ((*batch)[1].shape(), TensorShape({2}));
  EXPECT_EQ((*batch)[1].data<int32_t>()[1], 8);
  ASSERT_TRUE(session->Run({}, {}, {"close"}).ok());
  auto last = session->Run({}, {"last:0", "last:1"}, {});
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ((*last)[0].shape(), TensorShape({1, 2}));
  EXPECT_EQ((*last)[1].data<int32_t>()[0], 9);
  auto end = session->Run({}, {"last:0"}, {});
  EXPECT_EQ(end.status().code(), Code::kOutOfRange) << end.status().ToString();
  // A queue of undeclared shapes cannot be batched: refused before any
  // element is taken.
  Scope u = Scope::NewRootScope();
  Output any = FIFOQueue(u.WithOpName("any"), {DT_FLOAT}, {}, -1, container_);
  QueueEnqueue(u.WithOpName("put"), any, {Placeholder(u.WithOpName("v"), DT_FLOAT)});
  QueueDequeueMany(u.WithOpName("take2"), any, Const(u, Tensor::Scalar<int32_t>(2)), {DT_FLOAT});
  QueueSize(u.WithOpName("any_size"), any);
  auto udef = u.ToGraphDef();
  ASSERT_TRUE(udef.ok());
  auto other = Open(*udef);
  for (float v : {1.0f, 2.0f}) ASSERT_TRUE(other->Run({{"v:0", Tensor::Scalar<float>(v)}}, {}, {"put"}).ok());
  auto unbatched = other->Run({}, {"take2:0"}, {});
  EXPECT_EQ(unbatched.status().code(), Code::kInvalidArgument) << unbatched.status().ToString();
  EXPECT_EQ(unbatched.status().message().rfind(
                "node 'take2' (op 'QueueDequeueMany'): queue 'any' does not declare the full shape", 0),
            0u)
      << unbatched.status().ToString();
  auto kept = other->Run({}, {"any_size:0"}, {});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)[0].scalar<int32_t>(), 2);
  // Components whose first dimensions differ are refused, naming the node.
  auto bad = session->Run({{"images:0", Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}))},
                           {"labels:0", Tensor::FromVector<int32_t>({7, 8})}},
                          {}, {"enqueue_many"});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  const std::string named = "node 'enqueue_many' (op 'QueueEnqueueMany'): component 1 has shape ";
  EXPECT_EQ(bad.status().message().rfind(named, 0), 0u) << bad.status().ToString();
}

// In a process whose address space is limited to 48 MB more than it has:
// two elements of 40 MB go in, and their batch of 80 MB cannot be made.
// Exits 0 if that is a ResourceExhausted naming the node and the session
// then still runs steps.
[[noreturn]] void BatchPastTheMemoryLimit(const std::string& container) {
  Scope s = Scope::NewRootScope();
  Output q = FIFOQueue(s.WithOpName("q"), {DT_FLOAT}, {PartialTensorShape({10 << 20})}, -1, container);
  QueueEnqueue(s.WithOpName("put"), q, {Placeholder(s.WithOpName("x"), DT_FLOAT)});
  QueueDequeueMany(s.WithOpName("batch"), q, Const(s, Tensor::Scalar<int32_t>(2)), {DT_FLOAT});
  QueueSize(s.WithOpName("size"), q);
  auto session = Open(*s.ToGraphDef());
  for (int i = 0; i < 2; ++i) {
    if (!session->Run({{"x:0", Tensor(DT_FLOAT, TensorShape({10 << 20}))}}, {}, {"put"}).ok()) std::exit(2);
  }
  std::ifstream status("/proc/self/status");
  long vm_kb = 0;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) vm_kb = std::stol(line.substr(7));
  }
  const rlimit limit{static_cast<rlim_t>(vm_kb + (48 << 10)) << 10, RLIM_INFINITY};
  if (vm_kb == 0 || setrlimit(RLIMIT_AS, &limit) != 0) std::exit(3);
  const Status batch = session->Run({}, {"batch:0"}, {}).status();
  std::fprintf(stderr, "batch: %s\n", batch.ToString().c_str());
  if (batch.code() != Code::kResourceExhausted || batch.message().find("'batch'") == std::string::npos) {
    std::exit(4);
  }
  std::exit(session->Run({}, {"size:0"}, {}).ok() ? 0 : 5);
}

TEST_F(QueueSessionTest, ABatchLargerThanTheMemoryLeftIsAnErrorAndTheSessionGoesOn) {
  // A fresh process for the limit: the test binary started again for this
  // test alone.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(BatchPastTheMemoryLimit(container_), ::testing::ExitedWithCode(0), "")
      << "2: enqueue failed, 3: no limit, 4: not ResourceExhausted naming the node, 5: the session ended";
}

// Sequences of different lengths batched: each padded with zeros to the
// longest of its batch.
TEST_F(QueueSessionTest, APaddingQueuePadsEachBatchToItsLongestElement) {
  Scope s = Scope::NewRootScope();
  Output q = PaddingFIFOQueue(s.WithOpName("q"), {DT_INT32, DT_FLOAT},
                              {PartialTensorShape({-1}), PartialTensorShape({2, -1})}, -1, container_);
  Output ids = Placeholder(s.WithOpName("ids"), DT_INT32);
  Output grid = Placeholder(s.WithOpName("grid"), DT_FLOAT);
  QueueEnqueue(s.WithOpName("enqueue"), q, {ids, grid});
  QueueDequeueMany(s.WithOpName("batch"), q, Const(s, Tensor::Scalar<int32_t>(2)), {DT_INT32, DT_FLOAT});
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  auto session = Open(*def);
  ASSERT_TRUE(session
                  ->Run({{"ids:0", Tensor::FromVector<int32_t>({1, 2, 3})},
                         {"grid:0", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}))}},
                        {}, {"enqueue"})
                  .ok());
  ASSERT_TRUE(session
                  ->Run({{"ids:0", Tensor::FromVector<int32_t>({4})},
                         {"grid:0", Tensor::FromVector<float>({5, 6, 7, 8, 9, 10}, TensorShape({2, 3}))}},
                        {}, {"enqueue"})
                  .ok());
  auto batch = session->Run({}, {"batch:0", "batch:1"}, {});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ((*batch)[0].shape(), TensorShape({2, 3}));
  const int32_t* id = (*batch)[0].data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(id, id + 6), (std::vector<int32_t>{1, 2, 3, 4, 0, 0}));
  EXPECT_EQ((*batch)[1].shape(), TensorShape({2, 2, 3}));
  const float* g = (*batch)[1].data<float>();
  EXPECT_EQ(std::vector<float>(g, g + 12), (std::vector<float>{1, 2, 0, 3, 4, 0, 5, 6, 7, 8, 9, 10}));
  // An element of another rank than declared is refused.
  auto bad = session->Run({{"ids:0", Tensor::Scalar<int32_t>(1)},
                           {"grid:0", Tensor::FromVector<float>({1, 2}, TensorShape({2, 1}))}},
                          {}, {"enqueue"});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument) << bad.status().ToString();
}

TEST_F(QueueSessionTest, ARandomShuffleQueueOfASeedGivesTheSameOrderInEverySession) {
  auto order = [&](const std::string& name) {
    Scope s = Scope::NewRootScope();
    Output q = RandomShuffleQueue(s.WithOpName("q"), {DT_FLOAT}, /*min_after_dequeue=*/5, /*seed=*/42, {}, -1,
                                  container_, name);
    Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
    QueueEnqueueMany(s.WithOpName("enqueue_many"), q, {x});
    QueueDequeue(s.WithOpName("dequeue"), q, {DT_FLOAT});
    auto def = s.ToGraphDef();
    EXPECT_TRUE(def.ok());
    auto session = Open(*def);
    std::vector<float> in(20);
    for (int i = 0; i < 20; ++i) in[i] = static_cast<float>(i);
    EXPECT_TRUE(session->Run({{"x:0", Tensor::FromVector<float>(in)}}, {}, {"enqueue_many"}).ok());
    std::vector<float> out;
    for (int i = 0; i < 15; ++i) {  // 5 stay behind
      auto r = session->Run({}, {"dequeue:0"}, {});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (r.ok()) out.push_back((*r)[0].scalar<float>());
    }
    return out;
  };
  const std::vector<float> a = order("a"), b = order("b");
  EXPECT_EQ(a, b);
  std::vector<float> fifo(15);
  for (int i = 0; i < 15; ++i) fifo[i] = static_cast<float>(i);
  EXPECT_NE(a, fifo);
}

}  // namespace
}  // namespace tact
