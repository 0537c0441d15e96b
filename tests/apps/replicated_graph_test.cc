// In-graph replication (apps/train/replicated_graph.h): each replica of the cnn
// draws dropout masks of its own, and the same ones in every run.
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

}  // namespace
}  // namespace tact::apps
