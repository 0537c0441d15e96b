// Fill, ZerosLike and OnesLike: tensors of one repeated value.
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/cpu/op_checks.h"
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
    StatusOr<TensorShape> shape = FillShape(dims, value);
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
    // T{} is zero for every type (the empty string included).
    FillWith(ctx, out, kValue == 0 ? T{} : static_cast<T>(kValue));
  }
};

#define TACT_REGISTER_FILL(T, ...)                                                        \
  REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_CPU).TypeConstraint<T>("T"), FillOp<T>); \
  REGISTER_KERNEL_BUILDER(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
                          ConstantLikeOp<T, 0>);
TACT_CALL_ALL(TACT_REGISTER_FILL)
#undef TACT_REGISTER_FILL

#define TACT_REGISTER_ONES_LIKE(T, ...)                                                \
  REGISTER_KERNEL_BUILDER(Name("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ConstantLikeOp<T, 1>);
TACT_CALL_NUMBER(TACT_REGISTER_ONES_LIKE)
TACT_REGISTER_ONES_LIKE(bool)
#undef TACT_REGISTER_ONES_LIKE

}  // namespace
}  // namespace tact
