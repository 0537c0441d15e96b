#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

TEST(ShapeOpsTest, ShapeSizeRankOfSeveralRanks) {
  const TensorShape shapes[] = {{}, {5}, {2, 0, 3}, {2, 3, 4, 1}};
  uint32_t seed = 1;
  for (const TensorShape& s : shapes) {
    for (DataType t : {DT_FLOAT, DT_STRING, DT_BOOL}) {
      Tensor x = test::RandomAny(t, s, seed++);
      for (DataType out_type : {DT_INT32, DT_INT64}) {
        const AttrMap attrs = {{"out_type", AttrValue::Type(out_type)}};
        Tensor shape = test::RunOne("Shape", {x}, attrs);
        EXPECT_EQ(shape.dtype(), out_type);
        test::ExpectClose(shape, TensorShape({s.dims()}),
                          std::vector<double>(s.dim_sizes().begin(), s.dim_sizes().end()));
        Tensor size = test::RunOne("Size", {x}, attrs);
        EXPECT_EQ(size.dtype(), out_type);
        test::ExpectClose(size, {}, {static_cast<double>(s.num_elements())});
      }
      Tensor rank = test::RunOne("Rank", {x});
      EXPECT_EQ(rank.dtype(), DT_INT32);
      test::ExpectClose(rank, {}, {static_cast<double>(s.dims())});
    }
  }
}

TEST(ShapeOpsTest, Int32OverflowIsAnError) {
  // A shape of 2^31 elements with no buffer behind it: Shape never reads one.
  Tensor big(DT_FLOAT, TensorShape({1LL << 31}), nullptr);
  test::ExpectError(test::RunOp("Shape", {big}).status(), Code::kInvalidArgument,
                    "dimension 2147483648 does not fit in int32; use out_type int64");
  test::ExpectError(test::RunOp("Size", {big}).status(), Code::kInvalidArgument,
                    "size 2147483648 does not fit in int32");
  Tensor s = test::RunOne("Size", {big}, {{"out_type", AttrValue::Type(DT_INT64)}});
  EXPECT_EQ(s.scalar<int64_t>(), 1LL << 31);
}

}  // namespace
}  // namespace tact
