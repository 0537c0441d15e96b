// Range: [start, start + delta, ...) up to but excluding limit. The size
// rule (and its errors) is RangeSize in graph/ops/fill_ops.h, shared with
// the shape function.
#include <type_traits>

#include "graph/ops/fill_ops.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
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
    // Integers in int64, floating types (half and bfloat16 through float) in double.
    using Wide = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
    auto wide = [ctx](int i) { return static_cast<Wide>(ComputeType<T>(ctx->input(i).scalar<T>())); };
    const Wide start = wide(0), limit = wide(1), delta = wide(2);
    StatusOr<int64_t> size = RangeSize(start, limit, delta);
    OP_REQUIRES_OK(ctx, size.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({*size}), &out));
    T* o = out->data<T>();
    // start + i * delta rather than a running sum: float error does not
    // accumulate along the range.
    ParallelFor(ctx, *size, 2, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        o[i] = static_cast<T>(static_cast<ComputeType<T>>(start + static_cast<Wide>(i) * delta));
      }
    });
  }
};

// The types of Range's declaration (graph/ops/fill_ops.cc).
#define TACT_REGISTER_RANGE(T, ...) \
  REGISTER_KERNEL_BUILDER(Name("Range").Device(DEVICE_CPU).TypeConstraint<T>("Tidx"), RangeOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER_RANGE)
TACT_CALL_INT(TACT_REGISTER_RANGE)
TACT_REGISTER_RANGE(int8_t)
TACT_REGISTER_RANGE(int16_t)
#undef TACT_REGISTER_RANGE

}  // namespace
}  // namespace tact
