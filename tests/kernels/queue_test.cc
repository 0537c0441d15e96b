// The queue itself (kernels/queue.h): order, capacity, waits that end when
// room or an element comes, closing, cancelling, and checks that name the
// queue.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kernels/queue.h"

namespace tact {
namespace {

FIFOQueue::Tuple One(float v) { return {Tensor::Scalar<float>(v)}; }

// Dequeues now; fails the test if the dequeue has to wait.
FIFOQueue::Tuple DequeueNow(FIFOQueue& q, Status* status) {
  FIFOQueue::Tuple out;
  bool ran = false;
  q.TryDequeue([&](const Status& s, FIFOQueue::Tuple t) {
    *status = s;
    out = std::move(t);
    ran = true;
  });
  EXPECT_TRUE(ran);
  return out;
}

TEST(FIFOQueueTest, ElementsComeOutInTheOrderTheyWentIn) {
  FIFOQueue q("q", {DT_FLOAT}, {}, -1);
  for (int i = 0; i < 5; ++i) {
    Status s = errors::Internal("not run");
    EXPECT_EQ(q.TryEnqueue(One(static_cast<float>(i)), [&](const Status& r) { s = r; }), 0u);
    EXPECT_TRUE(s.ok());
  }
  EXPECT_EQ(q.Size(), 5);
  for (int i = 0; i < 5; ++i) {
    Status s;
    FIFOQueue::Tuple t = DequeueNow(q, &s);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(t[0].scalar<float>(), static_cast<float>(i));
  }
  EXPECT_EQ(q.Size(), 0);
}

TEST(FIFOQueueTest, AFullQueuesEnqueueWaitsForRoomAndAnEmptyQueuesDequeueForAnElement) {
  FIFOQueue q("q", {DT_FLOAT}, {}, 1);
  std::vector<Status> enqueued;
  q.TryEnqueue(One(1), [&](const Status& s) { enqueued.push_back(s); });
  const FIFOQueue::Token waiting = q.TryEnqueue(One(2), [&](const Status& s) { enqueued.push_back(s); });
  EXPECT_NE(waiting, 0u);
  EXPECT_EQ(enqueued.size(), 1u);  // the second waits: capacity 1
  Status s;
  EXPECT_EQ(DequeueNow(q, &s)[0].scalar<float>(), 1.0f);
  ASSERT_EQ(enqueued.size(), 2u);  // room made: the second went in
  EXPECT_TRUE(enqueued[1].ok());
  EXPECT_EQ(DequeueNow(q, &s)[0].scalar<float>(), 2.0f);

  // A dequeue from the empty queue completes on the enqueuer's thread.
  std::atomic<float> got{0};
  EXPECT_NE(q.TryDequeue([&](const Status& st, FIFOQueue::Tuple t) {
    if (st.ok()) got = t[0].scalar<float>();
  }), 0u);
  std::thread producer([&] { q.TryEnqueue(One(7), [](const Status&) {}); });
  producer.join();
  EXPECT_EQ(got.load(), 7.0f);
}

TEST(FIFOQueueTest, ClosingDrainsThenFailsDequeuesAndRefusesEnqueues) {
  FIFOQueue q("input", {DT_FLOAT}, {}, -1);
  q.TryEnqueue(One(1), [](const Status&) {});
  q.Close(false);
  Status s;
  EXPECT_EQ(DequeueNow(q, &s)[0].scalar<float>(), 1.0f);  // what is left still comes out
  DequeueNow(q, &s);
  EXPECT_EQ(s.code(), Code::kOutOfRange);
  EXPECT_NE(s.message().find("'input' is closed"), std::string::npos) << s.ToString();
  Status refused;
  q.TryEnqueue(One(2), [&](const Status& r) { refused = r; });
  EXPECT_EQ(refused.code(), Code::kCancelled);

  // A dequeue waiting on an empty queue ends when it is closed.
  FIFOQueue p("p", {DT_FLOAT}, {}, -1);
  Status waited;
  p.TryDequeue([&](const Status& r, FIFOQueue::Tuple) { waited = r; });
  EXPECT_TRUE(waited.ok());
  p.Close(false);
  EXPECT_EQ(waited.code(), Code::kOutOfRange);
}

TEST(FIFOQueueTest, CloseCancelsPendingEnqueuesOnlyWhenAsked) {
  for (bool cancel : {false, true}) {
    FIFOQueue q("q", {DT_FLOAT}, {}, 1);
    q.TryEnqueue(One(1), [](const Status&) {});
    Status pending = errors::Internal("still waiting");
    q.TryEnqueue(One(2), [&](const Status& s) { pending = s; });
    q.Close(cancel);
    Status s;
    DequeueNow(q, &s);
    if (cancel) {
      EXPECT_EQ(pending.code(), Code::kCancelled) << pending.ToString();
      DequeueNow(q, &s);
      EXPECT_EQ(s.code(), Code::kOutOfRange);
    } else {
      EXPECT_TRUE(pending.ok()) << pending.ToString();  // room made: it went in
      EXPECT_EQ(DequeueNow(q, &s)[0].scalar<float>(), 2.0f);
    }
  }
}

TEST(FIFOQueueTest, ACancelledWaitEndsWithTheGivenStatusAndLeavesTheOthers) {
  FIFOQueue q("q", {DT_FLOAT}, {}, -1);
  Status first = errors::Internal("still waiting"), second = errors::Internal("still waiting");
  float second_value = 0;
  const FIFOQueue::Token t1 = q.TryDequeue([&](const Status& s, FIFOQueue::Tuple) { first = s; });
  q.TryDequeue([&](const Status& s, FIFOQueue::Tuple t) {
    second = s;
    if (s.ok()) second_value = t[0].scalar<float>();
  });
  q.Cancel(t1, errors::DeadlineExceeded("step 4 ran past its timeout"));
  EXPECT_EQ(first.code(), Code::kDeadlineExceeded);
  q.Cancel(t1, errors::Internal("twice"));  // ended: nothing happens
  EXPECT_EQ(first.code(), Code::kDeadlineExceeded);
  q.TryEnqueue(One(3), [](const Status&) {});
  EXPECT_TRUE(second.ok());
  EXPECT_EQ(second_value, 3.0f);
}

TEST(FIFOQueueTest, ATupleOfTheWrongKindIsNamed) {
  FIFOQueue q("pairs", {DT_FLOAT, DT_INT32}, {PartialTensorShape({2}), PartialTensorShape({})}, -1);
  EXPECT_TRUE(q.Check({Tensor::FromVector<float>({1, 2}), Tensor::Scalar<int32_t>(1)}).ok());
  Status count = q.Check({Tensor::Scalar<float>(1)});
  EXPECT_NE(count.message().find("'pairs' takes 2 components, not 1"), std::string::npos) << count.ToString();
  Status dtype = q.Check({Tensor::FromVector<float>({1, 2}), Tensor::Scalar<float>(1)});
  EXPECT_NE(dtype.message().find("component 1 is float"), std::string::npos) << dtype.ToString();
  Status shape = q.Check({Tensor::FromVector<float>({1, 2, 3}), Tensor::Scalar<int32_t>(1)});
  EXPECT_NE(shape.message().find("component 0 has shape"), std::string::npos) << shape.ToString();
}

}  // namespace
}  // namespace tact
