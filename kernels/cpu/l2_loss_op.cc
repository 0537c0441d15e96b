// L2Loss: sum(t^2) / 2 over every element. As the reductions do
// (reduction_ops.cc), the sum runs in fixed chunks, each over eight lanes,
// and the chunks' sums combine by a fixed pairwise tree, so the result is
// bit-identical for any number of threads. half and bfloat16 sum in float.
#include <algorithm>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

constexpr int64_t kChunk = 4096;  // part of the reproducibility contract: fixed

template <typename T, typename A>
A SumOfSquares(const T* p, int64_t n) {
  A lanes[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int l = 0; l < 8; ++l) {
      const A v = static_cast<A>(p[i + l]);
      lanes[l] += v * v;
    }
  }
  for (int l = 0; i + l < n; ++l) {
    const A v = static_cast<A>(p[i + l]);
    lanes[l] += v * v;
  }
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

template <typename T>
class L2LossOp : public OpKernel {
  using A = ComputeType<T>;

 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    const T* p = t.data<T>();
    const int64_t n = t.NumElements();
    const int64_t chunks = std::max<int64_t>(1, (n + kChunk - 1) / kChunk);
    std::vector<A> sums(chunks);
    ParallelFor(ctx, chunks, kChunk * 2, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t begin = c * kChunk;
        sums[c] = SumOfSquares<T, A>(p + begin, std::min(kChunk, n - begin));
      }
    });
    for (int64_t step = 1; step < chunks; step *= 2) {
      for (int64_t c = 0; c + step < chunks; c += 2 * step) sums[c] += sums[c + step];
    }
    out->data<T>()[0] = static_cast<T>(sums[0] / A(2));
  }
};

#define TACT_REGISTER(T, OP) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), L2LossOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER, "L2Loss")
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
