// Data-parallel training on a local cluster of real worker processes
// (paper 7): sync mode gives what one process gives for the same global
// batch, and the same variables on every run; async mode trains too.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apps/cluster/local_cluster.h"
#include "apps/train/trainer.h"

namespace tact::apps {
namespace {

TrainOptions Short() {
  TrainOptions o;
  o.model.name = "mlp";
  o.data.max_steps = 200;
  o.data.train_limit = 20000;
  o.data.test_limit = 1000;
  o.cluster.intra_op_threads = 1;
  o.cluster.worker_binary = TACT_BINARY;
  return o;
}

// The largest difference, relative to the largest magnitude in `b`.
float RelativeDiff(const Tensor& a, const Tensor& b) {
  float worst = 0, scale = 1e-6f;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    worst = std::max(worst, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
    scale = std::max(scale, std::fabs(b.data<float>()[i]));
  }
  return worst / scale;
}

// Gradient descent, not Adam: Adam turns a difference in the last bit of a
// near-zero gradient (dead ReLUs) into a whole step of either sign, so its
// replicas and a single model part ways by design.
TEST(DistributedTrainingTest, SyncOnOnePsAndTwoWorkersEqualsOneProcessAndRepeats) {
  TrainOptions local = Short();
  local.model.optimizer = "sgd";
  local.model.learning_rate = 0.05;
  TrainOptions cluster = local;
  cluster.cluster.ps = 1;
  cluster.cluster.workers = 2;
  auto one = Train(local);
  auto dist = Train(cluster);
  auto again = Train(cluster);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_TRUE(dist.ok()) << dist.status().ToString();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(dist->steps, 200);
  // Same seed, same cluster shape: the same variables bit for bit.
  EXPECT_EQ(dist->variables_fingerprint, again->variables_fingerprint);
  // Each replica's gradient is the mean over its half of the batch, and
  // their mean is the whole batch's: only the order of float sums differs.
  ASSERT_EQ(dist->variables.size(), one->variables.size());
  for (size_t i = 0; i < one->variables.size(); ++i) {
    const auto& [name, want] = one->variables[i];
    const auto& [got_name, got] = dist->variables[i];
    ASSERT_EQ(got_name, name);
    ASSERT_EQ(got.shape(), want.shape()) << name;
    if (want.dtype() != DT_FLOAT) {
      EXPECT_TRUE(got.BitwiseEqual(want)) << name;  // global_step
      continue;
    }
    EXPECT_LT(RelativeDiff(got, want), 1e-3f) << name;
  }
  EXPECT_NEAR(dist->train_loss, one->train_loss, 1e-3);
  EXPECT_NEAR(dist->test_accuracy, one->test_accuracy, 0.01);
}

// With the default optimizer, each sync step sent while the one before
// runs on the ps and the workers gives the same losses and variables as
// one step at a time (epochs of 30 steps, a checkpoint every 7).
TEST(DistributedTrainingTest, SyncStepsSentAheadGiveTheSameLossesAndVariablesAsOneAtATime) {
  TrainOptions o = Short();
  o.cluster.ps = 1;
  o.cluster.workers = 2;
  o.data.train_limit = 3000;
  o.data.epochs = 3;
  o.data.max_steps = 80;
  const std::string dir = ::testing::TempDir() + "/tact_sync_ahead_" + std::to_string(::getpid());
  auto run = [&](bool send_ahead, std::vector<double>* losses) {
    std::filesystem::remove_all(dir);
    o.data.send_ahead = send_ahead;
    o.supervision.checkpoint.dir = dir;
    o.supervision.checkpoint.every_steps = 7;
    o.on_step = [losses](const TrainProgress& p) { losses->push_back(p.loss); };
    return Train(o);
  };
  std::vector<double> ahead_losses, single_losses;
  auto ahead = run(true, &ahead_losses);
  auto single = run(false, &single_losses);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(ahead.ok()) << ahead.status().ToString();
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  EXPECT_EQ(ahead->steps, 80);
  EXPECT_EQ(ahead_losses, single_losses);
  EXPECT_EQ(ahead->variables_fingerprint, single->variables_fingerprint);
}

TEST(DistributedTrainingTest, AsyncReplicasEachUpdateTheSharedVariables) {
  TrainOptions o = Short();
  o.cluster.ps = 2;
  o.cluster.workers = 2;
  o.cluster.sync = false;
  auto r = Train(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Each of the 200 steps is one update per replica.
  for (const auto& [name, t] : r->variables) {
    if (name == "global_step") {
      EXPECT_EQ(t.scalar<int64_t>(), 400);
    }
  }
  EXPECT_GT(r->test_accuracy, 0.75);
  ASSERT_EQ(r->tower_updates.size(), 2u);
  EXPECT_EQ(r->tower_updates[0] + r->tower_updates[1], 400);
}

// A cluster of one ps and two workers, started apart from any run, with
// its secret in a file: as a user's existing cluster is.
std::unique_ptr<LocalCluster> StartExisting() {
  LocalClusterOptions c;
  c.binary = TACT_BINARY;
  c.jobs = {{"ps", 1}, {"worker", 2}};
  auto cluster = LocalCluster::Start(c);
  EXPECT_TRUE(cluster.ok()) << cluster.status().ToString();
  if (!cluster.ok()) return nullptr;
  std::ofstream((*cluster)->dir() + "/secret") << (*cluster)->secret() << "\n";
  return std::move(cluster).value();
}

// Trains on `cluster`, named by its spec file, with the secret from its file.
void UseExisting(const LocalCluster& cluster, TrainOptions* o) {
  o->cluster.cluster_file = cluster.dir() + "/cluster.json";
  o->cluster.secret_file = cluster.dir() + "/secret";
}

// Async replicas do not wait for each other: with worker 1 stopped three
// quarters of the time, worker 0's replica makes most of the updates (one
// step at a time, each would make half).
TEST(DistributedTrainingTest, ASlowAsyncReplicaHoldsBackNobody) {
  auto cluster = StartExisting();
  ASSERT_NE(cluster, nullptr);
  TrainOptions o = Short();
  o.cluster.sync = false;
  UseExisting(*cluster, &o);
  std::atomic<bool> done{false};
  std::thread slow([&] {
    while (!done.load()) {
      (void)cluster->Signal("/job:worker/replica:0/task:1", SIGSTOP);
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      (void)cluster->Signal("/job:worker/replica:0/task:1", SIGCONT);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  auto r = Train(o);
  done.store(true);
  slow.join();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->tower_updates.size(), 2u);
  EXPECT_EQ(r->tower_updates[0] + r->tower_updates[1], 400);
  EXPECT_GT(r->tower_updates[0], 2 * r->tower_updates[1])
      << r->tower_updates[0] << " updates by the fast replica, " << r->tower_updates[1] << " by the slow one";
}

// An existing cluster, named by its spec file, with the secret from a file.
TEST(DistributedTrainingTest, TrainsOnAnExistingClusterFromItsSpecFile) {
  auto cluster = StartExisting();
  ASSERT_NE(cluster, nullptr);
  TrainOptions o = Short();
  o.data.max_steps = 50;
  UseExisting(*cluster, &o);
  auto r = Train(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ps, 1);
  EXPECT_EQ(r->workers, 2);
  EXPECT_EQ(r->steps, 50);
  // The same cluster, without the secret: refused.
  o.cluster.secret_file = cluster->dir() + "/cluster.json";  // a file, but not the secret
  auto refused = Train(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kUnauthenticated) << refused.status().ToString();
}

TEST(DistributedTrainingTest, TactTrainOnALocalClusterPrintsTheClusterInItsJson) {
  const std::string cmd = std::string(TACT_BINARY) +
                          " train --model mlp --max-steps 30 --train-limit 3000 --test-limit 500"
                          " --ps 1 --workers 2 --mode sync --threads 1 --json 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (fgets(buf, sizeof buf, p) != nullptr) out += buf;
  ASSERT_EQ(pclose(p), 0) << out;
  EXPECT_NE(out.find("\"ps\":1"), std::string::npos) << out;
  EXPECT_NE(out.find("\"workers\":2"), std::string::npos) << out;
  EXPECT_NE(out.find("\"mode\":\"sync\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"steps\":30"), std::string::npos) << out;
}

}  // namespace
}  // namespace tact::apps
