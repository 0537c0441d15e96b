// The measured cost model fed by a real step's stats: the times and output
// sizes a Run reports replace the static estimates.
#include "actors/measured_costs.h"

#include <gtest/gtest.h>

#include "actors/session.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

TEST(MeasuredCostsTest, AStepsStatsReplaceTheStaticEstimates) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);  // shape unknown to the static model
  Tanh(s.WithDevice("/device:CPU:1").WithOpName("y"), MatMul(s.WithOpName("mm"), x, x));
  const GraphDef def = *s.ToGraphDef();
  SessionOptions o;
  o.device_count = {{"CPU", 2}};
  auto session = Session::Create(o);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(def).ok());
  RunMetadata md;
  ASSERT_TRUE((*session)->Run({{"x", Tensor(DT_FLOAT, {96, 96})}}, {"y"}, {}, &md).ok());

  auto graph = Graph::FromGraphDef(def);
  ASSERT_TRUE(graph.ok());
  const Node& mm = *(*graph)->FindNode("mm");
  MeasuredCostModel costs(**graph);
  ASSERT_TRUE(RecordStepStats(md.step_stats.nodes(), &costs).ok());
  EXPECT_EQ(costs.num_records(), static_cast<int64_t>(md.step_stats.nodes().size()));
  EXPECT_EQ(costs.OutputBytes(mm, 0), 96 * 96 * 4);
  for (const NodeExecStats& n : md.step_stats.nodes()) {
    if (n.node_name != "mm") continue;
    EXPECT_EQ(costs.ExecutionSeconds(mm, "CPU"), static_cast<double>(n.end_ns - n.start_ns) * 1e-9);
  }

  std::vector<NodeExecStats> bad(1);
  bad[0].node_name = "ghost";
  bad[0].device = "somewhere";
  Status st = RecordStepStats(bad, &costs);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("'ghost'"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace tact
