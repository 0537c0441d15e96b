// The kernel framework itself: async kernels, output checks, allocation
// failure, and the errors naming the node.
#include <gtest/gtest.h>

#include <thread>

#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

REGISTER_OP("TestAsyncDouble").Input("x: float").Output("y: float");
REGISTER_OP("TestWrongOutputType").Output("y: float");
REGISTER_OP("TestAllocate").Input("n: int64").Output("y: float");

// Finishes on another thread, as a Recv would when its tensor arrives.
class TestAsyncDoubleOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::thread([ctx, done] {
      Tensor* y;
      Status s = ctx->allocate_output(0, ctx->input(0).shape(), &y);
      if (s.ok()) {
        for (int64_t i = 0; i < y->NumElements(); ++i) {
          y->data<float>()[i] = 2 * ctx->input(0).data<float>()[i];
        }
      } else {
        ctx->CtxFailure(s);
      }
      done();
    }).detach();
  }
};

class TestWrongOutputTypeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, Tensor::Scalar<int32_t>(3)); }
};

class TestAllocateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {ctx->input(0).scalar<int64_t>()}, &y));
  }
};

REGISTER_KERNEL_BUILDER(Name("TestAsyncDouble").Device(DEVICE_CPU), TestAsyncDoubleOp);
REGISTER_KERNEL_BUILDER(Name("TestWrongOutputType").Device(DEVICE_CPU), TestWrongOutputTypeOp);
REGISTER_KERNEL_BUILDER(Name("TestAllocate").Device(DEVICE_CPU), TestAllocateOp);

TEST(OpKernelTest, AsyncKernelCompletesThroughItsContinuation) {
  Tensor x = test::Random<float>({5}, 3);
  auto out = test::RunOp("TestAsyncDouble", {x});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<double> want;
  for (int i = 0; i < 5; ++i) want.push_back(2.0 * x.data<float>()[i]);
  test::ExpectClose((*out)[0], {5}, want);
}

TEST(OpKernelTest, OutputOfTheWrongDtypeFailsTheStep) {
  auto out = test::RunOp("TestWrongOutputType", {});
  test::ExpectError(out.status(), Code::kInternal,
                    "node 'test_TestWrongOutputType' (op 'TestWrongOutputType'): output 0 is "
                    "declared float but the kernel produced int32");
}

TEST(OpKernelTest, AllocationFailureIsResourceExhaustedAndNamesTheNode) {
  auto ok = test::RunOp("TestAllocate", {Tensor::Scalar<int64_t>(10)});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0].NumElements(), 10);
  // 2^60 floats: no allocator can satisfy it, and nothing may crash.
  auto huge = test::RunOp("TestAllocate", {Tensor::Scalar<int64_t>(int64_t{1} << 60)});
  test::ExpectError(huge.status(), Code::kResourceExhausted, "node 'test_TestAllocate'");
}

TEST(OpKernelTest, RegistryReportsSupportedDeviceTypes) {
  NodeDef def;
  def.name = "id";
  def.op = "Identity";
  def.attrs["T"] = AttrValue::Type(DT_FLOAT);
  auto props = NodeProperties::Create(def);
  ASSERT_TRUE(props.ok());
  std::vector<std::string> types = KernelRegistry::Global()->SupportedDeviceTypes(**props);
  EXPECT_NE(std::find(types.begin(), types.end(), "CPU"), types.end());
}

}  // namespace
}  // namespace tact
