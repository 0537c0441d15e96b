// Graph::FromGraphDef's checks, topological order, and ToGraphDef.
#include "graph/graph.h"

#include <gtest/gtest.h>

#include "graph/graph_def_codec.h"
#include "graph/op_registry.h"
#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;

REGISTER_OP("GraphTestAdd").Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {float, double, int32}");
// Like NextIteration: a cycle through it is a loop, not an error.
REGISTER_OP("GraphTestNextIteration").Input("data: T").Output("output: T").Attr("T: type")
    .SetAllowsCycles();

NodeDef ConstNode(const std::string& name, DataType dtype = DT_FLOAT) {
  NodeDef n{name, "Const", {}, "", {}};
  Tensor t(dtype, TensorShape({2}));
  std::memset(t.raw_data(), 0, t.TotalBytes());
  n.attrs["value"] = AttrValue::FromTensor(t);
  n.attrs["dtype"] = AttrValue::Type(dtype);
  return n;
}

NodeDef Op(const std::string& name, const std::string& op, std::vector<std::string> inputs,
           DataType t = DT_FLOAT) {
  NodeDef n{name, op, std::move(inputs), "", {}};
  if (op != "NoOp") n.attrs["T"] = AttrValue::Type(t);
  return n;
}

GraphDef Def(std::vector<NodeDef> nodes) {
  GraphDef def;
  def.nodes = std::move(nodes);
  return def;
}

Status Build(std::vector<NodeDef> nodes) { return Graph::FromGraphDef(Def(std::move(nodes))).status(); }

