// Several steps in flight at once (paper 3, issue 18 item 7): Session::Run
// from 8 client threads, 200 Runs each, on the same registered partitions
// (one signature) spread over two devices, every fetched value checked
// against what that thread fed. Step ids keep the steps' rendezvous apart.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "actors/session.h"
#include "graph/ops/all_ops.h"
#include "tests/actors/concurrent_runs.h"

namespace tact {
namespace {

TEST(ConcurrentStepsTest, EightThreadsOf200RunsEachGetTheirOwnValues) {
  SessionOptions o;
  o.device_count = {{"CPU", 2}};
  auto s = Session::Create(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE((*s)->Extend(test_util::TripleThenAdd("/device:CPU:0", "/device:CPU:1")).ok());
  test_util::ExpectOwnValuesFromThreads(**s, 8, 200);
}

TEST(ConcurrentStepsTest, ExtendsBesideFourThreadsOf300RunsEach) {
  SessionOptions o;
  o.device_count = {{"CPU", 2}};
  auto s = Session::Create(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE((*s)->Extend(test_util::TripleThenAdd("/device:CPU:0", "/device:CPU:1")).ok());
  test_util::ExpectExtensionsBesideRunningThreads(**s, 100, 4, 300);
}

// Two steps of one signature waiting at once: each dequeues from an empty
// queue, so the first is still in flight when the second starts; they end
// in the order the elements come, each with its own feed's result.
TEST(ConcurrentStepsTest, TwoStepsOfTheSamePartitionsAreInFlightAtOnce) {
  Scope s = Scope::NewRootScope();
  Output q = FIFOQueue(s.WithOpName("q"), {DT_FLOAT});
  Output v = Placeholder(s.WithOpName("v"), DT_FLOAT);
  QueueEnqueue(s.WithOpName("enqueue"), q, {v});
  QueueDequeue(s.WithOpName("dq"), q, {DT_FLOAT});
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Add(s.WithOpName("y"), x, x);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*def).ok());
  StatusOr<std::vector<Tensor>> first = errors::Internal("not run"), second = errors::Internal("not run");
  std::thread a([&] { first = (*session)->Run({{"x:0", Tensor::Scalar<float>(1)}}, {"dq:0", "y:0"}, {}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::thread b([&] { second = (*session)->Run({{"x:0", Tensor::Scalar<float>(2)}}, {"dq:0", "y:0"}, {}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE((*session)->Run({{"v:0", Tensor::Scalar<float>(10)}}, {}, {"enqueue"}).ok());
  a.join();
  ASSERT_TRUE((*session)->Run({{"v:0", Tensor::Scalar<float>(20)}}, {}, {"enqueue"}).ok());
  b.join();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ((*first)[0].scalar<float>(), 10.0f);
  EXPECT_EQ((*first)[1].scalar<float>(), 2.0f);
  EXPECT_EQ((*second)[0].scalar<float>(), 20.0f);
  EXPECT_EQ((*second)[1].scalar<float>(), 4.0f);
}

}  // namespace
}  // namespace tact
