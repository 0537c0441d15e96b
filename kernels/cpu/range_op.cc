// Range: [start, start + delta, ...) up to but excluding limit. The size
// rule (and its errors) is RangeSize in graph/ops/fill_ops.h, shared with
// the shape function.
#include <type_traits>

#include "graph/ops/fill_ops.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const char* names[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                  errors::InvalidArgument(names[i], " must be a scalar, got shape ",
                                          ctx->input(i).shape().DebugString()));
    }
    const T start = ctx->input(0).scalar<T>();
    const T limit = ctx->input(1).scalar<T>();
    const T delta = ctx->input(2).scalar<T>();
    using Wide = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
    StatusOr<int64_t> size = RangeSize(Wide(start), Wide(limit), Wide(delta));
    OP_REQUIRES_OK(ctx, size.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({*size}), &out));
    T* o = out->data<T>();
    // start + i * delta rather than a running sum: float error does not
    // accumulate along the range.
    ParallelFor(ctx, *size, 2, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        o[i] = static_cast<T>(Wide(start) + static_cast<Wide>(i) * Wide(delta));
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("Range").Device(DEVICE_CPU).TypeConstraint<float>("Tidx"),
                        RangeOp<float>);
REGISTER_KERNEL_BUILDER(Name("Range").Device(DEVICE_CPU).TypeConstraint<double>("Tidx"),
                        RangeOp<double>);
REGISTER_KERNEL_BUILDER(Name("Range").Device(DEVICE_CPU).TypeConstraint<int32_t>("Tidx"),
                        RangeOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("Range").Device(DEVICE_CPU).TypeConstraint<int64_t>("Tidx"),
                        RangeOp<int64_t>);

}  // namespace
}  // namespace tact
