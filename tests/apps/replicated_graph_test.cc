// In-graph replication (apps/train/replicated_graph.h): each replica of the cnn
// draws dropout masks of its own, and the same ones in every run; sync
// replicas of cnn_bn move each running average once a step, to the mean of
// the towers' new values.
#include "apps/train/replicated_graph.h"

#include <gtest/gtest.h>

#include "actors/session.h"

namespace tact::apps {
namespace {

// The dropout draws u (keep where u >= rate) of towers 0 and 1, after
// initialisation, for images of zeros.
std::pair<Tensor, Tensor> DropoutDraws(int64_t seed) {
  TrainOptions opt;
  opt.model.name = "cnn";
  opt.model.seed = seed;
  StatusOr<ReplicatedTrainGraph> g = BuildReplicatedTrainGraph(opt, ReplicaOptions{1, 2, true});
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return {};
  std::string draws[2];
  for (const NodeDef& n : g->def.nodes) {
    if (n.op != "StatelessRandomUniform") continue;
    draws[n.name.rfind("tower_1/", 0) == 0 ? 1 : 0] = n.name + ":0";
  }
  EXPECT_FALSE(draws[0].empty());
  EXPECT_FALSE(draws[1].empty());
  SessionOptions o;
  o.allow_soft_placement = true;  // the towers name worker tasks; here they share one device
  auto session = Session::Create(o);
  EXPECT_TRUE(session.ok());
  EXPECT_TRUE((*session)->Extend(g->def).ok());
  EXPECT_TRUE((*session)->Run({}, {}, {g->init_op}).ok());
  Tensor images(DT_FLOAT, TensorShape({3, 28, 28, 1}));
  for (int64_t i = 0; i < images.NumElements(); ++i) images.data<float>()[i] = 0;
  auto out = (*session)->Run({{g->towers[0].images, images}, {g->towers[1].images, images}},
                             {draws[0], draws[1]}, {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  return {out->at(0), out->at(1)};
}

TEST(ReplicatedGraphTest, EachReplicaDrawsItsOwnDropoutMaskTheSameInEveryRun) {
  auto [tower0, tower1] = DropoutDraws(7);
  ASSERT_TRUE(tower0.IsInitialized() && tower1.IsInitialized());
  ASSERT_EQ(tower0.shape(), tower1.shape());
  int64_t same = 0;
  for (int64_t i = 0; i < tower0.NumElements(); ++i) {
    same += tower0.data<float>()[i] == tower1.data<float>()[i];
  }
  EXPECT_EQ(same, 0) << "of " << tower0.NumElements() << " draws, the towers share " << same;
  auto [again0, again1] = DropoutDraws(7);
  EXPECT_TRUE(again0.BitwiseEqual(tower0));
  EXPECT_TRUE(again1.BitwiseEqual(tower1));
  auto [other0, other1] = DropoutDraws(8);
  EXPECT_FALSE(other1.BitwiseEqual(tower1));
}

// Sync mode: one Assign per running average, which the train op waits
// for, writes the mean of the towers' new values; no tower assigns its own.
TEST(ReplicatedGraphTest, SyncReplicasMoveEachRunningAverageToTheTowersMean) {
  TrainOptions opt;
  opt.model.name = "cnn_bn";
  StatusOr<ReplicatedTrainGraph> g = BuildReplicatedTrainGraph(opt, ReplicaOptions{1, 2, true});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  int assigns = 0;
  std::string batch_mean[2];  // the first layer's FusedBatchNormV3 in training, per tower
  for (const NodeDef& n : g->def.nodes) {
    const bool tower1 = n.name.rfind("tower_1/", 0) == 0;
    if (n.op == "Assign" && n.name.find("update_moving_") != std::string::npos) {
      ++assigns;
      EXPECT_EQ(n.name.rfind("replicas", 0), 0u) << n.name;  // not a tower's
    }
    if (n.op == "FusedBatchNormV3" && n.name.find("batch_normalization/") != std::string::npos &&
        n.name.find("batch_normalization_") == std::string::npos) {
      bool training = false;
      ASSERT_TRUE(GetAttr(n.attrs, "is_training", &training).ok());
      if (training) batch_mean[tower1 ? 1 : 0] = n.name + ":1";
    }
  }
  EXPECT_EQ(assigns, 6);  // moving mean and variance of three layers, once each
  ASSERT_FALSE(batch_mean[0].empty() || batch_mean[1].empty());
  std::string moving_mean;
  for (const auto& [var, read] : g->variables) {
    if (var.name == "cnn_bn/batch_normalization/moving_mean") moving_mean = read;
  }
  ASSERT_FALSE(moving_mean.empty());

  SessionOptions o;
  o.allow_soft_placement = true;  // the towers name worker tasks; here they share one device
  auto session = Session::Create(o);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(g->def).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {g->init_op}).ok());
  std::vector<std::pair<std::string, Tensor>> feeds = {{g->training, Tensor::Scalar<bool>(true)}};
  for (int k = 0; k < 2; ++k) {
    Tensor images(DT_FLOAT, TensorShape({3, 28, 28, 1}));
    for (int64_t i = 0; i < images.NumElements(); ++i) {
      images.data<float>()[i] = static_cast<float>((i * (k + 3)) % 17) / 17;
    }
    feeds.emplace_back(g->towers[k].images, images);
    feeds.emplace_back(g->towers[k].labels, Tensor::FromVector<int32_t>({1, 2, 3}));
  }
  auto step = (*session)->Run(feeds, {batch_mean[0], batch_mean[1]}, {g->train_op});
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  auto after = (*session)->Run({}, {moving_mean}, {});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  const float* m0 = (*step)[0].data<float>();
  const float* m1 = (*step)[1].data<float>();
  ASSERT_EQ((*after)[0].NumElements(), 32);
  for (int j = 0; j < 32; ++j) {
    EXPECT_NE(m0[j], m1[j]) << "the towers saw different images";
    EXPECT_FLOAT_EQ((*after)[0].data<float>()[j], (m0[j] + m1[j]) * 0.5f) << "channel " << j;
  }
}

}  // namespace
}  // namespace tact::apps
