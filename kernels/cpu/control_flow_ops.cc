// The kernels of the control-flow primitives (graph/ops/control_flow_ops.h).
// They only move references: what makes them control flow is how the
// executor treats their outputs (dead tensors, frames and iterations).
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Sets only the output `pred` chooses; the executor takes the output left
// unset for dead.
class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0,
                errors::InvalidArgument("pred must be a scalar, got shape ",
                                        pred.shape().DebugString()));
    ctx->set_output(pred.scalar<bool>() ? 1 : 0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

// The executor runs a Merge once, with only its live input set.
class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->input(i).IsInitialized()) continue;
      ctx->set_output(0, ctx->input(i));
      ctx->set_output(1, Tensor::Scalar<int32_t>(i));
      return;
    }
    ctx->CtxFailure(errors::Internal("Merge ran without a live input"));
  }
  bool IsExpensive() const override { return false; }
};

// Enter, RefEnter, Exit, NextIteration and LoopCond forward their input.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(Name("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefEnter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("LoopCond").Device(DEVICE_CPU), ForwardOp);

}  // namespace
}  // namespace tact
