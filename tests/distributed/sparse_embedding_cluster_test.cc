// An embedding table on a parameter server, looked up and trained from a
// worker process (real `tact worker` processes over loopback): the lookup
// (EmbeddingLookup) runs with the table and the optimizer's sparse update
// on the ps, the table ends bit-equal to the same training in one process,
// and only picked rows and their gradients cross between the processes:
// neither the table nor its dense gradient ever does. A Gather the user
// pins to the worker is what it says: the table travels every step.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"
#include "cluster_test_util.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/layers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

constexpr int64_t kVocab = 100000, kDim = 16, kBatch = 64;
constexpr int kSteps = 5;

struct Embedding {
  GraphDef graph;
  std::string train;             // the train op
  std::string dense_gradient;    // Gather's UnsortedSegmentSum
};

// table [kVocab, kDim] on the ps; the loss on the worker, the lookup by
// EmbeddingLookup (or a Gather pinned to the worker); the optimizer's
// update on the ps.
Embedding BuildEmbedding(const Optimizer& opt, bool gather_on_worker = false) {
  Scope s = Scope::NewRootScope();
  Scope ps = s.WithDevice("/job:ps/task:0");
  Scope worker = s.WithDevice("/job:worker/task:0");
  Output table = VariableWithInit(ps, "table", TensorShape({kVocab, kDim}),
                                  [](const Scope& is, const TensorShape&, DataType) {
                                    Output iota = Range(is, 0, static_cast<int32_t>(kVocab * kDim), 1);
                                    Output t = Reshape(is, Cast(is, iota, DT_FLOAT),
                                                       {static_cast<int32_t>(kVocab),
                                                        static_cast<int32_t>(kDim)});
                                    return Mul(is, t, 1e-6f);
                                  });
  Output ids = Placeholder(worker.WithOpName("ids"), DT_INT32);
  Output rows = gather_on_worker ? Gather(worker, table, ids) : EmbeddingLookup(worker, table, ids);
  Output loss = Mean(worker, Square(worker, Sub(worker, rows, 0.25f)), {0, 1});
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(worker, {loss}, {table}, {}, &grads).ok());
  auto train = ApplyGradients(ps, opt, {{grads[0], table}}, Output(), false);
  EXPECT_TRUE(train.ok()) << train.status().ToString();
  InitAllVariables(s.WithOpName("init"));
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return {*def, train.ok() ? train->node->name() : "", grads[0].node->name()};
}

Tensor Ids(int step) {
  std::vector<int32_t> ids(kBatch);
  for (int64_t i = 0; i < kBatch; ++i) ids[i] = static_cast<int32_t>((i * 7919 + step * 131) % kVocab);
  ids[1] = ids[0];  // a row picked twice
  return Tensor::FromVector<int32_t>(ids);
}

using Steps = std::vector<std::vector<NodeExecStats>>;

// The table after kSteps steps in `session`; the nodes each step ran into
// `steps`.
Tensor Train(Session* session, const Embedding& e, Steps* steps) {
  EXPECT_TRUE(session->Run({}, {}, {"init"}).ok());
  for (int step = 0; step < kSteps; ++step) {
    RunMetadata m;
    auto r = session->Run({{"ids", Ids(step)}}, {}, {e.train}, &m);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    steps->push_back(m.step_stats.nodes());
  }
  auto out = session->Run({}, {"table"}, {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

TEST(SparseEmbeddingClusterTest, APsTableTrainsFromAWorkerAsInOneProcessMovingOnlyPickedRows) {
  const Embedding e = BuildEmbedding(Optimizer::Adagrad(0.1));
  auto cluster = test_util::StartCluster({{"ps", 1}, {"worker", 1}});
  ASSERT_NE(cluster, nullptr);
  auto remote = test_util::Connect(*cluster, e.graph);
  ASSERT_NE(remote, nullptr);
  SessionOptions soft;
  soft.allow_soft_placement = true;  // the pins name tasks this process is not
  auto local = Session::Create(soft);
  ASSERT_TRUE(local.ok());
  ASSERT_TRUE((*local)->Extend(e.graph).ok());

  Steps remote_steps, local_steps;
  const Tensor got = Train(remote.get(), e, &remote_steps);
  const Tensor want = Train(local->get(), e, &local_steps);
  ASSERT_EQ(got.NumElements(), kVocab * kDim);
  EXPECT_TRUE(got.BitwiseEqual(want));
  // It trained: the picked rows moved.
  EXPECT_NE(got.data<float>()[Ids(0).data<int32_t>()[0] * kDim], 1e-6f * Ids(0).data<int32_t>()[0] * kDim);

  const int64_t table_bytes = kVocab * kDim * 4;
  for (const std::vector<NodeExecStats>& step : remote_steps) {
    bool updated_on_ps = false;
    for (const NodeExecStats& n : step) {
      EXPECT_NE(n.node_name, e.dense_gradient);
      updated_on_ps |= n.device.find("/job:ps/") != std::string::npos &&
                       n.node_name.find("SparseApplyAdagradV2") != std::string::npos;
      // No node outside the variable's own ref handles makes a table-sized tensor.
      if (n.node_name == "table" || n.node_name.find("SparseApply") != std::string::npos) continue;
      for (int64_t bytes : n.output_bytes) {
        EXPECT_LT(bytes, table_bytes / 100) << n.node_name << " on " << n.device;
      }
    }
    EXPECT_TRUE(updated_on_ps);
  }
}

// The largest output of a _Recv on the worker in each step of `steps`.
std::vector<int64_t> WorkerRecvBytes(const Steps& steps) {
  std::vector<int64_t> out;
  for (const auto& step : steps) {
    int64_t most = 0;
    for (const NodeExecStats& n : step) {
      if (n.device.find("/job:worker/") == std::string::npos) continue;
      if (n.node_name.find("/_recv") == std::string::npos) continue;
      for (int64_t b : n.output_bytes) most = std::max(most, b);
    }
    out.push_back(most);
  }
  return out;
}

TEST(SparseEmbeddingClusterTest, AGatherPinnedToTheWorkerReceivesTheTableAndTrainsTheSame) {
  auto cluster = test_util::StartCluster({{"ps", 1}, {"worker", 1}});
  ASSERT_NE(cluster, nullptr);
  Tensor tables[2];
  Steps steps[2];
  for (bool pinned : {false, true}) {
    const Embedding e = BuildEmbedding(Optimizer::Adagrad(0.1), pinned);
    auto session = test_util::Connect(*cluster, e.graph);
    ASSERT_NE(session, nullptr);
    tables[pinned] = Train(session.get(), e, &steps[pinned]);
  }
  EXPECT_TRUE(tables[0].BitwiseEqual(tables[1]));
  for (int64_t b : WorkerRecvBytes(steps[0])) EXPECT_EQ(b, kBatch * kDim * 4);  // the rows
  for (int64_t b : WorkerRecvBytes(steps[1])) EXPECT_EQ(b, kVocab * kDim * 4);  // the table
}

}  // namespace
}  // namespace tact
