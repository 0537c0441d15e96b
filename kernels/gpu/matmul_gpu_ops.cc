// MatMul and BatchMatMul on a GPU device: one cuBLAS call each, on the
// device's compute stream (the handle is bound to it).
//
// Precision: float multiplies in strict fp32 (CUBLAS_COMPUTE_32F, no TF32),
// so results agree with the CPU kernel to float rounding; half and bfloat16
// store 16 bits and accumulate in float, as the CPU kernel does.
//
// cuBLAS is column-major. A row-major matrix read column-major is its
// transpose, so the row-major C = op(A) op(B) is computed as the
// column-major C^T = op(B)^T op(A)^T: B first, then A, and no copies.
#include <climits>

#include "kernels/cpu/op_checks.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact::gpu {
namespace {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  bool double_scalars;  // alpha and beta are doubles (else floats)
};

GemmTypes TypesFor(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
    case DT_HALF:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
    case DT_BFLOAT16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
    default:
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F, false};
  }
}

// Row-major out[b] (m x n) = op(a[b]) (m x k) * op(b[b]) (k x n) for
// `batch` matrices, `a` advancing by stride_a elements per batch (0: one
// matrix for all), likewise `b`.
Status Gemm(GpuDevice* device, DataType dtype, bool transpose_a, bool transpose_b, int64_t m, int64_t n,
            int64_t k, const void* a, int64_t stride_a, const void* b, int64_t stride_b, void* out,
            int64_t batch) {
  const GemmTypes t = TypesFor(dtype);
  const float alpha32 = 1, beta32 = 0;
  const double alpha64 = 1, beta64 = 0;
  const void* alpha = t.double_scalars ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta = t.double_scalars ? static_cast<const void*>(&beta64) : &beta32;
  const cublasOperation_t op_b = transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = static_cast<int>(transpose_b ? k : n);
  const int lda = static_cast<int>(transpose_a ? m : k);
  const CublasLibrary& cublas = device->cublas_library();
  cublasStatus_t s;
  if (batch == 1) {
    s = cublas.gemm_ex(device->cublas(), op_b, op_a, static_cast<int>(n), static_cast<int>(m),
                       static_cast<int>(k), alpha, b, t.data, ldb, a, t.data, lda, beta, out, t.data,
                       static_cast<int>(n), t.compute, CUBLAS_GEMM_DEFAULT);
  } else {
    s = cublas.gemm_strided_batched_ex(device->cublas(), op_b, op_a, static_cast<int>(n),
                                       static_cast<int>(m), static_cast<int>(k), alpha, b, t.data, ldb,
                                       stride_b, a, t.data, lda, stride_a, beta, out, t.data,
                                       static_cast<int>(n), m * n, static_cast<int>(batch), t.compute,
                                       CUBLAS_GEMM_DEFAULT);
  }
  if (s != CUBLAS_STATUS_SUCCESS) {
    return errors::Internal("cuBLAS GEMM (", m, "x", k, " by ", k, "x", n, ", batch ", batch,
                            ") failed: ", cublas.status_string(s));
  }
  return Status::OK();
}

class MatMulGpuOp : public OpKernel {
 public:
  explicit MatMulGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                errors::InvalidArgument("MatMul needs two matrices (rank 2), got shapes ",
                                        a.shape().DebugString(), " and ", b.shape().DebugString()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == kb,
                errors::InvalidArgument("MatMul: inner dimensions differ (", k, " vs ", kb, ") for shapes ",
                                        a.shape().DebugString(), " and ", b.shape().DebugString()));
    OP_REQUIRES(ctx, m <= INT_MAX && n <= INT_MAX && k <= INT_MAX,
                errors::InvalidArgument("MatMul: dimensions of ", a.shape().DebugString(), " and ",
                                        b.shape().DebugString(), " exceed cuBLAS's int range"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (m == 0 || n == 0) return;
    if (k == 0) {
      CudaOk(ctx, cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), device->compute_stream()),
             "cudaMemsetAsync");
      return;
    }
    OP_REQUIRES_OK(ctx, Gemm(device, a.dtype(), transpose_a_, transpose_b_, m, n, k, a.raw_data(), 0,
                             b.raw_data(), 0, out->raw_data(), 1));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// The batch dims broadcast as on the CPU (op_checks.h), but each operand's
// must be the output's, or all 1 (that matrix then serves every batch
// element, with stride 0); other broadcasts are Unimplemented on the GPU.
// adj_x/adj_y transpose (the types here are real).
class BatchMatMulGpuOp : public OpKernel {
 public:
  explicit BatchMatMulGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    StatusOr<MatrixProductDims> dims = BatchMatMulDims(x, y, adj_x_, adj_y_);
    OP_REQUIRES_OK(ctx, dims.status());
    const int64_t m = dims->m, k = dims->k, n = dims->n;
    StatusOr<std::vector<int64_t>> batch_dims = BatchMatMulBatchDims(x.shape(), y.shape());
    OP_REQUIRES_OK(ctx, batch_dims.status());
    // An operand's matrices, one per output batch element (a stride of one
    // matrix), or one matrix for them all (stride 0). cuBLAS's strided batch
    // has no other pattern.
    auto stride = [&](const Tensor& t, int64_t matrix) -> int64_t {
      const int r = t.dims() - 2, pad = static_cast<int>(batch_dims->size()) - r;
      bool ones = true, full = true;
      for (int i = 0; i < static_cast<int>(batch_dims->size()); ++i) {
        const int64_t d = i < pad ? 1 : t.dim_size(i - pad);
        ones &= d == 1;
        full &= d == (*batch_dims)[i];
      }
      return full ? matrix : ones ? 0 : -1;
    };
    const int64_t stride_x = stride(x, m * k), stride_y = stride(y, k * n);
    OP_REQUIRES(ctx, stride_x >= 0 && stride_y >= 0,
                errors::Unimplemented("BatchMatMul on a GPU: batch dimensions of ", x.shape().DebugString(),
                                      " and ", y.shape().DebugString(),
                                      " must be equal, or all 1 on one side"));
    std::vector<int64_t> out_dims = *batch_dims;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    const int64_t batch = out->NumElements() / (m * n);
    if (k == 0) {
      CudaOk(ctx, cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), device->compute_stream()),
             "cudaMemsetAsync");
      return;
    }
    OP_REQUIRES_OK(ctx, Gemm(device, x.dtype(), adj_x_, adj_y_, m, n, k, x.raw_data(), stride_x,
                             y.raw_data(), stride_y, out->raw_data(), batch));
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define TACT_REGISTER_GPU_MATMUL(T)                                                              \
  REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_GPU).TypeConstraint<T>("T"), MatMulGpuOp); \
  REGISTER_KERNEL_BUILDER(Name("BatchMatMul").Device(DEVICE_GPU).TypeConstraint<T>("T"), BatchMatMulGpuOp);
TACT_REGISTER_GPU_MATMUL(float)
TACT_REGISTER_GPU_MATMUL(double)
TACT_REGISTER_GPU_MATMUL(half)
TACT_REGISTER_GPU_MATMUL(bfloat16)
#undef TACT_REGISTER_GPU_MATMUL

}  // namespace
}  // namespace tact::gpu
