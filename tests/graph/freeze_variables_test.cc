// FreezeVariables (graph/freeze_variables.h) on a small graph with the
// parts a training graph has: Variables, their initialisers, an update.
#include "graph/freeze_variables.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "graph/ops/all_ops.h"

namespace tact {
namespace {

struct Small {
  GraphDef def;
  Tensor w = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = Tensor::FromVector<float>({0.5f, -0.5f}, {2});
};

// y = x w + b, w and b on the ps; an initialiser and an update of w.
Small BuildSmall() {
  Scope s = Scope::NewRootScope();
  Scope ps = s.WithDevice("/job:ps/task:0");
  Output w = Variable(ps.WithOpName("w"), PartialTensorShape({2, 2}));
  Output b = Variable(ps.WithOpName("b"), PartialTensorShape({2}));
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Add(s.WithOpName("y"), MatMul(s, x, w), b);
  Assign(ps.WithOpName("w/Assign"), w, Const(ps, Tensor::FromVector<float>({0, 0, 0, 0}, {2, 2})));
  AssignAdd(ps.WithOpName("w/update"), w, Const(ps, Tensor::FromVector<float>({1, 1, 1, 1}, {2, 2})));
  Small g;
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  if (def.ok()) g.def = std::move(*def);
  return g;
}

const NodeDef* Find(const GraphDef& def, const std::string& name) {
  auto it = std::find_if(def.nodes.begin(), def.nodes.end(), [&](const NodeDef& n) { return n.name == name; });
  return it == def.nodes.end() ? nullptr : &*it;
}

TEST(FreezeVariablesTest, VariablesBecomeConstsOfTheirValuesAndOnlyWhatTheOutputNeedsRemains) {
  const Small g = BuildSmall();
  auto frozen =
      FreezeVariables(g.def, {"y:0"}, {{"w", g.w}, {"b", g.b}, {"unused", Tensor::Scalar<int32_t>(1)}});
  ASSERT_TRUE(frozen.ok()) << frozen.status().ToString();
  for (const char* name : {"w", "b"}) {
    const NodeDef* n = Find(*frozen, name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(n->op, "Const");
    EXPECT_TRUE(n->device.empty());
    const Tensor& value = n->attrs.at("value").tensor();
    const Tensor& want = std::string(name) == "w" ? g.w : g.b;
    ASSERT_EQ(value.shape(), want.shape());
    for (int64_t i = 0; i < want.NumElements(); ++i) EXPECT_EQ(value.data<float>()[i], want.data<float>()[i]);
  }
  EXPECT_EQ(Find(*frozen, "w/Assign"), nullptr);
  EXPECT_EQ(Find(*frozen, "w/update"), nullptr);
  ASSERT_NE(Find(*frozen, "x"), nullptr);
  EXPECT_EQ(frozen->nodes.size(), 5u);  // x, w, b, the MatMul, y
  for (const NodeDef& n : frozen->nodes) EXPECT_TRUE(n.device.empty()) << n.name;
  // It is a valid graph.
  EXPECT_TRUE(Graph::FromGraphDef(*frozen).ok());
}

TEST(FreezeVariablesTest, AMissingOrMismatchedValueAndAWriteAreNamed) {
  const Small g = BuildSmall();
  auto missing = FreezeVariables(g.def, {"y"}, {{"w", g.w}});
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find("'b'"), std::string::npos) << missing.status().ToString();

  auto shape = FreezeVariables(g.def, {"y"}, {{"w", g.b}, {"b", g.b}});
  EXPECT_EQ(shape.status().code(), Code::kInvalidArgument);
  EXPECT_NE(shape.status().message().find("'w'"), std::string::npos) << shape.status().ToString();

  auto dtype = FreezeVariables(g.def, {"y"}, {{"w", g.w}, {"b", Tensor::FromVector<int32_t>({1, 2}, {2})}});
  EXPECT_EQ(dtype.status().code(), Code::kInvalidArgument);
  EXPECT_NE(dtype.status().message().find("'b'"), std::string::npos) << dtype.status().ToString();

  auto write = FreezeVariables(g.def, {"y", "w/update"}, {{"w", g.w}, {"b", g.b}});
  EXPECT_EQ(write.status().code(), Code::kInvalidArgument);
  EXPECT_NE(write.status().message().find("'w/update'"), std::string::npos) << write.status().ToString();

  auto unknown = FreezeVariables(g.def, {"z:0"}, {{"w", g.w}, {"b", g.b}});
  EXPECT_EQ(unknown.status().code(), Code::kNotFound);
  EXPECT_NE(unknown.status().message().find("'z:0'"), std::string::npos) << unknown.status().ToString();
}

}  // namespace
}  // namespace tact
