// Several steps in flight at once across processes (issue 18 item 7).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// 8 client threads, 200 Runs each, of one signature whose partitions are on
// two worker processes; every fetched value is the one its feed makes.
TEST(ConcurrentClusterStepsTest, EightThreadsOf200RunsEachGetTheirOwnValues) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  Scope s = Scope::NewRootScope();
  Scope w0 = s.WithDevice("/job:worker/task:0");
  Scope w1 = s.WithDevice("/job:worker/task:1");
  Output x = Placeholder(w0.WithOpName("x"), DT_FLOAT);
  Output tripled = Mul(w0.WithOpName("tripled"), x, Const(w0, Tensor::Scalar<float>(3)));
  Add(w1.WithOpName("y"), tripled, x);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  auto session = test_util::Connect(*cluster, *def);
  ASSERT_NE(session, nullptr);
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 200; ++r) {
        const float v = static_cast<float>(t * 1000 + r);
        auto out = session->Run({{"x:0", Tensor::Scalar<float>(v)}}, {"y:0"}, {});
        if (!out.ok()) {
          ++failed;
        } else if ((*out)[0].scalar<float>() != 4 * v) {
          ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace tact
