// FlatGraph: the placer's one walk over a graph's structure. Its edges and
// order must be exactly what the placer used to read from the Graph.
#include "placement/flat_graph.h"

#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"
#include "tests/placement/placement_test_util.h"

namespace tact {
namespace {

std::vector<int> Ids(const std::vector<Node*>& nodes) {
  std::vector<int> out;
  for (const Node* n : nodes) out.push_back(n->id());
  return out;
}

TEST(FlatGraphTest, EdgesAreTheGraphsInOrderWithReferenceEdgesMarked) {
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v"), PartialTensorShape({2}));
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({2}));
  auto assign = Assign(s.WithOpName("assign"), v, x);
  auto sum = Add(s.WithOpName("sum").WithControlDependencies({assign}), x, v);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const Graph& g = *s.graph();
  const FlatGraph flat = FlatGraph::Gather(g);
  EXPECT_EQ(flat.num_live(), g.num_nodes());
  EXPECT_EQ(flat.num_edges(), g.num_edges());
  for (const Node* n : g.nodes()) {
    ASSERT_TRUE(flat.live(n->id()));
    EXPECT_EQ(flat.num_out(n->id()), static_cast<int>(n->out_edges().size())) << n->name();
    EXPECT_EQ(flat.has_inputs(n->id()), !n->in_edges().empty()) << n->name();
    const FlatGraph::InEdge* e = flat.in_begin(n->id());
    for (const Edge* edge : n->in_edges()) {
      ASSERT_NE(e, flat.in_end(n->id())) << n->name();
      EXPECT_EQ(e->src, edge->src->id());
      EXPECT_EQ(e->src_output, edge->src_output);
      EXPECT_EQ(e->dst_input, edge->dst_input);
      EXPECT_EQ(e->IsControlEdge(), edge->IsControlEdge());
      // Only Assign's input 0 takes a reference.
      EXPECT_EQ(e->ref, n->op() == "Assign" && edge->dst_input == 0) << n->name();
      ++e;
    }
    EXPECT_EQ(e, flat.in_end(n->id())) << n->name();
  }
  EXPECT_EQ(Ids(*g.TopologicalOrder()), flat.TopologicalOrder());
  (void)sum;
}

TEST(FlatGraphTest, OrderIsTheGraphsOnATrainingGraph) {
  Scope s = Scope::NewRootScope();
  ASSERT_TRUE(placement_test::BuildTrainingGraph(s, "cnn").ok());
  const FlatGraph flat = FlatGraph::Gather(*s.graph());
  EXPECT_EQ(Ids(*s.graph()->TopologicalOrder()), flat.TopologicalOrder());
}

TEST(FlatGraphTest, OrderIsTheGraphsWithEdgesToLowerIdsAndRemovedNodes) {
  // From a GraphDef whose consumer comes first: an edge to a lower id.
  GraphDef def;
  def.nodes.push_back(NodeDef{"z", "Add", {"a", "b"}, "", {{"T", AttrValue::Type(DT_FLOAT)}}});
  for (const char* name : {"c", "a", "b"}) {
    def.nodes.push_back(NodeDef{name, "Const", {}, "", {{"dtype", AttrValue::Type(DT_FLOAT)},
                                                        {"value", AttrValue::FromTensor(
                                                                      Tensor::Scalar<float>(1))}}});
  }
  auto g = Graph::FromGraphDef(def);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  (*g)->RemoveNode((*g)->FindNode("c"));
  const FlatGraph flat = FlatGraph::Gather(**g);
  EXPECT_FALSE(flat.live(1));
  EXPECT_EQ(Ids(*(*g)->TopologicalOrder()), flat.TopologicalOrder());
  EXPECT_EQ(flat.TopologicalOrder(), (std::vector<int>{2, 3, 0}));
}

}  // namespace
}  // namespace tact
