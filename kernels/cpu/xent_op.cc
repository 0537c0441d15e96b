// SparseSoftmaxCrossEntropyWithLogits: per row, loss = log(sum exp(x)) - x[label]
// and backprop = softmax(x) - onehot(label), computed from the row's
// maximum for stability. Labels are checked before any work, so a bad label
// fails the step and names the row and the value.
// SoftmaxCrossEntropyWithLogits, its dense twin: labels are a distribution
// per row, loss = sum(labels * (log(sum exp(x)) - x)) and backprop =
// softmax(x) - labels.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/softmax_row.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T, typename Label>
class SparseXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, features.dims() == 2,
                errors::InvalidArgument("features must be a matrix [batch, classes], got shape ",
                                        features.shape().DebugString()));
    OP_REQUIRES(ctx, labels.dims() == 1 && labels.dim_size(0) == features.dim_size(0),
                errors::InvalidArgument("labels must be a vector of the batch size, got "
                                        "features ", features.shape().DebugString(),
                                        " and labels ", labels.shape().DebugString()));
    const int64_t batch = features.dim_size(0), classes = features.dim_size(1);
    const Label* l = labels.data<Label>();
    for (int64_t i = 0; i < batch; ++i) {
      OP_REQUIRES(ctx, l[i] >= 0 && l[i] < classes,
                  errors::InvalidArgument("labels[", i, "] = ", static_cast<int64_t>(l[i]),
                                          " is not in [0, ", classes, ")"));
    }
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, features.shape(), &backprop));
    const T* x = features.data<T>();
    T* lo = loss->data<T>();
    T* bp = backprop->data<T>();
    ParallelFor(ctx, batch, classes * 20, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* xr = x + r * classes;
        T* br = bp + r * classes;
        const auto [mx, sum] = ExpShiftedByMax(xr, br, classes);
        const T inv = T(1) / sum;
        for (int64_t j = 0; j < classes; ++j) br[j] *= inv;
        br[l[r]] -= T(1);
        lo[r] = std::log(sum) - (xr[l[r]] - mx);
      }
    });
  }
};

template <typename T>
class XentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, features.dims() == 2 && features.shape() == labels.shape(),
                errors::InvalidArgument("features and labels must be matrices [batch, classes] "
                                        "of one shape, got features ",
                                        features.shape().DebugString(), " and labels ",
                                        labels.shape().DebugString()));
    const int64_t batch = features.dim_size(0), classes = features.dim_size(1);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, features.shape(), &backprop));
    if (classes == 0) {  // a sum over no classes
      std::fill(loss->data<T>(), loss->data<T>() + batch, T(0));
      return;
    }
    const T* x = features.data<T>();
    const T* l = labels.data<T>();
    T* lo = loss->data<T>();
    T* bp = backprop->data<T>();
    ParallelFor(ctx, batch, classes * 25, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* xr = x + r * classes;
        const T* lr = l + r * classes;
        T* br = bp + r * classes;
        const auto [mx, sum] = ExpShiftedByMax(xr, br, classes);
        const T log_sum = std::log(sum), inv = T(1) / sum;
        T total = 0;
        for (int64_t j = 0; j < classes; ++j) {
          total += lr[j] * (log_sum - (xr[j] - mx));
          br[j] = br[j] * inv - lr[j];
        }
        lo[r] = total;
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("SoftmaxCrossEntropyWithLogits").Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"), XentOp<float>);
REGISTER_KERNEL_BUILDER(Name("SoftmaxCrossEntropyWithLogits").Device(DEVICE_CPU)
                            .TypeConstraint<double>("T"), XentOp<double>);

#define TACT_REGISTER(T, L)                                                         \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits")               \
                              .Device(DEVICE_CPU)                                   \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<L>("Tlabels"),                        \
                          SparseXentOp<T, L>)
TACT_REGISTER(float, int32_t);
TACT_REGISTER(float, int64_t);
TACT_REGISTER(double, int32_t);
TACT_REGISTER(double, int64_t);
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
