// Softmax and LogSoftmax over the last axis. Each row subtracts its maximum
// before exponentiating, so large logits neither overflow nor lose the
// small terms: softmax = exp(x - max) / sum, log_softmax = x - max - log(sum).
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/softmax_row.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, logits.dims() >= 1,
                errors::InvalidArgument("logits must have >= 1 dimension, got shape ",
                                        logits.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    if (out->NumElements() == 0) return;
    const int64_t rows = logits.NumElements() / classes;
    const T* x = logits.data<T>();
    T* y = out->data<T>();
    ParallelFor(ctx, rows, classes * 20, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* xr = x + r * classes;
        T* yr = y + r * classes;
        const auto [mx, sum] = ExpShiftedByMax(xr, yr, classes);
        if constexpr (kLog) {
          const T log_sum = std::log(sum);
          for (int64_t j = 0; j < classes; ++j) yr[j] = xr[j] - mx - log_sum;
        } else {
          const T inv = T(1) / sum;
          for (int64_t j = 0; j < classes; ++j) yr[j] *= inv;
        }
      }
    });
  }
};

#define TACT_REGISTER(T)                                                                \
  REGISTER_KERNEL_BUILDER(Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
                          SoftmaxOp<T, false>);                                         \
  REGISTER_KERNEL_BUILDER(Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          SoftmaxOp<T, true>)
TACT_REGISTER(float);
TACT_REGISTER(double);
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
