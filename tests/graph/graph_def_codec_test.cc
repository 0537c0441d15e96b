// GraphDef -> bytes -> GraphDef is exact for every AttrValue kind, every
// dtype, inputs of every form and devices.
#include "graph/graph_def_codec.h"

#include <gtest/gtest.h>

#include <limits>

#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;
using graph_test::PatternTensor;

std::vector<DataType> CodableTypes() {
  std::vector<DataType> out;
  for (DataType t : AllDataTypes()) {
    if (t != DT_RESOURCE) out.push_back(t);
  }
  return out;
}

// One node carrying an attr of every kind, including empty lists of each
// list kind and tensors of every dtype at rank 0, empty and rank 2.
NodeDef EveryAttrNode() {
  NodeDef n;
  n.name = "every_attr";
  n.op = "AnyOp";  // the codec does not look ops up
  n.inputs = {"a", "a:1", "b:17", "^c", "^d"};
  n.device = "/job:worker/replica:0/task:1/device:cpu:0";
  AttrMap& a = n.attrs;
  a["none"] = AttrValue();
  a["i"] = AttrValue::Int(-7);
  a["i_max"] = AttrValue::Int(std::numeric_limits<int64_t>::max());
  a["i_min"] = AttrValue::Int(std::numeric_limits<int64_t>::min());
  a["f"] = AttrValue::Float(1.5f);
  a["f_tiny"] = AttrValue::Float(std::numeric_limits<float>::denorm_min());
  a["f_inf"] = AttrValue::Float(-std::numeric_limits<float>::infinity());
  a["b_true"] = AttrValue::Bool(true);
  a["b_false"] = AttrValue::Bool(false);
  a["s"] = AttrValue::String("SAME");
  a["s_empty"] = AttrValue::String("");
  a["s_bytes"] = AttrValue::String(std::string("\0\xff\x01z", 4));
  a["type"] = AttrValue::Type(DT_BFLOAT16);
  a["type_ref"] = AttrValue::Type(MakeRefType(DT_FLOAT));
  a["shape_unknown"] = AttrValue::Shape(PartialTensorShape::Unknown());
  a["shape_scalar"] = AttrValue::Shape(PartialTensorShape({}));
  a["shape_partial"] = AttrValue::Shape(PartialTensorShape({-1, 784}));
  a["shape_zero"] = AttrValue::Shape(PartialTensorShape({0, 3}));
  uint32_t seed = 100;
  std::vector<Tensor> one_per_type;
  for (DataType t : CodableTypes()) {
    const std::string name = DataTypeString(t);
    a["tensor_" + name + "_scalar"] = AttrValue::FromTensor(PatternTensor(t, {}, seed++));
    a["tensor_" + name + "_empty"] = AttrValue::FromTensor(PatternTensor(t, {2, 0}, seed++));
    a["tensor_" + name + "_2x3"] = AttrValue::FromTensor(PatternTensor(t, {2, 3}, seed++));
    one_per_type.push_back(PatternTensor(t, {2}, seed++));
  }
  a["list_i"] = AttrValue::IntList({1, -2, std::numeric_limits<int64_t>::max()});
  a["list_f"] = AttrValue::FloatList({0.5f, -3.25f});
  a["list_b"] = AttrValue::BoolList({true, false, true});
  a["list_s"] = AttrValue::StringList({"VALID", "", std::string("\0x", 2)});
  a["list_type"] = AttrValue::TypeList({DT_HALF, DT_COMPLEX128, DT_STRING, MakeRefType(DT_INT32)});
  a["list_shape"] = AttrValue::ShapeList(
      {PartialTensorShape::Unknown(), PartialTensorShape({}), PartialTensorShape({-1, -1, 2})});
  a["list_tensor"] = AttrValue::TensorList(one_per_type);
  a["list_i_empty"] = AttrValue::IntList({});
  a["list_f_empty"] = AttrValue::FloatList({});
  a["list_b_empty"] = AttrValue::BoolList({});
  a["list_s_empty"] = AttrValue::StringList({});
  a["list_type_empty"] = AttrValue::TypeList({});
  a["list_shape_empty"] = AttrValue::ShapeList({});
  a["list_tensor_empty"] = AttrValue::TensorList({});
  a["_class"] = AttrValue::StringList({"loc:@a"});
  return n;
}

GraphDef EveryKindGraph() {
  GraphDef def;
  def.version = 42;
  NodeDef a;
  a.name = "a";
  a.op = "Const";
  a.attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  a.attrs["value"] = AttrValue::FromTensor(Tensor::FromVector<float>({1, 2, 3}));
  def.nodes.push_back(a);
  NodeDef c;
  c.name = "outer/inner/c";
  c.op = "NoOp";
  c.inputs = {"^a"};
  c.device = "/device:gpu:*";
  def.nodes.push_back(c);
  NodeDef unicode;
  unicode.name = "n\xc3\xbc_\xe8\x8a\x82";  // UTF-8 in a node name
  unicode.op = "Identity";
  unicode.inputs = {"a"};
  def.nodes.push_back(unicode);
  def.nodes.push_back(EveryAttrNode());
  def.nodes.push_back(NodeDef{"empty_attrs_and_inputs", "NoOp", {}, "", {}});
  return def;
}

