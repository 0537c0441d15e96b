#define EIGEN_USE_THREADS
#include "kernels/cpu/kernel_util.h"

#include <unsupported/Eigen/CXX11/Tensor>

namespace tact {

void ParallelFor(OpKernelContext* ctx, int64_t n, int64_t cost_per_unit,
                 const std::function<void(int64_t begin, int64_t end)>& fn) {
  if (n <= 0) return;
  Eigen::ThreadPoolDevice* d = ctx->eigen_cpu_device();
  if (d == nullptr || d->numThreads() <= 1 || n * cost_per_unit < kParallelForMinCost) {
    fn(0, n);
    return;
  }
  d->parallelFor(n, Eigen::TensorOpCost(0, 0, static_cast<double>(cost_per_unit)),
                 [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
}

StatusOr<int> NormalizeAxis(int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank || (rank == 0)) {
    return errors::InvalidArgument(what, " ", axis, " is out of range for a tensor of rank ", rank,
                                   " (expected [", -rank, ", ", rank, "))");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

StatusOr<std::vector<int64_t>> ReadIntVector(const Tensor& t, const char* what) {
  if (t.dims() > 1) {
    return errors::InvalidArgument(what, " must be a scalar or vector, got shape ",
                                   t.shape().DebugString());
  }
  std::vector<int64_t> out(t.NumElements());
  if (t.dtype() == DT_INT32) {
    for (int64_t i = 0; i < t.NumElements(); ++i) out[i] = t.data<int32_t>()[i];
  } else if (t.dtype() == DT_INT64) {
    for (int64_t i = 0; i < t.NumElements(); ++i) out[i] = t.data<int64_t>()[i];
  } else {
    return errors::InvalidArgument(what, " must be int32 or int64, got ", DataTypeString(t.dtype()));
  }
  return out;
}

namespace {
template <typename From, typename To>
void Convert(OpKernelContext* ctx, const From* in, To* out, int64_t n) {
  ParallelFor(ctx, n, 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = static_cast<To>(in[i]);
  });
}

StatusOr<Tensor> WidenToFloat(OpKernelContext* ctx, const Tensor& t) {
  Tensor f;
  TACT_RETURN_IF_ERROR(ctx->allocate_temp(DT_FLOAT, t.shape(), &f));
  if (t.dtype() == DT_HALF) {
    Convert(ctx, t.data<half>(), f.data<float>(), t.NumElements());
  } else if (t.dtype() == DT_BFLOAT16) {
    Convert(ctx, t.data<bfloat16>(), f.data<float>(), t.NumElements());
  } else {
    return errors::Internal("MultiplyInFloat takes half or bfloat16, got ",
                            DataTypeString(t.dtype()));
  }
  return f;
}
}  // namespace

Status MultiplyInFloat(OpKernelContext* ctx, const Tensor& a, const Tensor& b, Tensor* out,
                       const std::function<void(const float* a, const float* b, float* c)>& multiply) {
  TACT_ASSIGN_OR_RETURN(Tensor a32, WidenToFloat(ctx, a));
  TACT_ASSIGN_OR_RETURN(Tensor b32, WidenToFloat(ctx, b));
  Tensor c32;
  TACT_RETURN_IF_ERROR(ctx->allocate_temp(DT_FLOAT, out->shape(), &c32));
  multiply(a32.data<float>(), b32.data<float>(), c32.data<float>());
  const float* c = c32.data<float>();
  if (out->dtype() == DT_HALF) {
    Convert(ctx, c, out->data<half>(), out->NumElements());
  } else {
    Convert(ctx, c, out->data<bfloat16>(), out->NumElements());
  }
  return Status::OK();
}

}  // namespace tact
