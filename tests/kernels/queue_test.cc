// The queue itself (kernels/queue.h): order, capacity, waits that end when
// room or an element comes, closing, cancelling, and checks that name the
// queue.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "kernels/queue.h"

namespace tact {
namespace {

Queue::Tuple One(float v) { return {Tensor::Scalar<float>(v)}; }

QueueOptions Floats(const std::string& name, int64_t capacity = -1) {
  QueueOptions o;
  o.name = name;
  o.types = {DT_FLOAT};
  o.capacity = capacity;
  return o;
}

// Dequeues now; fails the test if the dequeue has to wait.
Queue::Tuple DequeueNow(Queue& q, Status* status) {
  Queue::Tuple out;
  bool ran = false;
  q.TryDequeue([&](const Status& s, Queue::Tuple t) {
    *status = s;
    out = std::move(t);
    ran = true;
  });
  EXPECT_TRUE(ran);
  return out;
}

TEST(QueueTest, ElementsComeOutInTheOrderTheyWentIn) {
  Queue q(Floats("q"));
  for (int i = 0; i < 5; ++i) {
    Status s = errors::Internal("not run");
    EXPECT_EQ(q.TryEnqueue(One(static_cast<float>(i)), [&](const Status& r) { s = r; }), 0u);
    EXPECT_TRUE(s.ok());
  }
  EXPECT_EQ(q.Size(), 5);
  for (int i = 0; i < 5; ++i) {
    Status s;
    Queue::Tuple t = DequeueNow(q, &s);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(t[0].scalar<float>(), static_cast<float>(i));
  }
  EXPECT_EQ(q.Size(), 0);
}

TEST(QueueTest, AFullQueuesEnqueueWaitsForRoomAndAnEmptyQueuesDequeueForAnElement) {
  Queue q(Floats("q", 1));
  std::vector<Status> enqueued;
  q.TryEnqueue(One(1), [&](const Status& s) { enqueued.push_back(s); });
  const Queue::Token waiting = q.TryEnqueue(One(2), [&](const Status& s) { enqueued.push_back(s); });
  EXPECT_NE(waiting, 0u);
  EXPECT_EQ(enqueued.size(), 1u);  // the second waits: capacity 1
  Status s;
  EXPECT_EQ(DequeueNow(q, &s)[0].scalar<float>(), 1.0f);
  ASSERT_EQ(enqueued.size(), 2u);  // room made: the second went in
  EXPECT_TRUE(enqueued[1].ok());
  EXPECT_EQ(DequeueNow(q, &s)[0].scalar<float>(), 2.0f);

  // A dequeue from the empty queue completes on the enqueuer's thread.
  std::atomic<float> got{0};
  EXPECT_NE(q.TryDequeue([&](const Status& st, Queue::Tuple t) {
    if (st.ok()) got = t[0].scalar<float>();
  }), 0u);
  std::thread producer([&] { q.TryEnqueue(One(7), [](const Status&) {}); });
  producer.join();
  EXPECT_EQ(got.load(), 7.0f);
}

TEST(QueueTest, ClosingDrainsThenFailsDequeuesAndRefusesEnqueues) {
  Queue q(Floats("input"));
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
  Queue p(Floats("p"));
  Status waited;
  p.TryDequeue([&](const Status& r, Queue::Tuple) { waited = r; });
  EXPECT_TRUE(waited.ok());
  p.Close(false);
  EXPECT_EQ(waited.code(), Code::kOutOfRange);
}

TEST(QueueTest, CloseCancelsPendingEnqueuesOnlyWhenAsked) {
  for (bool cancel : {false, true}) {
    Queue q(Floats("q", 1));
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

TEST(QueueTest, ACancelledWaitEndsWithTheGivenStatusAndLeavesTheOthers) {
  Queue q(Floats("q"));
  Status first = errors::Internal("still waiting"), second = errors::Internal("still waiting");
  float second_value = 0;
  const Queue::Token t1 = q.TryDequeue([&](const Status& s, Queue::Tuple) { first = s; });
  q.TryDequeue([&](const Status& s, Queue::Tuple t) {
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

TEST(QueueTest, ATupleOfTheWrongKindIsNamed) {
  QueueOptions o;
  o.name = "pairs";
  o.types = {DT_FLOAT, DT_INT32};
  o.shapes = {PartialTensorShape({2}), PartialTensorShape({})};
  Queue q(o);
  EXPECT_TRUE(q.Check({Tensor::FromVector<float>({1, 2}), Tensor::Scalar<int32_t>(1)}).ok());
  Status count = q.Check({Tensor::Scalar<float>(1)});
  EXPECT_NE(count.message().find("'pairs' takes 2 components, not 1"), std::string::npos) << count.ToString();
  Status dtype = q.Check({Tensor::FromVector<float>({1, 2}), Tensor::Scalar<float>(1)});
  EXPECT_NE(dtype.message().find("component 1 is float"), std::string::npos) << dtype.ToString();
  Status shape = q.Check({Tensor::FromVector<float>({1, 2, 3}), Tensor::Scalar<int32_t>(1)});
  EXPECT_NE(shape.message().find("component 0 has shape"), std::string::npos) << shape.ToString();
}

// Dequeues of several elements are served whole and in the order they came.
TEST(QueueTest, ADequeueOfManyWaitsForAllOfThemAndUpToTakesWhatAClosedQueueHasLeft) {
  Queue q(Floats("q"));
  std::vector<std::vector<Queue::Tuple>> got;
  q.TryDequeueMany(3, false, [&](const Status& s, std::vector<Queue::Tuple> t) {
    EXPECT_TRUE(s.ok());
    got.push_back(std::move(t));
  });
  Status many = errors::Internal("not run");
  q.TryEnqueueMany({One(1), One(2)}, [&](const Status& s) { many = s; });
  EXPECT_TRUE(many.ok());
  EXPECT_TRUE(got.empty());  // 2 of 3
  q.TryEnqueueMany({One(3), One(4), One(5)}, [](const Status&) {});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].size(), 3u);
  EXPECT_EQ(got[0][2][0].scalar<float>(), 3.0f);
  EXPECT_EQ(q.Size(), 2);
  // Closed with 2 left: a DequeueMany of 3 fails, a DequeueUpTo of 3 gets 2.
  q.Close(false);
  Status short_many;
  q.TryDequeueMany(3, false, [&](const Status& s, std::vector<Queue::Tuple>) { short_many = s; });
  EXPECT_EQ(short_many.code(), Code::kOutOfRange) << short_many.ToString();
  std::vector<Queue::Tuple> rest;
  q.TryDequeueMany(3, true, [&](const Status& s, std::vector<Queue::Tuple> t) {
    EXPECT_TRUE(s.ok());
    rest = std::move(t);
  });
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0][0].scalar<float>(), 4.0f);
  EXPECT_EQ(rest[1][0].scalar<float>(), 5.0f);
}

TEST(QueueTest, AShufflingQueueMixesLeavesMinAfterDequeueAndRepeatsWithItsSeed) {
  auto drain = [](uint64_t seed) {
    QueueOptions o = Floats("shuffled");
    o.shuffle = true;
    o.min_after_dequeue = 10;
    o.seed = seed;
    Queue q(o);
    std::vector<float> order;
    for (int i = 0; i < 100; ++i) q.TryEnqueue(One(static_cast<float>(i)), [](const Status&) {});
    // 90 come out; 10 stay behind until the queue is closed.
    for (int i = 0; i < 91; ++i) {
      q.TryDequeue([&](const Status& s, Queue::Tuple t) {
        if (s.ok()) order.push_back(t[0].scalar<float>());
      });
    }
    EXPECT_EQ(order.size(), 90u);
    EXPECT_EQ(q.Size(), 10);
    q.Close(false);  // the waiting 91st gets one, then the rest drain
    while (q.Size() > 0) {
      q.TryDequeue([&](const Status& s, Queue::Tuple t) {
        if (s.ok()) order.push_back(t[0].scalar<float>());
      });
    }
    return order;
  };
  const std::vector<float> a = drain(7), b = drain(7), c = drain(8);
  ASSERT_EQ(a.size(), 100u);
  EXPECT_EQ(a, b);  // the same seed, the same order
  EXPECT_NE(a, c);
  std::vector<float> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], static_cast<float>(i));  // each once
  // Mixed: the first 50 out are not the first 50 in, and their mean is near
  // the whole's (49.5) rather than the first 50's (24.5).
  double mean = 0;
  int in_order = 0;
  for (int i = 0; i < 50; ++i) {
    mean += a[i] / 50.0;
    if (a[i] == static_cast<float>(i)) ++in_order;
  }
  EXPECT_LT(in_order, 10);
  EXPECT_GT(mean, 35.0);
}

}  // namespace
}  // namespace tact
