// The coordinate-indexing ops as a user meets them in a Session: a bad
// index fed at run time fails the step naming the node, the op and the
// index, and the same session then runs good feeds.
#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

TEST(IndexingSessionTest, ABadIndexNamesItsNodeAndTheSessionGoesOn) {
  Scope s = Scope::NewRootScope();
  Output params = Const(s, Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}));
  Output ids = Placeholder(s.WithOpName("ids"), DT_INT32);
  Output picked = GatherNd(s.WithOpName("pick"), params, ids);
  Where(s.WithOpName("where"), Greater(s, picked, 2.0f));
  ScatterNd(s.WithOpName("scatter"), ids, picked, {4, 2});
  auto session = test::NewSession(s);

  auto bad = session->Run({{"ids", Tensor::FromVector<int32_t>({1, 1, 9, 0}, {2, 2})}}, {"pick"}, {});
  ASSERT_FALSE(bad.ok());
  const std::string& msg = bad.status().message();
  EXPECT_NE(msg.find("node 'pick' (op 'GatherNd')"), std::string::npos) << msg;
  EXPECT_NE(msg.find("indices[1,0] = 9 is not in [0, 4) (dimension 0 of params [4,2])"),
            std::string::npos)
      << msg;

  const Tensor good = Tensor::FromVector<int32_t>({1, 1, 3, 0, 1, 1}, {3, 2});
  auto out = session->Run({{"ids", good}}, {"pick", "where", "scatter"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(test::AsDoubles<float>((*out)[0]), (std::vector<double>{3, 6, 3}));
  EXPECT_EQ(test::AsDoubles<int64_t>((*out)[1]), (std::vector<double>{0, 1, 2}));
  // (1,1) picked twice adds up; (3,0) once; the rest stays zero.
  EXPECT_EQ(test::AsDoubles<float>((*out)[2]), (std::vector<double>{0, 0, 0, 6, 0, 0, 6, 0}));
}

}  // namespace
}  // namespace tact
