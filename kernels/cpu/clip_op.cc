// ClipByValue: min(max(t, lo), hi) element-wise, each bound a scalar or of
// t's shape. half and bfloat16 compare in float, which holds them exactly,
// so the result is always one of the three inputs' values; NaN in t passes
// through, and a lower bound above the upper one gives the upper one, as
// TensorFlow's minimum(maximum(t, lo), hi) does.
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class ClipByValueOp : public OpKernel {
  using A = ComputeType<T>;

 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    for (const auto& [b, name] : {std::pair{&lo, "clip_value_min"}, {&hi, "clip_value_max"}}) {
      OP_REQUIRES(ctx, b->dims() == 0 || b->shape() == t.shape(),
                  errors::InvalidArgument(name, " must be a scalar or of t's shape ",
                                          t.shape().DebugString(), ", got ",
                                          b->shape().DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    T* y = out->data<T>();
    // A scalar bound repeats: its step is 0.
    const int64_t ls = lo.dims() == 0 ? 0 : 1, hs = hi.dims() == 0 ? 0 : 1;
    ParallelFor(ctx, t.NumElements(), 3, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const A v = static_cast<A>(x[i]), a = static_cast<A>(l[i * ls]), b = static_cast<A>(h[i * hs]);
        const A up = v < a ? a : v;
        y[i] = static_cast<T>(b < up ? b : up);
      }
    });
  }
};

#define TACT_REGISTER(T, ...)                                                                   \
  REGISTER_KERNEL_BUILDER(Name("ClipByValue").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ClipByValueOp<T>);
TACT_CALL_REAL(TACT_REGISTER)
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
