// QueueRunner (actors/queue_runner.h): threads that keep a queue fed until
// their input ends, the runner stops, or an enqueue fails.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "actors/queue_runner.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// "numbers" is fed by "produce": each run enqueues the next value of a
// counter (1, 2, 3, ...); "close" closes it and cancels pending enqueues.
// "source" holds 5 values: "pump" moves one, doubled, into "doubled".
GraphDef Pipeline() {
  Scope s = Scope::NewRootScope();
  Output counter = Variable(s.WithOpName("counter"), PartialTensorShape({}), DT_FLOAT);
  Assign(s.WithOpName("init"), counter, Const(s, Tensor::Scalar<float>(0)));
  Output numbers = FIFOQueue(s.WithOpName("numbers"), {DT_FLOAT}, {PartialTensorShape({})}, /*capacity=*/4);
  QueueEnqueue(s.WithOpName("produce"), numbers,
               {AssignAdd(s, counter, Const(s, Tensor::Scalar<float>(1)))});
  QueueDequeue(s.WithOpName("consume"), numbers, {DT_FLOAT});
  QueueClose(s.WithOpName("close"), numbers, /*cancel_pending_enqueues=*/true);

  Output source = FIFOQueue(s.WithOpName("source"), {DT_FLOAT});
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  QueueEnqueueMany(s.WithOpName("fill"), source, {x});
  QueueClose(s.WithOpName("close_source"), source);
  Output doubled = FIFOQueue(s.WithOpName("doubled"), {DT_FLOAT}, {PartialTensorShape({})});
  Output one = QueueDequeue(s, source, {DT_FLOAT})[0];
  QueueEnqueue(s.WithOpName("pump"), doubled, {Add(s, one, one)});
  QueueSize(s.WithOpName("doubled_size"), doubled);
  QueueDequeue(s.WithOpName("take_doubled"), doubled, {DT_FLOAT});
  QueueClose(s.WithOpName("close_doubled"), doubled);
  // A pump whose values do not fit "numbers" (shape [2], not a scalar).
  QueueEnqueue(s.WithOpName("bad_pump"), numbers, {Const(s, Tensor::FromVector<float>({1, 2}))});
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return *def;
}

std::unique_ptr<Session> Open(const SessionOptions& options = {}) {
  auto s = Session::Create(options);
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE((*s)->Extend(Pipeline()).ok());
  EXPECT_TRUE((*s)->Run({}, {}, {"init"}).ok());
  return std::move(*s);
}

TEST(QueueRunnerTest, TwoThreadsKeepAQueueFedUntilStopped) {
  auto session = Open();
  QueueRunner runner(session.get(), {"produce"}, "close");
  runner.Start(2);
  std::set<float> seen;
  for (int i = 0; i < 100; ++i) {
    auto out = session->Run({}, {"consume:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    seen.insert((*out)[0].scalar<float>());
  }
  EXPECT_EQ(seen.size(), 100u);  // no value twice
  EXPECT_TRUE(runner.Stop().ok());  // the blocked enqueues are cancelled, the threads end
  EXPECT_GE(runner.enqueued(), 100);
}

TEST(QueueRunnerTest, ThreadsEndByThemselvesWhenTheirInputIsDone) {
  auto session = Open();
  ASSERT_TRUE(session->Run({{"x:0", Tensor::FromVector<float>({1, 2, 3, 4, 5})}}, {}, {"fill"}).ok());
  ASSERT_TRUE(session->Run({}, {}, {"close_source"}).ok());
  QueueRunner runner(session.get(), {"pump"}, "close_doubled");
  runner.Start(2);
  EXPECT_TRUE(runner.Join().ok());  // OutOfRange from the source ends them: not an error
  EXPECT_EQ(runner.enqueued(), 5);
  auto size = session->Run({}, {"doubled_size:0"}, {});
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].scalar<int32_t>(), 5);
  // The last thread at the end of its input closed the queue: its
  // consumer drains the 5, then sees the end rather than waiting for ever.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(session->Run({}, {"take_doubled:0"}, {}).ok()) << i;
  EXPECT_EQ(session->Run({}, {"take_doubled:0"}, {}).status().code(), Code::kOutOfRange);
}

TEST(QueueRunnerTest, AFailingEnqueueStopsTheRunnerAndClosesTheQueueForItsConsumers) {
  auto session = Open();
  QueueRunner runner(session.get(), {"bad_pump"}, "close");
  runner.Start(1);
  // The consumer would wait for ever without the runner's close.
  auto out = session->Run({}, {"consume:0"}, {});
  EXPECT_EQ(out.status().code(), Code::kOutOfRange) << out.status().ToString();
  Status s = runner.Join();
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("bad_pump"), std::string::npos) << s.ToString();
}

// An enqueue waits for room as long as its consumer takes, past the
// session's operation timeout: before session 31 it was aborted there,
// dropping the value it held, and the runner failed and closed the queue.
TEST(QueueRunnerTest, AnEnqueueWaitsForRoomPastTheOperationTimeoutAndLosesNothing) {
  SessionOptions options;
  options.operation_timeout_ms = 100;
  auto session = Open(options);
  QueueRunner runner(session.get(), {"produce"}, "close");
  runner.Start(1);  // one thread: the values come in order
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // the queue is full, the enqueue waits
  EXPECT_TRUE(runner.status().ok()) << runner.status().ToString();
  for (int i = 1; i <= 20; ++i) {
    auto out = session->Run({}, {"consume:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].scalar<float>(), static_cast<float>(i));
  }
  EXPECT_TRUE(runner.Stop().ok());
}

}  // namespace
}  // namespace tact
