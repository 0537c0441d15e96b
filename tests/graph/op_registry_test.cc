// OpDefBuilder's spec parsing, the registry, and the attr checks every node
// goes through (NodeProperties::Create).
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/node_properties.h"
#include "graph/op_registry.h"
#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;

// Test-only ops (names no real op uses).
REGISTER_OP("RegTestConcat")
    .Input("values: N * T")
    .Input("state: Ref(T)")
    .Input("extras: Textra")
    .Input("index: int64")
    .Output("output: T")
    .Output("flag: bool")
    .Attr("N: int >= 1")
    .Attr("T: {float, double}")
    .Attr("Textra: list(type) = []")
    .Attr("padding: {'SAME', 'VALID'} = 'VALID'")
    .Attr("k: int = -1");

StatusOr<OpDef> Build(const OpDefBuilder& b) { return b.Finalize(); }

TEST(OpDefBuilderTest, ArgSpecs) {
  StatusOr<OpDef> def = Build(OpDefBuilder("X")
                                  .Input("x: N * T")
                                  .Input("r: Ref(T)")
                                  .Input("l: Tlist")
                                  .Input("f: float")
                                  .Output("out: Ref(float)")
                                  .Attr("N: int >= 2")
                                  .Attr("T: type")
                                  .Attr("Tlist: list(type)"));
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  ASSERT_EQ(def->inputs.size(), 4u);
  const OpDef::ArgDef& x = def->inputs[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.number_attr, "N");
  EXPECT_EQ(x.type_attr, "T");
  EXPECT_TRUE(x.is_list());
  EXPECT_FALSE(x.is_ref);
  EXPECT_TRUE(def->inputs[1].is_ref);
  EXPECT_EQ(def->inputs[1].type_attr, "T");
  EXPECT_FALSE(def->inputs[1].is_list());
  EXPECT_EQ(def->inputs[2].type_list_attr, "Tlist");
  EXPECT_TRUE(def->inputs[2].is_list());
  EXPECT_EQ(def->inputs[3].type, DT_FLOAT);
  EXPECT_TRUE(def->inputs[3].type_attr.empty());
  EXPECT_TRUE(def->outputs[0].is_ref);
  EXPECT_EQ(def->outputs[0].type, DT_FLOAT);
  EXPECT_EQ(def->FindAttr("N")->minimum, 2);
}

