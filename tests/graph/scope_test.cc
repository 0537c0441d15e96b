// Scope and OpBuilder: names, devices, colocation, control dependencies and
// errors recorded in the scope.
#include "graph/scope.h"

#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "graph/ops/core_ops.h"
#include "graph/ops/state_ops.h"
#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;

REGISTER_OP("ScopeTestAdd").Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {float, double, int32, int64}");

Output TestAdd(const Scope& s, Input x, Input y) {
  return OpBuilder(s, "ScopeTestAdd").Input(x).Input(y).FinalizeOutput();
}

TEST(ScopeTest, AutoNamesAreUnique) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT);
  Output a = TestAdd(s, x, x);
  Output a1 = TestAdd(s, a, x);
  Output a2 = TestAdd(s, a1, x);
  EXPECT_EQ(x.name(), "Placeholder");
  EXPECT_EQ(a.name(), "ScopeTestAdd");
  EXPECT_EQ(a1.name(), "ScopeTestAdd_1");
  EXPECT_EQ(a2.name(), "ScopeTestAdd_2");
  EXPECT_EQ(a.type(), DT_FLOAT);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
}

TEST(ScopeTest, SubScopesPrefixNamesAndAreMadeUnique) {
  Scope root = Scope::NewRootScope();
  Scope layer = root.NewSubScope("layer");
  Scope layer_again = root.NewSubScope("layer");
  Scope inner = layer.NewSubScope("inner");
  EXPECT_EQ(Placeholder(layer, DT_FLOAT).name(), "layer/Placeholder");
  EXPECT_EQ(Placeholder(layer_again, DT_FLOAT).name(), "layer_1/Placeholder");
  EXPECT_EQ(Placeholder(inner, DT_FLOAT).name(), "layer/inner/Placeholder");
  EXPECT_EQ(Placeholder(layer, DT_FLOAT).name(), "layer/Placeholder_1");
  EXPECT_EQ(Placeholder(root, DT_FLOAT).name(), "Placeholder");
  EXPECT_TRUE(root.ok());
}

TEST(ScopeTest, WithOpNameGivesExactNames) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  EXPECT_EQ(x.name(), "x");
  EXPECT_EQ(Placeholder(s.NewSubScope("sub").WithOpName("x"), DT_FLOAT).name(), "sub/x");
  // An auto-name never collides with an explicit one.
  EXPECT_EQ(Placeholder(s.WithOpName("Placeholder"), DT_FLOAT).name(), "Placeholder");
  EXPECT_EQ(Placeholder(s, DT_FLOAT).name(), "Placeholder_1");
  // Taking an existing name is an error recorded in the scope.
  EXPECT_FALSE(Placeholder(s.WithOpName("x"), DT_FLOAT).ok());
  ExpectError(s.ToGraphDef().status(), Code::kAlreadyExists, "node 'x' is defined twice");
}

