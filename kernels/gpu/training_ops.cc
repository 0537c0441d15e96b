// GPU kernels of ApplyGradientDescent, ApplyMomentum, ApplyAdam,
// ApplyRMSProp and ApplyAdagrad(V2) (float, double): the CPU kernels'
// contract (kernels/cpu/training_ops.cc) with the update enqueued on the
// compute stream.
//
// The Vars are locked (in address order) while the kernel checks them and
// enqueues the update, not while the GPU runs it: every later reader on
// this device is enqueued on the same stream after the update, and readers
// elsewhere copy after the work enqueued so far (GpuDevice's copies). The
// hyper-parameters are device scalars the CUDA kernel reads itself.
// Copy-on-write as on the CPU: a Var whose buffer someone still holds
// (a value read earlier in the step) gets a fresh device copy, made on the
// compute stream before the update, so the earlier reader keeps its value.
#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/training_launch.h"
#include "kernels/kernel_registry.h"
#include "kernels/locked_slots.h"
#include "kernels/variable.h"

namespace tact {
namespace {

// Copy on write on the device, on the compute stream before the update.
SlotCopy DeviceCopy(gpu::GpuDevice* d) {
  return [d](const Tensor& t) -> StatusOr<Tensor> {
    TACT_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(d->allocator(), t.dtype(), t.shape()));
    TACT_RETURN_IF_ERROR(d->CopyOnDevice(t, &copy));
    return copy;
  };
}

// The device address of the scalar at input `port`; InvalidArgument naming
// it if it is not a scalar.
Status ScalarAt(OpKernelContext* ctx, int port, const char* name, const void** out) {
  const Tensor& t = ctx->input(port);
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " must be a scalar, got shape ", t.shape().DebugString());
  }
  *out = t.raw_data();
  return Status::OK();
}

class GpuApplyGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const void* alpha = nullptr;
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 1, "alpha", &alpha));
    const Tensor& delta = ctx->input(2);
    LockedSlots<1> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0}, {"var"}, delta, DeviceCopy(d)));
    if (!gpu::CudaOk(ctx,
                     gpu::LaunchApplyGradientDescent(*gpu::ElementTypeOf(delta.dtype()),
                                                     slots.data(0), alpha, delta.raw_data(),
                                                     slots.size(), d->compute_stream()),
                     "ApplyGradientDescent")) {
      return;
    }
    ctx->set_output(0, ctx->input(0));
  }
};

class GpuApplyMomentumOp : public OpKernel {
 public:
  explicit GpuApplyMomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const void* lr = nullptr;
    const void* momentum = nullptr;
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 2, "lr", &lr));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 4, "momentum", &momentum));
    const Tensor& grad = ctx->input(3);
    LockedSlots<2> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0, 1}, {"var", "accum"}, grad, DeviceCopy(d)));
    if (!gpu::CudaOk(ctx,
                     gpu::LaunchApplyMomentum(*gpu::ElementTypeOf(grad.dtype()), slots.data(0),
                                              slots.data(1), lr, grad.raw_data(), momentum,
                                              use_nesterov_, slots.size(), d->compute_stream()),
                     "ApplyMomentum")) {
      return;
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  bool use_nesterov_ = false;
};

class GpuApplyAdamOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    gpu::AdamScalars s;
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 3, "beta1_power", &s.beta1_power));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 4, "beta2_power", &s.beta2_power));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 5, "lr", &s.lr));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 6, "beta1", &s.beta1));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 7, "beta2", &s.beta2));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 8, "epsilon", &s.epsilon));
    const Tensor& grad = ctx->input(9);
    LockedSlots<3> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0, 1, 2}, {"var", "m", "v"}, grad, DeviceCopy(d)));
    if (!gpu::CudaOk(ctx,
                     gpu::LaunchApplyAdam(*gpu::ElementTypeOf(grad.dtype()), slots.data(0),
                                          slots.data(1), slots.data(2), s, grad.raw_data(),
                                          slots.size(), d->compute_stream()),
                     "ApplyAdam")) {
      return;
    }
    ctx->set_output(0, ctx->input(0));
  }
};

class GpuApplyRMSPropOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const void* scalars[4] = {};
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 3, "lr", &scalars[0]));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 4, "rho", &scalars[1]));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 5, "momentum", &scalars[2]));
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 6, "epsilon", &scalars[3]));
    const Tensor& grad = ctx->input(7);
    LockedSlots<3> slots;
    OP_REQUIRES_OK(ctx,
                   slots.Acquire(ctx, {0, 1, 2}, {"var", "ms", "mom"}, grad, DeviceCopy(d)));
    if (!gpu::CudaOk(ctx,
                     gpu::LaunchApplyRMSProp(*gpu::ElementTypeOf(grad.dtype()), slots.data(0),
                                             slots.data(1), slots.data(2), scalars,
                                             grad.raw_data(), slots.size(), d->compute_stream()),
                     "ApplyRMSProp")) {
      return;
    }
    ctx->set_output(0, ctx->input(0));
  }
};

// ApplyAdagrad and, with kHasEpsilon, ApplyAdagradV2.
template <bool kHasEpsilon>
class GpuApplyAdagradOp : public OpKernel {
 public:
  explicit GpuApplyAdagradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("update_slots", &update_slots_));
  }
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const void* lr = nullptr;
    const void* epsilon = nullptr;
    OP_REQUIRES_OK(ctx, ScalarAt(ctx, 2, "lr", &lr));
    if (kHasEpsilon) OP_REQUIRES_OK(ctx, ScalarAt(ctx, 3, "epsilon", &epsilon));
    const Tensor& grad = ctx->input(kHasEpsilon ? 4 : 3);
    LockedSlots<2> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0, 1}, {"var", "accum"}, grad, DeviceCopy(d)));
    if (!gpu::CudaOk(ctx,
                     gpu::LaunchApplyAdagrad(*gpu::ElementTypeOf(grad.dtype()), slots.data(0),
                                             slots.data(1), lr, epsilon, grad.raw_data(),
                                             update_slots_, slots.size(), d->compute_stream()),
                     kHasEpsilon ? "ApplyAdagradV2" : "ApplyAdagrad")) {
      return;
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  bool update_slots_ = true;
};

const std::vector<DataType> kTypes = {DT_FLOAT, DT_DOUBLE};
REGISTER_KERNEL_BUILDER(Name("ApplyGradientDescent").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuApplyGradientDescentOp);
REGISTER_KERNEL_BUILDER(Name("ApplyMomentum").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuApplyMomentumOp);
REGISTER_KERNEL_BUILDER(Name("ApplyAdam").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuApplyAdamOp);
REGISTER_KERNEL_BUILDER(Name("ApplyRMSProp").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuApplyRMSPropOp);
REGISTER_KERNEL_BUILDER(Name("ApplyAdagrad").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuApplyAdagradOp<false>);
REGISTER_KERNEL_BUILDER(Name("ApplyAdagradV2").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuApplyAdagradOp<true>);

}  // namespace
}  // namespace tact
