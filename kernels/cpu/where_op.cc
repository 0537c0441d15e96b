// Where: the coordinates of the nonzero elements of its input, int64
// [count, rank], in row-major order. An element counts where it compares
// unequal to zero, so NaN does and -0.0 does not, as in TensorFlow.
#include <vector>

#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class WhereOp : public OpKernel {
  using A = ComputeType<T>;

 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const T* p = x.data<T>();
    const int64_t n = x.NumElements();
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<A>(p[i]) != A(0)) hits.push_back(i);
    }
    const int rank = x.dims();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({static_cast<int64_t>(hits.size()), rank}), &out));
    int64_t* coords = out->data<int64_t>();
    for (size_t h = 0; h < hits.size(); ++h) {
      int64_t flat = hits[h];
      for (int d = rank - 1; d >= 0; --d) {
        coords[h * rank + d] = flat % x.dim_size(d);
        flat /= x.dim_size(d);
      }
    }
  }
};

#define TACT_REGISTER(T, ...) \
  REGISTER_KERNEL_BUILDER(Name("Where").Device(DEVICE_CPU).TypeConstraint<T>("T"), WhereOp<T>);
TACT_CALL_NUMBER(TACT_REGISTER)
TACT_REGISTER(bool)
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
