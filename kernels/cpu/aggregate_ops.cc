// AddN: the element-wise sum of N tensors of one shape (no broadcasting),
// the op that gradient aggregation emits where a tensor has several
// consumers (paper 4.1). Each output element sums its inputs in input
// order, so the result does not depend on how the work is split.
#include <algorithm>
#include <functional>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    OP_REQUIRES(ctx, n >= 1, errors::InvalidArgument("AddN needs at least one input"));
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument("inputs must have the same shape: input 0 is ",
                                          first.shape().DebugString(), " but input ", i, " is ",
                                          ctx->input(i).shape().DebugString()));
    }
    if (n == 1) {  // the sum of one tensor is that tensor
      ctx->set_output(0, first);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    T* po = out->data<T>();
    auto body = [ctx, n, po](int64_t b, int64_t e) {
      // Blocks of the output stay in cache while every input is added in.
      constexpr int64_t kBlock = 4096;
      for (int64_t s = b; s < e; s += kBlock) {
        const int64_t t = std::min(e, s + kBlock);
        const T* p0 = ctx->input(0).data<T>();
        const T* p1 = ctx->input(1).data<T>();
        for (int64_t i = s; i < t; ++i) po[i] = Add(p0[i], p1[i]);
        for (int k = 2; k < n; ++k) {
          const T* pk = ctx->input(k).data<T>();
          for (int64_t i = s; i < t; ++i) po[i] = Add(po[i], pk[i]);
        }
      }
    };
    ParallelFor(ctx, first.NumElements(), n, std::cref(body));  // no std::function copy
  }

 private:
  // Integers wrap instead of overflowing into undefined behaviour; half and
  // bfloat16 add in float and round each partial sum.
  static T Add(T a, T b) { return WrappingAdd(a, b); }
};

#define TACT_REGISTER_ADDN(T, ...) \
  REGISTER_KERNEL_BUILDER(Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), AddNOp<T>);
TACT_CALL_NUMBER(TACT_REGISTER_ADDN)
#undef TACT_REGISTER_ADDN

}  // namespace
}  // namespace tact