TEST(OpDefBuilderTest, AttrSpecsDefaultsMinimumsAndAllowedValues) {
  StatusOr<OpDef> def = Build(OpDefBuilder("Y")
                                  .Attr("padding: {'SAME', 'VALID'} = 'SAME'")
                                  .Attr("T: {float, int32} = DT_INT32")
                                  .Attr("ksize: list(int) >= 4 = [1, 2, 2, 1]")
                                  .Attr("k: int >= -3 = -1")
                                  .Attr("alpha: float = 0.25")
                                  .Attr("flag: bool = true")
                                  .Attr("shape: shape = [?, 3]")
                                  .Attr("names: list(string) = ['a', \"b\"]")
                                  .Attr("value: tensor")
                                  .Attr("shapes: list(shape) = [[1, 2], [?]]"));
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  const OpDef::AttrDef* padding = def->FindAttr("padding");
  ASSERT_NE(padding, nullptr);
  EXPECT_EQ(padding->kind, AttrValue::Kind::kString);
  ASSERT_EQ(padding->allowed_values.size(), 2u);
  EXPECT_EQ(padding->allowed_values[1].s(), "VALID");
  EXPECT_EQ(padding->default_value->s(), "SAME");
  const OpDef::AttrDef* t = def->FindAttr("T");
  EXPECT_EQ(t->kind, AttrValue::Kind::kType);
  EXPECT_EQ(t->allowed_values.size(), 2u);
  EXPECT_EQ(t->default_value->type(), DT_INT32);
  const OpDef::AttrDef* ksize = def->FindAttr("ksize");
  EXPECT_EQ(ksize->kind, AttrValue::Kind::kIntList);
  EXPECT_EQ(ksize->minimum, 4);
  EXPECT_EQ(ksize->default_value->list_i(), (std::vector<int64_t>{1, 2, 2, 1}));
  EXPECT_EQ(def->FindAttr("k")->minimum, -3);
  EXPECT_EQ(def->FindAttr("k")->default_value->i(), -1);
  EXPECT_EQ(def->FindAttr("alpha")->default_value->f(), 0.25f);
  EXPECT_TRUE(def->FindAttr("flag")->default_value->b());
  EXPECT_EQ(def->FindAttr("shape")->default_value->shape(), PartialTensorShape({-1, 3}));
  EXPECT_EQ(def->FindAttr("names")->default_value->list_s(), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(def->FindAttr("value")->default_value.has_value());
  EXPECT_EQ(def->FindAttr("shapes")->default_value->list_shape().size(), 2u);
  EXPECT_EQ(def->FindAttr("nope"), nullptr);
}

TEST(OpDefBuilderTest, BadSpecsNameTheOpAndTheSpec) {
  ExpectError(Build(OpDefBuilder("Bad").Input("x: Q")).status(), Code::kInvalidArgument,
              "op 'Bad': input 'x: Q': 'Q' is neither a dtype nor an attr");
  ExpectError(Build(OpDefBuilder("Bad").Input("x: N * T").Attr("N: float").Attr("T: type")).status(),
              Code::kInvalidArgument, "'N' must be an int attr");
  ExpectError(Build(OpDefBuilder("Bad").Output("y: S").Attr("S: string")).status(),
              Code::kInvalidArgument, "output 'y: S': attr 'S' must be a type");
  ExpectError(Build(OpDefBuilder("Bad").Attr("nocolon")).status(), Code::kInvalidArgument,
              "op 'Bad': attr 'nocolon': attr spec needs 'name: type'");
  ExpectError(Build(OpDefBuilder("Bad").Attr("k: int = abc")).status(), Code::kInvalidArgument,
              "cannot parse 'abc' as int");
  ExpectError(Build(OpDefBuilder("Bad").Attr("k: sometype")).status(), Code::kInvalidArgument,
              "unknown attr type 'sometype'");
  ExpectError(Build(OpDefBuilder("Bad").Attr("T: {float, nosuch}")).status(),
              Code::kInvalidArgument, "T: {float, nosuch}");
  ExpectError(Build(OpDefBuilder("Bad").Attr("1x: int")).status(), Code::kInvalidArgument,
              "bad attr name '1x'");
}

TEST(OpDefBuilderTest, AttrLiterals) {
  EXPECT_EQ(ParseAttrLiteral(AttrValue::Kind::kType, "DT_BFLOAT16")->type(), DT_BFLOAT16);
  EXPECT_EQ(ParseAttrLiteral(AttrValue::Kind::kType, "half")->type(), DT_HALF);
  EXPECT_TRUE(ParseAttrLiteral(AttrValue::Kind::kShape, "<unknown>")->shape().unknown_rank());
  EXPECT_EQ(ParseAttrLiteral(AttrValue::Kind::kIntList, "[]")->list_size(), 0u);
  EXPECT_EQ(ParseAttrLiteral(AttrValue::Kind::kTypeList, "[float, int64]")->list_type()[1],
            DT_INT64);
  EXPECT_FALSE(ParseAttrLiteral(AttrValue::Kind::kInt, "1.5").ok());
  EXPECT_FALSE(ParseAttrLiteral(AttrValue::Kind::kBool, "yes").ok());
  EXPECT_FALSE(ParseAttrLiteral(AttrValue::Kind::kIntList, "1, 2").ok());
}

TEST(OpRegistryTest, LookUpRegisterAndList) {
  OpRegistry* r = OpRegistry::Global();
  StatusOr<const OpDef*> op = r->LookUp("RegTestConcat");
  ASSERT_TRUE(op.ok());
  EXPECT_EQ((*op)->name, "RegTestConcat");
  ExpectError(r->LookUp("NoSuchOpAnywhere").status(), Code::kNotFound, "NoSuchOpAnywhere");
  ExpectError(r->Register(**op), Code::kAlreadyExists, "RegTestConcat");
  std::vector<std::string> ops = r->ListOps();
  EXPECT_NE(std::find(ops.begin(), ops.end(), "RegTestConcat"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "Const"), ops.end());
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
}

NodeDef ConcatNode() {
  NodeDef n{"cat", "RegTestConcat", {}, "", {}};
  n.attrs["N"] = AttrValue::Int(3);
  n.attrs["T"] = AttrValue::Type(DT_DOUBLE);
  return n;
}

TEST(NodePropertiesTest, DefaultsFilledAndTypesResolved) {
  NodeDef n = ConcatNode();
  n.attrs["Textra"] = AttrValue::TypeList({DT_STRING, DT_INT8});
  n.attrs["_class"] = AttrValue::StringList({"loc:@x"});  // runtime attrs need no declaration
  auto props = NodeProperties::Create(n);
  ASSERT_TRUE(props.ok()) << props.status().ToString();
  const AttrMap& a = (*props)->def.attrs;
  EXPECT_EQ(a.at("padding").s(), "VALID");
  EXPECT_EQ(a.at("k").i(), -1);
  EXPECT_EQ(a.at("Textra").list_type().size(), 2u);
  EXPECT_EQ((*props)->input_types,
            (std::vector<DataType>{DT_DOUBLE, DT_DOUBLE, DT_DOUBLE, MakeRefType(DT_DOUBLE),
                                   DT_STRING, DT_INT8, DT_INT64}));
  EXPECT_EQ((*props)->output_types, (std::vector<DataType>{DT_DOUBLE, DT_BOOL}));
  EXPECT_EQ((*props)->op_def->name, "RegTestConcat");
  EXPECT_EQ((*props)->ErrorPrefix(), "node 'cat' (op 'RegTestConcat'): ");
}

TEST(NodePropertiesTest, AttrErrorsNameTheNodeAndAttr) {
  NodeDef unknown_op{"n1", "NoSuchOpAnywhere", {}, "", {}};
  ExpectError(NodeProperties::Create(unknown_op).status(), Code::kNotFound,
              "node 'n1' (op 'NoSuchOpAnywhere'): ");

  NodeDef missing = ConcatNode();
  missing.attrs.erase("T");
  ExpectError(NodeProperties::Create(missing).status(), Code::kInvalidArgument,
              "node 'cat' (op 'RegTestConcat'): missing attr 'T'");

  NodeDef wrong_kind = ConcatNode();
  wrong_kind.attrs["T"] = AttrValue::Int(1);
  ExpectError(NodeProperties::Create(wrong_kind).status(), Code::kInvalidArgument,
              "attr 'T' is int, expected type");

  NodeDef not_allowed = ConcatNode();
  not_allowed.attrs["T"] = AttrValue::Type(DT_INT32);
  ExpectError(NodeProperties::Create(not_allowed).status(), Code::kInvalidArgument,
              "attr 'T' = int32 is not in the allowed set {float, double}");

  NodeDef bad_string = ConcatNode();
  bad_string.attrs["padding"] = AttrValue::String("FULL");
  ExpectError(NodeProperties::Create(bad_string).status(), Code::kInvalidArgument,
              "attr 'padding' = \"FULL\" is not in the allowed set");

  NodeDef below_min = ConcatNode();
  below_min.attrs["N"] = AttrValue::Int(0);
  ExpectError(NodeProperties::Create(below_min).status(), Code::kInvalidArgument,
              "attr 'N' = 0 is below its minimum 1");

  // A list's length comes from an attr: 2^40 tensors allocated until the
  // process was killed.
  NodeDef huge = ConcatNode();
  huge.attrs["N"] = AttrValue::Int(int64_t{1} << 40);
  ExpectError(NodeProperties::Create(huge).status(), Code::kInvalidArgument,
              "node 'cat' (op 'RegTestConcat'): attr 'N' = 1099511627776 asks for more than 1048576 "
              "tensors in values");
  NodeDef largest = ConcatNode();
  largest.attrs["N"] = AttrValue::Int(int64_t{1} << 20);
  auto largest_props = NodeProperties::Create(largest);
  ASSERT_TRUE(largest_props.ok()) << largest_props.status().ToString();
  EXPECT_EQ((*largest_props)->input_types.size(), (size_t{1} << 20) + 2);  // values, state, index

  NodeDef extra = ConcatNode();
  extra.attrs["bogus"] = AttrValue::Bool(true);
  ExpectError(NodeProperties::Create(extra).status(), Code::kInvalidArgument,
              "attr 'bogus' is not an attr of op 'RegTestConcat'");

  NodeDef unnamed = ConcatNode();
  unnamed.name.clear();
  ExpectError(NodeProperties::Create(unnamed).status(), Code::kInvalidArgument, "has no name");
}

}  // namespace
}  // namespace tact