void ExpectSameGraph(const GraphDef& got, const GraphDef& want) {
  EXPECT_EQ(got.version, want.version);
  ASSERT_EQ(got.nodes.size(), want.nodes.size());
  for (size_t i = 0; i < want.nodes.size(); ++i) {
    const NodeDef& g = got.nodes[i];
    const NodeDef& w = want.nodes[i];
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.op, w.op);
    EXPECT_EQ(g.inputs, w.inputs) << w.name;
    EXPECT_EQ(g.device, w.device) << w.name;
    ASSERT_EQ(g.attrs.size(), w.attrs.size()) << w.name;
    for (const auto& [name, value] : w.attrs) {
      auto it = g.attrs.find(name);
      ASSERT_NE(it, g.attrs.end()) << w.name << " lost attr " << name;
      EXPECT_EQ(it->second.kind(), value.kind()) << name;
      EXPECT_TRUE(it->second == value) << name << ": " << it->second.DebugString() << " vs "
                                       << value.DebugString();
    }
    EXPECT_TRUE(g == w) << w.name;
  }
  EXPECT_TRUE(got == want);
}

TEST(GraphDefCodecTest, RoundTripIsExactForEveryAttrKind) {
  const GraphDef def = EveryKindGraph();
  StatusOr<std::string> bytes = SerializeGraphDef(def);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  StatusOr<GraphDef> back = ParseGraphDef(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameGraph(*back, def);
  // Serialising the parsed graph gives the same bytes: the form is canonical.
  StatusOr<std::string> again = SerializeGraphDef(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes);
}

TEST(GraphDefCodecTest, OneNodeFieldByField) {
  StatusOr<GraphDef> back = ParseGraphDef(*SerializeGraphDef(EveryKindGraph()));
  ASSERT_TRUE(back.ok());
  const NodeDef& n = back->nodes[3];
  EXPECT_EQ(n.name, "every_attr");
  EXPECT_EQ(n.op, "AnyOp");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"a", "a:1", "b:17", "^c", "^d"}));
  EXPECT_EQ(n.device, "/job:worker/replica:0/task:1/device:cpu:0");
  const AttrMap& a = n.attrs;
  EXPECT_EQ(a.at("none").kind(), AttrValue::Kind::kNone);
  EXPECT_EQ(a.at("i").i(), -7);
  EXPECT_EQ(a.at("i_min").i(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(a.at("f").f(), 1.5f);
  EXPECT_EQ(a.at("f_tiny").f(), std::numeric_limits<float>::denorm_min());
  EXPECT_TRUE(a.at("b_true").b());
  EXPECT_FALSE(a.at("b_false").b());
  EXPECT_EQ(a.at("s_bytes").s(), std::string("\0\xff\x01z", 4));
  EXPECT_EQ(a.at("s_empty").s(), "");
  EXPECT_EQ(a.at("type").type(), DT_BFLOAT16);
  EXPECT_EQ(a.at("type_ref").type(), MakeRefType(DT_FLOAT));
  EXPECT_TRUE(a.at("shape_unknown").shape().unknown_rank());
  EXPECT_EQ(a.at("shape_scalar").shape().dims(), 0);
  EXPECT_EQ(a.at("shape_partial").shape().dim_sizes(), (std::vector<int64_t>{-1, 784}));
  const Tensor& s = a.at("tensor_string_2x3").tensor();
  EXPECT_EQ(s.dtype(), DT_STRING);
  EXPECT_EQ(s.shape(), TensorShape({2, 3}));
  const Tensor& h = a.at("tensor_half_scalar").tensor();
  EXPECT_EQ(h.dtype(), DT_HALF);
  EXPECT_EQ(h.dims(), 0);
  EXPECT_EQ(a.at("tensor_complex128_empty").tensor().shape(), TensorShape({2, 0}));
  EXPECT_EQ(a.at("list_b").list_b(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(a.at("list_type").list_type()[1], DT_COMPLEX128);
  EXPECT_EQ(a.at("list_tensor").list_tensor().size(), CodableTypes().size());
  // Empty lists keep their kind: an empty list(float) is not an empty list(int).
  EXPECT_EQ(a.at("list_f_empty").kind(), AttrValue::Kind::kFloatList);
  EXPECT_EQ(a.at("list_tensor_empty").kind(), AttrValue::Kind::kTensorList);
  EXPECT_EQ(a.at("list_shape_empty").list_size(), 0u);
  EXPECT_EQ(a.at("_class").list_s(), (std::vector<std::string>{"loc:@a"}));
}

TEST(GraphDefCodecTest, EmptyGraphRoundTrips) {
  GraphDef def;
  def.version = 0;
  StatusOr<GraphDef> back = ParseGraphDef(*SerializeGraphDef(def));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == def);
}

TEST(GraphDefCodecTest, ParsesFromUnalignedMemory) {
  const std::string bytes = *SerializeGraphDef(EveryKindGraph());
  std::string shifted = "x" + bytes;
  StatusOr<GraphDef> back = ParseGraphDef(std::string_view(shifted).substr(1));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == EveryKindGraph());
}

TEST(GraphDefCodecTest, UnserialisableValuesAreErrorsNamingNodeAndAttr) {
  GraphDef def;
  NodeDef n{"k", "Const", {}, "", {}};
  n.attrs["value"] = AttrValue::FromTensor(Tensor());
  def.nodes.push_back(n);
  ExpectError(SerializeGraphDef(def).status(), Code::kInvalidArgument,
              "node 'k': attr 'value': cannot serialise an uninitialised tensor");
  def.nodes[0].attrs["value"] = AttrValue::Type(DT_INVALID);
  ExpectError(SerializeGraphDef(def).status(), Code::kInvalidArgument,
              "node 'k': attr 'value': unknown dtype 0");
  def.nodes[0].attrs["value"] = AttrValue::TensorList({Tensor::Scalar<int32_t>(1), Tensor()});
  ExpectError(SerializeGraphDef(def).status(), Code::kInvalidArgument, "element 1: ");
}

}  // namespace
}  // namespace tact
