// BiasAdd and BiasAddGrad in NHWC (the channel is the last dimension). The
// NCHW layout that TensorFlow graphs may ask for has no CPU kernel here and
// fails with a clear error rather than computing the wrong thing.
#include <algorithm>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/op_checks.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) { ReadNhwcFormat(ctx); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckBiasAdd(value, bias));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    const int64_t c = bias.dim_size(0);
    if (c == 0 || value.NumElements() == 0) return;
    const int64_t rows = value.NumElements() / c;
    const T* v = value.data<T>();
    const T* b = bias.data<T>();
    T* o = out->data<T>();
    ParallelFor(ctx, rows, c, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        for (int64_t j = 0; j < c; ++j) o[r * c + j] = v[r * c + j] + b[j];
      }
    });
  }
};

// Rows are summed in a fixed number of blocks, each on its own, and the
// blocks' sums added in order: the result does not depend on the threads.
constexpr int64_t kBiasGradBlocks = 16;

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { ReadNhwcFormat(ctx); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckBiasAddGrad(g));
    const int64_t c = g.dim_size(g.dims() - 1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({c}), &out));
    T* o = out->data<T>();
    std::fill(o, o + c, T(0));
    if (c == 0 || g.NumElements() == 0) return;
    const int64_t rows = g.NumElements() / c;
    const int64_t blocks = std::min(rows, kBiasGradBlocks);
    const int64_t per_block = (rows + blocks - 1) / blocks;
    std::vector<T> partial(blocks * c, T(0));
    const T* gp = g.data<T>();
    ParallelFor(ctx, blocks, per_block * c, [&](int64_t begin, int64_t end) {
      for (int64_t blk = begin; blk < end; ++blk) {
        T* acc = partial.data() + blk * c;
        const int64_t r_end = std::min(rows, (blk + 1) * per_block);
        for (int64_t r = blk * per_block; r < r_end; ++r) {
          for (int64_t j = 0; j < c; ++j) acc[j] += gp[r * c + j];
        }
      }
    });
    for (int64_t blk = 0; blk < blocks; ++blk) {
      for (int64_t j = 0; j < c; ++j) o[j] += partial[blk * c + j];
    }
  }
};

#define TACT_REGISTER(T)                                                               \
  REGISTER_KERNEL_BUILDER(Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          BiasAddOp<T>);                                               \
  REGISTER_KERNEL_BUILDER(Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BiasAddGradOp<T>)
TACT_REGISTER(float);
TACT_REGISTER(double);
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
