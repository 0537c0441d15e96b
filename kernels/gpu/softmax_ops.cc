// GPU kernels of Softmax, LogSoftmax and SparseSoftmaxCrossEntropyWithLogits
// (float, double), with the CPU kernels' checks (kernels/cpu/softmax_op.cc,
// xent_op.cc).
//
// Labels: int64 labels are in device memory and only the kernel reads
// them, so a label outside [0, classes) cannot fail the step without a
// wait; that row's loss and backprop come out NaN, as in TensorFlow's GPU
// kernel. int32 labels live in host memory on a GPU device (KeptInHostMemory):
// the host checks them and fails the step with the CPU kernel's error,
// then copies them to the device (GpuDevice::CopyHostToDevice, ordered
// before the kernel on the compute stream).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/softmax_launch.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <bool kLog>
class GpuSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, logits.dims() >= 1,
                errors::InvalidArgument("logits must have >= 1 dimension, got shape ",
                                        logits.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    if (out->NumElements() == 0) return;
    gpu::CudaOk(ctx,
                gpu::LaunchSoftmax(*gpu::ElementTypeOf(logits.dtype()), logits.raw_data(),
                                   out->raw_data(), logits.NumElements() / classes, classes, kLog,
                                   d->compute_stream()),
                type_string().c_str());
  }
};

template <typename Label>
class GpuSparseXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& features = ctx->input(0);
    Tensor labels = ctx->input(1);
    OP_REQUIRES(ctx, features.dims() == 2,
                errors::InvalidArgument("features must be a matrix [batch, classes], got shape ",
                                        features.shape().DebugString()));
    OP_REQUIRES(ctx, labels.dims() == 1 && labels.dim_size(0) == features.dim_size(0),
                errors::InvalidArgument("labels must be a vector of the batch size, got "
                                        "features ", features.shape().DebugString(),
                                        " and labels ", labels.shape().DebugString()));
    const int64_t batch = features.dim_size(0), classes = features.dim_size(1);
    if constexpr (std::is_same_v<Label, int32_t>) {
      const int32_t* l = labels.data<int32_t>();
      for (int64_t i = 0; i < batch; ++i) {
        OP_REQUIRES(ctx, l[i] >= 0 && l[i] < classes,
                    errors::InvalidArgument("labels[", i, "] = ", l[i], " is not in [0, ",
                                            classes, ")"));
      }
      StatusOr<Tensor> on_device = d->CopyHostToDevice(labels);
      OP_REQUIRES_OK(ctx, on_device.status());
      labels = *on_device;
    }
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, features.shape(), &backprop));
    gpu::CudaOk(ctx,
                gpu::LaunchSparseXent(*gpu::ElementTypeOf(features.dtype()), features.raw_data(),
                                      labels.raw_data(), std::is_same_v<Label, int64_t>,
                                      loss->raw_data(), backprop->raw_data(), batch, classes,
                                      d->compute_stream()),
                "SparseSoftmaxCrossEntropyWithLogits");
  }
};

const std::vector<DataType> kTypes = {DT_FLOAT, DT_DOUBLE};
REGISTER_KERNEL_BUILDER(Name("Softmax").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuSoftmaxOp<false>);
REGISTER_KERNEL_BUILDER(Name("LogSoftmax").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuSoftmaxOp<true>);
REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("T", kTypes)
                            .TypeConstraint<int32_t>("Tlabels"),
                        GpuSparseXentOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("T", kTypes)
                            .TypeConstraint<int64_t>("Tlabels"),
                        GpuSparseXentOp<int64_t>);

}  // namespace
}  // namespace tact
