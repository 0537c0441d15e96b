// Fill, ZerosLike and OnesLike: tensors of one repeated value.
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
void FillWith(OpKernelContext* ctx, Tensor* out, const T& value) {
  T* p = out->data<T>();
  ParallelFor(ctx, out->NumElements(), 1, [&](int64_t b, int64_t e) {
    std::fill(p + b, p + e, value);
  });
}

template <typename T>
class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, dims.dims() == 1,
                errors::InvalidArgument("dims must be a vector, got shape ",
                                        dims.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() == 0,
                errors::InvalidArgument("value must be a scalar, got shape ",
                                        value.shape().DebugString()));
    StatusOr<std::vector<int64_t>> sizes = ReadIntVector(dims, "dims");
    OP_REQUIRES_OK(ctx, sizes.status());
    StatusOr<TensorShape> shape = TensorShape::FromDims(*sizes);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    FillWith(ctx, out, value.scalar<T>());
  }
};

// ZerosLike (kValue = 0) and OnesLike (kValue = 1).
template <typename T, int kValue>
class ConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    FillWith(ctx, out, static_cast<T>(kValue));
  }
};

#define TACT_REGISTER_FILL(T) \
  REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_CPU).TypeConstraint<T>("T"), FillOp<T>)
TACT_REGISTER_FILL(float);
TACT_REGISTER_FILL(double);
TACT_REGISTER_FILL(int32_t);
TACT_REGISTER_FILL(int64_t);
TACT_REGISTER_FILL(uint8_t);
TACT_REGISTER_FILL(bool);
TACT_REGISTER_FILL(std::string);
#undef TACT_REGISTER_FILL

#define TACT_REGISTER_LIKE(T)                                                            \
  REGISTER_KERNEL_BUILDER(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          ConstantLikeOp<T, 0>);                                         \
  REGISTER_KERNEL_BUILDER(Name("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
                          ConstantLikeOp<T, 1>)
TACT_REGISTER_LIKE(float);
TACT_REGISTER_LIKE(double);
TACT_REGISTER_LIKE(int32_t);
TACT_REGISTER_LIKE(int64_t);
TACT_REGISTER_LIKE(uint8_t);
TACT_REGISTER_LIKE(bool);
#undef TACT_REGISTER_LIKE

}  // namespace
}  // namespace tact
