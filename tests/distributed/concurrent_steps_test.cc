// Several steps in flight at once across processes (issue 18 item 7).
#include <gtest/gtest.h>

#include "actors/session.h"
#include "cluster_test_util.h"
#include "tests/actors/concurrent_runs.h"

namespace tact {
namespace {

// 8 client threads, 200 Runs each, of one signature whose partitions are on
// two worker processes; every fetched value is the one its feed makes.
TEST(ConcurrentClusterStepsTest, EightThreadsOf200RunsEachGetTheirOwnValues) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  auto session = test_util::Connect(
      *cluster, test_util::TripleThenAdd("/job:worker/task:0", "/job:worker/task:1"));
  ASSERT_NE(session, nullptr);
  test_util::ExpectOwnValuesFromThreads(*session, 8, 200);
}

TEST(ConcurrentClusterStepsTest, ExtendsBesideFourThreadsOf100RunsEach) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  auto session = test_util::Connect(
      *cluster, test_util::TripleThenAdd("/job:worker/task:0", "/job:worker/task:1"));
  ASSERT_NE(session, nullptr);
  test_util::ExpectExtensionsBesideRunningThreads(*session, 50, 4, 100);
}

}  // namespace
}  // namespace tact
