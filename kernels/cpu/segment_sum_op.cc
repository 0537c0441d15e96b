// UnsortedSegmentSum: output[k] = the sum of the rows of data whose
// segment id is k. Every id is checked before any work, so an id at or past
// num_segments fails the step naming its position and value; a negative id
// drops its row, as TensorFlow's does.
//
// ScatterNd is the same sum: each index vector names the output row (of
// the output viewed as [prod(shape[:k]), prod(shape[k:])]) that its slice
// of updates adds to.
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

// dst, `segments` rows of `inner` elements, gets in row k the sum of the
// rows i of src (each `inner` elements) whose ids[i] is k; rows with a
// negative id are dropped. Every id must be below `segments`.
template <typename T>
void SumRowsInto(OpKernelContext* ctx, const T* src, const std::vector<int64_t>& ids,
                 int64_t inner, int64_t segments, T* dst) {
  using A = ComputeType<T>;
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

template <typename T>
class UnsortedSegmentSumOp : public OpKernel {
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
    SumRowsInto(ctx, data.data<T>(), ids, out->NumElements() / segments, segments,
                out->data<T>());
  }
};

template <typename T>
class ScatterNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument("shape must be a vector, got shape ",
                                        shape_t.shape().DebugString()));
    StatusOr<TensorShape> shape = TensorShape::FromDims(ReadIndices(shape_t));
    OP_REQUIRES_OK(ctx, shape.status());
    StatusOr<std::vector<int64_t>> rows = RowsOfIndexVectors(indices, *shape, "shape");
    OP_REQUIRES_OK(ctx, rows.status());
    const int k = static_cast<int>(indices.dim_size(indices.dims() - 1));
    TensorShape want;
    for (int d = 0; d + 1 < indices.dims(); ++d) want.AddDim(indices.dim_size(d));
    int64_t segments = 1, inner = 1;
    for (int d = 0; d < k; ++d) segments *= shape->dim_size(d);
    for (int d = k; d < shape->dims(); ++d) {
      want.AddDim(shape->dim_size(d));
      inner *= shape->dim_size(d);
    }
    OP_REQUIRES(ctx, updates.shape() == want,
                errors::InvalidArgument("updates have shape ", updates.shape().DebugString(),
                                        " but indices ", indices.shape().DebugString(),
                                        " into shape ", shape->DebugString(),
                                        " pick slices of shape ", want.DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    SumRowsInto(ctx, updates.data<T>(), *rows, inner, segments, out->data<T>());
  }
};

#define TACT_REGISTER(T, OP) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnsortedSegmentSumOp<T>);
TACT_CALL_NUMBER(TACT_REGISTER, "UnsortedSegmentSum")
#undef TACT_REGISTER
#define TACT_REGISTER(T, OP) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), ScatterNdOp<T>);
TACT_CALL_NUMBER(TACT_REGISTER, "ScatterNd")
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
