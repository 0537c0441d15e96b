// Shape, Size and Rank: facts about the input's shape as tensors. They never
// read the input's elements, so they run inline.
#include <algorithm>
#include <limits>

#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Writes `values` into output 0 (int32 or int64, as declared); an int32
// output that cannot hold a value is an error, not a silent wrap.
void SetIntOutput(OpKernelContext* ctx, const std::vector<int64_t>& values, const TensorShape& shape,
                  const char* what) {
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  if (out->dtype() == DT_INT64) {
    std::copy(values.begin(), values.end(), out->data<int64_t>());
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    OP_REQUIRES(ctx, values[i] <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(what, " ", values[i],
                                        " does not fit in int32; use out_type int64"));
    out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
}

class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& s = ctx->input(0).shape();
    SetIntOutput(ctx, s.dim_sizes(), TensorShape({s.dims()}), "dimension");
  }
  bool IsExpensive() const override { return false; }
};

class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    SetIntOutput(ctx, {ctx->input(0).NumElements()}, TensorShape(), "size");
  }
  bool IsExpensive() const override { return false; }
};

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    SetIntOutput(ctx, {ctx->input(0).dims()}, TensorShape(), "rank");
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Shape").Device(DEVICE_CPU), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("Size").Device(DEVICE_CPU), SizeOp);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CPU), RankOp);
// On a GPU device: they read only shapes, and an int32 result lives in host
// memory there (gpu::KeptInHostMemory), where this host code writes it.
REGISTER_KERNEL_BUILDER(Name("Shape").Device(DEVICE_GPU).TypeConstraint<int32_t>("out_type"), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("Size").Device(DEVICE_GPU).TypeConstraint<int32_t>("out_type"), SizeOp);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_GPU), RankOp);

}  // namespace
}  // namespace tact