TEST(ScopeTest, DevicesColocationAndControlDependencies) {
  Scope s = Scope::NewRootScope();
  Output v = Variable(s.WithOpName("v").WithDevice("/job:ps/task:0"), {3});
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output sum = TestAdd(s.WithOpName("sum").ColocateWith(v).WithDevice("/device:gpu:0"), x, v);
  Scope after = s.WithControlDependencies({sum, x});
  EXPECT_TRUE(Identity(after.WithOpName("id"), v).ok());
  Node* noop = NoOp(after.WithOpName("done"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_NE(noop, nullptr);
  StatusOr<GraphDef> def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  auto find = [&](const std::string& name) -> const NodeDef& {
    for (const NodeDef& n : def->nodes) {
      if (n.name == name) return n;
    }
    ADD_FAILURE() << "no node " << name;
    return def->nodes[0];
  };
  EXPECT_EQ(find("v").device, "/job:ps/task:0");
  EXPECT_EQ(find("x").device, "");
  EXPECT_EQ(find("sum").device, "/device:gpu:0");
  EXPECT_EQ(find("sum").attrs.at("_class").list_s(), (std::vector<std::string>{"loc:@v"}));
  EXPECT_EQ(find("sum").inputs, (std::vector<std::string>{"x", "v"}));
  // Control inputs come after the data inputs, marked with '^'.
  EXPECT_EQ(find("id").inputs, (std::vector<std::string>{"v", "^sum", "^x"}));
  EXPECT_EQ(find("done").inputs, (std::vector<std::string>{"^sum", "^x"}));
  // The sub-scope keeps its device; the parent scope is unchanged.
  EXPECT_TRUE(s.control_deps().empty());
  EXPECT_EQ(after.control_deps().size(), 2u);
}

TEST(ScopeTest, ConstantInputsBecomeConstNodes) {
  Scope s = Scope::NewRootScope();
  Output f = TestAdd(s, 1.5f, 2.0f);
  Output i = TestAdd(s, 3, 4);  // integer literals are int32, as in TensorFlow
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(f.type(), DT_FLOAT);
  EXPECT_EQ(i.type(), DT_INT32);
  EXPECT_EQ(f.node->input_edge(0)->src->op(), "Const");
  EXPECT_EQ(f.node->input_edge(0)->src->name(), "Const");
  EXPECT_EQ(f.node->input_edge(1)->src->name(), "Const_1");
}

TEST(ScopeTest, FirstErrorIsRecordedAndReturnedByToGraphDef) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT);
  Output n = Placeholder(s, DT_INT32);
  Output bad = TestAdd(s.WithOpName("mixed"), x, n);  // float + int32
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(s.ok());
  ExpectError(s.status(), Code::kInvalidArgument, "node 'mixed' (op 'ScopeTestAdd')");
  // Later op functions do nothing and keep the first error.
  EXPECT_FALSE(Placeholder(s, DT_FLOAT).ok());
  EXPECT_FALSE(TestAdd(s, x, x).ok());
  ExpectError(s.ToGraphDef().status(), Code::kInvalidArgument, "node 'mixed'");
  // Every scope derived from the root shares it.
  EXPECT_FALSE(s.NewSubScope("later").ok());
}

TEST(ScopeTest, EmptyInputsAndUnknownOpsAreErrors) {
  Scope s = Scope::NewRootScope();
  EXPECT_FALSE(Identity(s, Output()).ok());
  ExpectError(s.status(), Code::kInvalidArgument, "an input of a new 'Identity' node is empty");
  Scope s2 = Scope::NewRootScope();
  EXPECT_EQ(OpBuilder(s2.WithOpName("q"), "NoSuchOpAnywhere").Finalize(), nullptr);
  ExpectError(s2.ToGraphDef().status(), Code::kNotFound, "node 'q' (op 'NoSuchOpAnywhere')");
  Scope s3 = Scope::NewRootScope();
  Output v = Variable(s3, {2});
  EXPECT_FALSE(Assign(s3.WithOpName("a"), 1.0f, v).ok());  // a constant is not a ref
  ExpectError(s3.status(), Code::kInvalidArgument, "expects float_ref");
  // A NoOp (a train op) has no output to read: an error, not a wild read.
  Scope s4 = Scope::NewRootScope();
  Node* train = NoOp(s4.WithOpName("train"));
  EXPECT_FALSE(Identity(s4, Output(train)).ok());
  ExpectError(s4.status(), Code::kInvalidArgument,
              "an input of a new 'Identity' node is output 0 of node 'train' (op 'NoOp'): which has 0 "
              "output(s); a node without outputs can only be a control dependency");
  Scope s5 = Scope::NewRootScope();
  EXPECT_FALSE(Identity(s5, Output(Const(s5, Tensor::Scalar<float>(1.0f)).node, 3)).ok());
  ExpectError(s5.status(), Code::kInvalidArgument, "is output 3 of node 'Const' (op 'Const'): ");
}

TEST(ScopeTest, WithOpNameNamesTheNodeNotItsConstants) {
  Scope s = Scope::NewRootScope();
  Output sum = TestAdd(s.WithOpName("sum"), Placeholder(s, DT_FLOAT), 2.0f);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(sum.name(), "sum");
  EXPECT_EQ(sum.node->input_edge(1)->src->name(), "Const");
}

}  // namespace
}  // namespace tact