TEST(GraphTest, BuildsEdgesFromInputs) {
  auto g = Graph::FromGraphDef(Def({ConstNode("a"), ConstNode("b"),
                                    Op("sum", "GraphTestAdd", {"a", "b:0", "^a"}),
                                    NodeDef{"done", "NoOp", {"^sum", "^b"}, "/device:cpu:0", {}}}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ((*g)->num_nodes(), 4);
  EXPECT_EQ((*g)->num_edges(), 5);
  Node* sum = (*g)->FindNode("sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->num_inputs(), 2);
  EXPECT_EQ(sum->input_edge(0)->src->name(), "a");
  EXPECT_EQ(sum->input_edge(1)->src->name(), "b");
  EXPECT_EQ(sum->output_type(0), DT_FLOAT);
  EXPECT_EQ((*g)->FindNode("done")->requested_device(), "/device:cpu:0");
  EXPECT_EQ((*g)->FindNode("nope"), nullptr);
}

TEST(GraphTest, DuplicateNames) {
  ExpectError(Build({ConstNode("a"), ConstNode("a")}), Code::kAlreadyExists,
              "node 'a' is defined twice");
}

TEST(GraphTest, UnknownInputNode) {
  ExpectError(Build({ConstNode("a"), Op("b", "Identity", {"zz"})}), Code::kInvalidArgument,
              "node 'b' (op 'Identity'): input 'zz' refers to an unknown node");
  ExpectError(Build({ConstNode("a"), NodeDef{"c", "NoOp", {"^ghost"}, "", {}}}),
              Code::kInvalidArgument, "input '^ghost' refers to an unknown node");
}

TEST(GraphTest, BadPortsAndMalformedInputs) {
  ExpectError(Build({ConstNode("a"), Op("b", "Identity", {"a:3"})}), Code::kInvalidArgument,
              "node 'b' (op 'Identity'): input 0 refers to output 3 of node 'a', which has 1 outputs");
  ExpectError(Build({ConstNode("a"), Op("b", "Identity", {"a:"})}), Code::kInvalidArgument,
              "node 'b' (op 'Identity'): malformed input 'a:'");
  ExpectError(Build({ConstNode("a"), Op("b", "Identity", {"a:x"})}), Code::kInvalidArgument,
              "malformed port in input 'a:x'");
}

TEST(GraphTest, TooManyAndMissingInputs) {
  ExpectError(Build({ConstNode("a"), Op("b", "Identity", {"a", "a"})}), Code::kInvalidArgument,
              "node 'b' (op 'Identity'): expects 1 data inputs, but the NodeDef lists more");
  ExpectError(Build({ConstNode("a"), Op("b", "GraphTestAdd", {"a"})}), Code::kInvalidArgument,
              "node 'b' (op 'GraphTestAdd'): input 1 is not connected (2 inputs expected)");
}

TEST(GraphTest, TypeMismatchNamesBothNodes) {
  ExpectError(Build({ConstNode("ints", DT_INT32), Op("b", "Identity", {"ints"}, DT_FLOAT)}),
              Code::kInvalidArgument,
              "node 'b' (op 'Identity'): input 0 expects float but 'ints:0' is int32");
  // A ref input wants a ref: a plain float may not feed Assign's `ref`.
  NodeDef assign{"assign", "Assign", {"c", "c"}, "", {{"T", AttrValue::Type(DT_FLOAT)}}};
  ExpectError(Build({ConstNode("c"), assign}), Code::kInvalidArgument,
              "node 'assign' (op 'Assign'): input 0 expects float_ref but 'c:0' is float");
}

TEST(GraphTest, RefOutputFeedsPlainInputOfItsBaseType) {
  NodeDef v{"v", "Variable", {}, "", {}};
  v.attrs["shape"] = AttrValue::Shape(PartialTensorShape({2}));
  v.attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  auto g = Graph::FromGraphDef(Def({v, ConstNode("c"), Op("read", "Identity", {"v"}),
                                    NodeDef{"assign", "Assign", {"v", "c"}, "",
                                            {{"T", AttrValue::Type(DT_FLOAT)}}}}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ((*g)->FindNode("v")->output_type(0), MakeRefType(DT_FLOAT));
  EXPECT_EQ((*g)->FindNode("read")->input_type(0), DT_FLOAT);
  EXPECT_TRUE((*g)->FindNode("v")->IsStateful());
}

TEST(GraphTest, ControlInputBeforeDataInput) {
  ExpectError(Build({ConstNode("a"), Op("b", "Identity", {"^a", "a"})}), Code::kInvalidArgument,
              "node 'b' (op 'Identity'): data input 'a' comes after a control input");
}

TEST(GraphTest, CyclesAreRejectedWithNodeNames) {
  ExpectError(Build({ConstNode("a"), Op("x", "GraphTestAdd", {"a", "y"}),
                     Op("y", "GraphTestAdd", {"a", "x"})}),
              Code::kInvalidArgument, "the graph has a cycle through nodes 'x', 'y'");
  ExpectError(Build({NodeDef{"p", "NoOp", {"^q"}, "", {}}, NodeDef{"q", "NoOp", {"^p"}, "", {}}}),
              Code::kInvalidArgument, "cycle through nodes 'p', 'q'");
  ExpectError(Build({Op("self", "Identity", {"self"})}), Code::kInvalidArgument, "'self'");
}

TEST(GraphTest, CyclesThroughOpsThatAllowThemAreLoops) {
  auto g = Graph::FromGraphDef(Def({ConstNode("a"), Op("body", "GraphTestAdd", {"a", "next"}),
                                    Op("next", "GraphTestNextIteration", {"body"})}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  StatusOr<std::vector<Node*>> order = (*g)->TopologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(order->size(), 3u);
}

std::vector<std::string> Names(const std::vector<Node*>& nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) out.push_back(n->name());
  return out;
}

TEST(GraphTest, TopologicalOrderIsConstructionOrderAmongReadyNodes) {
  // Ids: z=0, c=1, a=2, b=3. Ready at first: c, a, b (z waits for a and b).
  auto g = Graph::FromGraphDef(Def({Op("z", "GraphTestAdd", {"a", "b"}), ConstNode("c"),
                                    ConstNode("a"), ConstNode("b"), Op("w", "Identity", {"c"})}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  StatusOr<std::vector<Node*>> order = (*g)->TopologicalOrder();
  ASSERT_TRUE(order.ok());
  // c (1) first; then a (2); b (3) frees z (0), which goes before w (4).
  EXPECT_EQ(Names(*order), (std::vector<std::string>{"c", "a", "b", "z", "w"}));
  // Independent nodes come out exactly in construction order.
  auto flat = Graph::FromGraphDef(Def({ConstNode("q"), ConstNode("e"), ConstNode("d")}));
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(Names(*(*flat)->TopologicalOrder()), (std::vector<std::string>{"q", "e", "d"}));
}

TEST(GraphTest, ToGraphDefRoundTripsThroughTheCodec) {
  NodeDef p{"x", "Placeholder", {}, "/job:worker/task:0", {{"dtype", AttrValue::Type(DT_FLOAT)}}};
  const GraphDef def = Def({p, ConstNode("a"), Op("sum", "GraphTestAdd", {"x", "a", "^a"}),
                            Op("id", "Identity", {"sum:0"}), NodeDef{"end", "NoOp", {"^id", "^x"}, "", {}}});
  auto g = Graph::FromGraphDef(def);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const GraphDef out = (*g)->ToGraphDef();
  ASSERT_EQ(out.nodes.size(), def.nodes.size());
  // Defaults are filled in; inputs are rebuilt from edges ("sum:0" -> "sum").
  EXPECT_TRUE(out.nodes[0].attrs.at("shape").shape().unknown_rank());
  EXPECT_EQ(out.nodes[2].inputs, (std::vector<std::string>{"x", "a", "^a"}));
  EXPECT_EQ(out.nodes[3].inputs, (std::vector<std::string>{"sum"}));
  EXPECT_EQ(out.nodes[4].inputs, (std::vector<std::string>{"^id", "^x"}));
  EXPECT_EQ(out.nodes[0].device, "/job:worker/task:0");
  // Graph -> GraphDef -> bytes -> GraphDef -> Graph -> GraphDef is a fixed point.
  StatusOr<GraphDef> parsed = ParseGraphDef(*SerializeGraphDef(out));
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(*parsed == out);
  auto g2 = Graph::FromGraphDef(*parsed);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_TRUE((*g2)->ToGraphDef() == out);
}

TEST(GraphTest, RemoveNodeDropsItsEdges) {
  auto g = Graph::FromGraphDef(Def({ConstNode("a"), Op("b", "Identity", {"a"}),
                                    NodeDef{"c", "NoOp", {"^b"}, "", {}}}));
  ASSERT_TRUE(g.ok());
  (*g)->RemoveNode((*g)->FindNode("b"));
  EXPECT_EQ((*g)->num_nodes(), 2);
  EXPECT_EQ((*g)->num_edges(), 0);
  EXPECT_EQ((*g)->num_node_ids(), 3);
  EXPECT_EQ((*g)->FindNode("b"), nullptr);
  EXPECT_EQ((*g)->ToGraphDef().nodes[1].inputs.size(), 0u);
}

}  // namespace
}  // namespace tact
