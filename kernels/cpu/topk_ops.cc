// TopKV2: the k largest entries of each row (the last dimension), largest
// first, the lower index first among equal values (a stable order, so the
// result does not depend on the sort's whims). NaN counts as larger than
// every number (as in PyTorch's topk), so that it shows at the top rather
// than leaving the order undefined.
// InTopKV2: whether each row's target is among its k largest.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// a before b in TopK's order.
template <typename A>
bool Before(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
  }
  return a > b;
}

template <typename T>
class TopKOp : public OpKernel {
  using A = ComputeType<T>;

 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& k_t = ctx->input(1);
    OP_REQUIRES(ctx, k_t.dims() == 0,
                errors::InvalidArgument("k must be a scalar, got shape ", k_t.shape().DebugString()));
    OP_REQUIRES(ctx, in.dims() >= 1,
                errors::InvalidArgument("input must have at least one dimension, got shape []"));
    const int64_t k = k_t.data<int32_t>()[0];
    const int64_t n = in.dim_size(in.dims() - 1);
    OP_REQUIRES(ctx, k >= 0 && k <= n,
                errors::InvalidArgument("k = ", k, " is not in [0, ", n,
                                        "], the last dimension of input ",
                                        in.shape().DebugString()));
    TensorShape out_shape = in.shape();
    std::vector<int64_t> dims = out_shape.dim_sizes();
    dims.back() = k;
    out_shape = TensorShape(dims);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &indices));
    if (values->NumElements() == 0) return;
    const int64_t rows = in.NumElements() / n;
    const T* src = in.data<T>();
    T* v = values->data<T>();
    int32_t* ix = indices->data<int32_t>();
    ParallelFor(ctx, rows, n * 8, [&](int64_t begin, int64_t end) {
      std::vector<int32_t> order(n);
      for (int64_t r = begin; r < end; ++r) {
        const T* row = src + r * n;
        std::iota(order.begin(), order.end(), 0);
        auto first = [row](int32_t a, int32_t b) {
          const A x = static_cast<A>(row[a]), y = static_cast<A>(row[b]);
          if (Before(x, y)) return true;
          if (Before(y, x)) return false;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), first);
        for (int64_t j = 0; j < k; ++j) {
          v[r * k + j] = row[order[j]];
          ix[r * k + j] = order[j];
        }
      }
    });
  }
};

template <typename Index>
class InTopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& predictions = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    const Tensor& k_t = ctx->input(2);
    OP_REQUIRES(ctx, predictions.dims() == 2,
                errors::InvalidArgument("predictions must be a matrix [batch, classes], got shape ",
                                        predictions.shape().DebugString()));
    OP_REQUIRES(ctx, targets.dims() == 1 && targets.dim_size(0) == predictions.dim_size(0),
                errors::InvalidArgument("targets must be a vector of the batch size, got "
                                        "predictions ", predictions.shape().DebugString(),
                                        " and targets ", targets.shape().DebugString()));
    OP_REQUIRES(ctx, k_t.dims() == 0,
                errors::InvalidArgument("k must be a scalar, got shape ", k_t.shape().DebugString()));
    const int64_t k = k_t.data<Index>()[0];
    const int64_t batch = predictions.dim_size(0), classes = predictions.dim_size(1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &out));
    const float* p = predictions.data<float>();
    const Index* t = targets.data<Index>();
    bool* o = out->data<bool>();
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = p + b * classes;
      const int64_t target = t[b];
      // Unanswerable (false): a target outside the row, or a non-finite
      // prediction anywhere in it.
      bool known = target >= 0 && target < classes && std::isfinite(row[target]);
      int64_t larger = 0;
      for (int64_t c = 0; known && c < classes; ++c) {
        known = std::isfinite(row[c]);
        if (row[c] > row[target]) ++larger;
      }
      o[b] = known && larger < k;
    }
  }
};

#define TACT_REGISTER(T, OP) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), TopKOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER, "TopKV2")
TACT_CALL_INT(TACT_REGISTER, "TopKV2")
TACT_CALL_SMALL_INT(TACT_REGISTER, "TopKV2")
#undef TACT_REGISTER
REGISTER_KERNEL_BUILDER(Name("InTopKV2").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
                        InTopKOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("InTopKV2").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
                        InTopKOp<int64_t>);

}  // namespace
}  // namespace tact
