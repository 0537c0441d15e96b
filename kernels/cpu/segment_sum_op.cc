// UnsortedSegmentSum: output[k] = the sum of the rows of data whose
// segment id is k. Every id is checked before any work, so an id at or past
// num_segments fails the step naming its position and value; a negative id
// drops its row, as TensorFlow's does.
//
// The output's rows are split among the threads and each thread walks every
// id, adding only the rows it owns: a row's terms always add in the order
// of their positions, so the result is the same on any number of threads.
// half and bfloat16 add in float and round once; integers wrap.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class UnsortedSegmentSumOp : public OpKernel {
  using A = ComputeType<T>;

 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    StatusOr<std::vector<int64_t>> n = ReadIntVector(ctx->input(2), "num_segments");
    OP_REQUIRES_OK(ctx, n.status());
    OP_REQUIRES(ctx, ctx->input(2).dims() == 0 && (*n)[0] >= 0,
                errors::InvalidArgument("num_segments must be a scalar >= 0, got ",
                                        ctx->input(2).DebugString()));
    const int64_t segments = (*n)[0];
    bool prefix = data.dims() >= ids_t.dims();
    for (int d = 0; prefix && d < ids_t.dims(); ++d) {
      prefix = data.dim_size(d) == ids_t.dim_size(d);
    }
    OP_REQUIRES(ctx, prefix,
                errors::InvalidArgument("data's shape ", data.shape().DebugString(),
                                        " must begin with segment_ids' shape ",
                                        ids_t.shape().DebugString()));
    const std::vector<int64_t> ids = ReadIndices(ids_t);
    for (size_t i = 0; i < ids.size(); ++i) {
      OP_REQUIRES(ctx, ids[i] < segments,
                  errors::InvalidArgument("segment_ids", PositionString(i, ids_t.shape()), " = ",
                                          ids[i], " is not in [0, ", segments, ")"));
    }
    TensorShape out_shape({segments});
    for (int d = ids_t.dims(); d < data.dims(); ++d) out_shape.AddDim(data.dim_size(d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t inner = out->NumElements() / segments;
    const T* src = data.data<T>();
    T* dst = out->data<T>();
    const int64_t rows = static_cast<int64_t>(ids.size());
    // Each unit is one output row: zeroing it, and its share of the walk.
    const int64_t cost = inner + (rows * (inner + 1)) / segments + 1;
    ParallelFor(ctx, segments, cost, [&](int64_t begin, int64_t end) {
      // The sums build in the output itself, but for the 16-bit types.
      std::vector<A> temp;
      A* acc = nullptr;
      if constexpr (std::is_same_v<A, T>) {
        acc = dst + begin * inner;
      } else {
        temp.resize((end - begin) * inner);
        acc = temp.data();
      }
      std::fill(acc, acc + (end - begin) * inner, A(0));
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t k = ids[i];
        if (k < begin || k >= end) continue;  // another thread's, or dropped
        A* a = acc + (k - begin) * inner;
        const T* row = src + i * inner;
        for (int64_t j = 0; j < inner; ++j) a[j] = WrappingAdd(a[j], static_cast<A>(row[j]));
      }
      if constexpr (!std::is_same_v<A, T>) {
        std::transform(temp.begin(), temp.end(), dst + begin * inner,
                       [](A v) { return static_cast<T>(v); });
      }
    });
  }
};

#define TACT_REGISTER(T, OP) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnsortedSegmentSumOp<T>);
TACT_CALL_NUMBER(TACT_REGISTER, "UnsortedSegmentSum")
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
