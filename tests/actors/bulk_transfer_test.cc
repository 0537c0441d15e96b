// The registration side of actors/bulk_transfer.h: which tensor attrs leave
// a partition's graph for the link, and how they are put back.
#include "actors/bulk_transfer.h"

#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"

namespace tact {
namespace {

GraphDef SmallAndLargeConsts() {
  Scope s = Scope::NewRootScope();
  Tensor large(DT_FLOAT, TensorShape({static_cast<int64_t>(kBulkTensorBytes / 4)}));
  for (int64_t i = 0; i < large.NumElements(); ++i) large.data<float>()[i] = static_cast<float>(i);
  Tensor words(DT_STRING, TensorShape({2}));
  words.data<std::string>()[0] = std::string(kBulkTensorBytes, 'w');  // strings stay in the message
  Add(s.WithOpName("sum"), Const(s.WithOpName("large"), large),
      Const(s.WithOpName("small"), Tensor::Scalar<float>(1)));
  Const(s.WithOpName("words"), words);
  return *s.ToGraphDef();
}

const NodeDef& Node(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.nodes) {
    if (n.name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  return g.nodes.front();
}

TEST(BulkTransferTest, OnlyLargeNumericTensorAttrsLeaveAndComeBackBitwise) {
  const GraphDef original = SmallAndLargeConsts();
  GraphDef sent = original;
  auto taken = TakeLinkedAttrs(&sent);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].first, LinkedAttrKey("large", "value"));
  EXPECT_EQ(Node(sent, "large").attrs.at("value").tensor().NumElements(), 1);
  EXPECT_TRUE(Node(sent, "small").attrs == Node(original, "small").attrs);
  EXPECT_TRUE(Node(sent, "words").attrs == Node(original, "words").attrs);
  ASSERT_TRUE(PutLinkedAttr(&sent, taken[0].first, taken[0].second).ok());
  EXPECT_TRUE(sent == original);
}

TEST(BulkTransferTest, AnAttrThatDoesNotFitItsPlaceholderIsRefusedNamingIt) {
  GraphDef sent = SmallAndLargeConsts();
  auto taken = TakeLinkedAttrs(&sent);
  ASSERT_EQ(taken.size(), 1u);
  Status wrong_type = PutLinkedAttr(&sent, taken[0].first, Tensor::Scalar<int32_t>(3));
  EXPECT_EQ(wrong_type.code(), Code::kInvalidArgument);
  EXPECT_NE(wrong_type.message().find("attr;large;value"), std::string::npos) << wrong_type.ToString();
  Status no_such = PutLinkedAttr(&sent, LinkedAttrKey("nobody", "value"), taken[0].second);
  EXPECT_EQ(no_such.code(), Code::kInvalidArgument);
  EXPECT_NE(no_such.message().find("nobody"), std::string::npos) << no_such.ToString();
}

}  // namespace
}  // namespace tact
