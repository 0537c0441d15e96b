// Cumsum: the running sum along one axis, the input viewed as
// [outer, n, inner] around it. Each output element is its own sequential
// sum, in the order of the axis (or the reverse), so the result is the
// same on any number of threads. half and bfloat16 sum in float and round
// each output; integers wrap.
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class CumsumOp : public OpKernel {
  using A = ComputeType<T>;

 public:
  explicit CumsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, ctx->input(1).dims() == 0,
                errors::InvalidArgument("axis must be a scalar, got shape ",
                                        ctx->input(1).shape().DebugString()));
    StatusOr<std::vector<int64_t>> axis_value = ReadIntVector(ctx->input(1), "axis");
    OP_REQUIRES_OK(ctx, axis_value.status());
    StatusOr<int> axis = NormalizeAxis((*axis_value)[0], x.dims());
    OP_REQUIRES_OK(ctx, axis.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (out->NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < *axis; ++d) outer *= x.dim_size(d);
    for (int d = *axis + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
    const int64_t n = x.dim_size(*axis);
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    const bool exclusive = exclusive_, reverse = reverse_;
    ParallelFor(ctx, outer, n * inner * 2, [&](int64_t begin, int64_t end) {
      std::vector<A> acc(inner);
      for (int64_t o = begin; o < end; ++o) {
        std::fill(acc.begin(), acc.end(), A(0));
        for (int64_t step = 0; step < n; ++step) {
          const int64_t i = reverse ? n - 1 - step : step;
          const T* row = src + (o * n + i) * inner;
          T* out_row = dst + (o * n + i) * inner;
          for (int64_t j = 0; j < inner; ++j) {
            const A next = WrappingAdd(acc[j], static_cast<A>(row[j]));
            out_row[j] = static_cast<T>(exclusive ? acc[j] : next);
            acc[j] = next;
          }
        }
      }
    });
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

#define TACT_REGISTER(T, OP) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), CumsumOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER, "Cumsum")
TACT_CALL_INT(TACT_REGISTER, "Cumsum")
TACT_CALL_COMPLEX(TACT_REGISTER, "Cumsum")
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
