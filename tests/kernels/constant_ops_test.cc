#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

TEST(ConstOpTest, OutputsItsValueWithoutCopy) {
  Tensor v = test::Random<float>({2, 3}, 1);
  auto out = test::RunOp("Const", {}, {{"value", AttrValue::FromTensor(v)},
                                       {"dtype", AttrValue::Type(DT_FLOAT)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE((*out)[0].BitwiseEqual(v));
  EXPECT_TRUE((*out)[0].SharesBufferWith(v));
}

TEST(ConstOpTest, DtypeMismatchNamesTheNode) {
  auto out = test::RunOp("Const", {}, {{"value", AttrValue::FromTensor(Tensor::Scalar<int32_t>(1))},
                                       {"dtype", AttrValue::Type(DT_FLOAT)}});
  test::ExpectError(out.status(), Code::kInvalidArgument, "node 'test_Const' (op 'Const')");
}

TEST(IdentityOpTest, EveryDtypePassesThrough) {
  for (DataType t : {DT_FLOAT, DT_INT64, DT_STRING, DT_BOOL, DT_HALF, DT_COMPLEX128}) {
    Tensor x(t, {3});
    auto out = test::RunOp("Identity", {x});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE((*out)[0].SharesBufferWith(x));
  }
}

REGISTER_OP("TestFloatOnly").Input("x: T").Output("y: T").Attr("T: {float, int32}");
REGISTER_OP("TestNoKernel").Output("y: float");
class TestFloatOnlyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};
REGISTER_KERNEL_BUILDER(Name("TestFloatOnly").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        TestFloatOnlyOp);

TEST(KernelRegistryTest, MissingKernelListsWhatExists) {
  EXPECT_TRUE(test::RunOp("TestFloatOnly", {Tensor::Scalar<float>(1)}).ok());
  auto out = test::RunOp("TestFloatOnly", {Tensor::Scalar<int32_t>(1)});
  test::ExpectError(out.status(), Code::kNotFound,
                    "node 'test_TestFloatOnly' (op 'TestFloatOnly'): no kernel registered for "
                    "device CPU with T=int32; registered kernels:\n  CPU [T in {float}]");
  auto none = test::RunOp("TestNoKernel", {});
  test::ExpectError(none.status(), Code::kNotFound, "the op has no kernels at all");
}

TEST(KernelRegistryTest, TypeOutsideTheOpsAllowedSetNamesTheNode) {
  auto out = test::RunOp("TestFloatOnly", {Tensor::Scalar<int8_t>(1)});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "node 'test_TestFloatOnly' (op 'TestFloatOnly'): attr 'T' = int8 is not in "
                    "the allowed set {float, int32}");
}

}  // namespace
}  // namespace tact
