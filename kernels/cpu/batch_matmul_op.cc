// BatchMatMul: a GEMM per batch element, the batch dims broadcasting as in
// TensorFlow's BatchMatMulV2 (a size-1 dim pairs with any size; a missing
// leading dim counts as 1). adj_x/adj_y take the adjoint: the conjugate
// transpose for complex types. half and bfloat16 multiply in float copies,
// as MatMul does.
#include <algorithm>

#include "kernels/cpu/parallel_gemm.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/cpu/op_checks.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// For each output batch index, the offsets (in matrices) into x and y.
struct BatchPlan {
  std::vector<int64_t> batch_dims;  // broadcast batch shape
  std::vector<int64_t> x_index, y_index;
};

Status PlanBatches(const TensorShape& x, const TensorShape& y, BatchPlan* plan) {
  const int rx = x.dims() - 2, ry = y.dims() - 2;
  const int r = std::max(rx, ry);
  std::vector<int64_t> dx(r, 1), dy(r, 1);
  for (int i = 0; i < rx; ++i) dx[r - rx + i] = x.dim_size(i);
  for (int i = 0; i < ry; ++i) dy[r - ry + i] = y.dim_size(i);
  TACT_ASSIGN_OR_RETURN(plan->batch_dims, BatchMatMulBatchDims(x, y));
  int64_t total = 1;
  for (int64_t d : plan->batch_dims) total *= d;
  plan->x_index.resize(total);
  plan->y_index.resize(total);
  std::vector<int64_t> idx(r, 0);
  for (int64_t b = 0; b < total; ++b) {
    int64_t xi = 0, yi = 0;
    for (int i = 0; i < r; ++i) {
      xi = xi * dx[i] + (dx[i] == 1 ? 0 : idx[i]);
      yi = yi * dy[i] + (dy[i] == 1 ? 0 : idx[i]);
    }
    plan->x_index[b] = xi;
    plan->y_index[b] = yi;
    for (int i = r - 1; i >= 0; --i) {  // odometer increment
      if (++idx[i] < plan->batch_dims[i]) break;
      idx[i] = 0;
    }
  }
  return Status::OK();
}

template <typename T>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    StatusOr<MatrixProductDims> dims = BatchMatMulDims(x, y, adj_x_, adj_y_);
    OP_REQUIRES_OK(ctx, dims.status());
    const int64_t m = dims->m, k = dims->k, n = dims->n;
    BatchPlan plan;
    OP_REQUIRES_OK(ctx, PlanBatches(x.shape(), y.shape(), &plan));
    std::vector<int64_t> out_dims = plan.batch_dims;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if constexpr (kIs16BitFloat<T>) {
      OP_REQUIRES_OK(ctx, MultiplyInFloat(ctx, x, y, out, [&](const float* x32, const float* y32,
                                                               float* out32) {
        Multiply<float>(ctx, plan, m, n, k, x32, y32, out32);
      }));
    } else {
      Multiply<T>(ctx, plan, m, n, k, x.data<T>(), y.data<T>(), out->data<T>());
    }
  }

 private:
  template <typename C>
  void Multiply(OpKernelContext* ctx, const BatchPlan& plan, int64_t m, int64_t n, int64_t k,
                const C* xp, const C* yp, C* op) const {
    // adj_x/adj_y are adjoints: conjugated for complex types.
    BatchedGemm<C>(ctx, adj_x_, adj_y_, m, n, k, xp, plan.x_index, yp, plan.y_index, op,
                   kIsComplex<C>);
  }

  bool adj_x_ = false;
  bool adj_y_ = false;
};

// The types of BatchMatMul's declaration (graph/ops/matmul_ops.cc), TensorFlow's.
#define TACT_REGISTER_BATCH_MATMUL(T, ...)                                              \
  REGISTER_KERNEL_BUILDER(Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BatchMatMulOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER_BATCH_MATMUL)
TACT_CALL_INT(TACT_REGISTER_BATCH_MATMUL)
TACT_CALL_COMPLEX(TACT_REGISTER_BATCH_MATMUL)
#undef TACT_REGISTER_BATCH_MATMUL

}  // namespace
}  // namespace tact
