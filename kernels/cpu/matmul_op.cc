// MatMul: OpenBLAS GEMM straight into the output buffer, cut into blocks
// over the device's threads (ParallelGemm), so the kernel costs what BLAS
// costs plus one allocation (`tact bench matmul` measures it beside a direct
// cblas_sgemm on OpenBLAS's own threads). half and bfloat16 multiply in
// float (sgemm on float copies, the result rounded once); complex types go
// to BLAS's cgemm/zgemm; integers to a plain loop that wraps.
#include <climits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/cpu/parallel_gemm.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                errors::InvalidArgument("MatMul needs two matrices (rank 2), got shapes ",
                                        a.shape().DebugString(), " and ",
                                        b.shape().DebugString()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == kb,
                errors::InvalidArgument("MatMul: inner dimensions differ (", k, " vs ", kb,
                                        ") for shapes ", a.shape().DebugString(), " and ",
                                        b.shape().DebugString(), " (transpose_a=", transpose_a_ ? "true" : "false",
                                        ", transpose_b=", transpose_b_ ? "true" : "false", ")"));
    // OpenBLAS here takes 32-bit dimensions.
    OP_REQUIRES(ctx, m <= INT_MAX && n <= INT_MAX && k <= INT_MAX,
                errors::InvalidArgument("MatMul: dimensions of ", a.shape().DebugString(),
                                        " and ", b.shape().DebugString(),
                                        " exceed 2^31-1, which BLAS cannot take"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if constexpr (kIs16BitFloat<T>) {
      OP_REQUIRES_OK(ctx, MultiplyInFloat(ctx, a, b, out, [&](const float* a32, const float* b32,
                                                               float* c32) {
        ParallelGemm<float>(ctx, transpose_a_, transpose_b_, m, n, k, 1.0f, a32, b32, 0.0f, c32);
      }));
    } else {
      ParallelGemm<T>(ctx, transpose_a_, transpose_b_, m, n, k, T(1), a.data<T>(), b.data<T>(),
                      T(0), out->data<T>());
    }
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// The types of MatMul's declaration (graph/ops/matmul_ops.cc), TensorFlow's.
#define TACT_REGISTER_MATMUL(T, ...) \
  REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatMulOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER_MATMUL)
TACT_CALL_INT(TACT_REGISTER_MATMUL)
TACT_CALL_COMPLEX(TACT_REGISTER_MATMUL)
#undef TACT_REGISTER_MATMUL

}  // namespace
}  // namespace tact
