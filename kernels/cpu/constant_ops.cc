// Const, Placeholder, Identity, StopGradient and NoOp: the kernels every graph uses.
// None computes anything, so all run inline (IsExpensive() is false).
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &value_));
    DataType dtype;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    OP_REQUIRES(ctx, value_.dtype() == dtype,
                errors::InvalidArgument("attr 'value' is ", DataTypeString(value_.dtype()),
                                        " but 'dtype' is ", DataTypeString(dtype)));
  }
  // The output shares the attr's buffer: a Const costs no copy per step.
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
  bool IsExpensive() const override { return false; }
};

// A Placeholder that runs was not fed: the session replaces fed ones.
class PlaceholderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->CtxFailure(errors::InvalidArgument("a value must be fed for this placeholder"));
  }
  bool IsExpensive() const override { return false; }
};

class NoOpOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstOp);
// On a GPU device these move no bytes either: the output is the input's
// buffer, wherever it lives. (A GPU Const copies its value to the device:
// kernels/gpu/constant_gpu_ops.cc.)
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_GPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_GPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_GPU), NoOpOp);
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_CPU), NoOpOp);
REGISTER_KERNEL_BUILDER(Name("Placeholder").Device(DEVICE_CPU), PlaceholderOp);

}  // namespace
}  // namespace tact
