// OneHot: output[..., j, ...] = on_value where indices[...] == j, else
// off_value. An index outside [0, depth) gives a row of off_value (as in
// TensorFlow), not an error: it is how "no class" is usually encoded.
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Indices of any of OneHot's index types as int64.
StatusOr<std::vector<int64_t>> ReadIndices(const Tensor& t) {
  std::vector<int64_t> out(t.NumElements());
  switch (t.dtype()) {
    case DT_UINT8:
      for (int64_t i = 0; i < t.NumElements(); ++i) out[i] = t.data<uint8_t>()[i];
      return out;
    case DT_INT32:
      for (int64_t i = 0; i < t.NumElements(); ++i) out[i] = t.data<int32_t>()[i];
      return out;
    case DT_INT64:
      for (int64_t i = 0; i < t.NumElements(); ++i) out[i] = t.data<int64_t>()[i];
      return out;
    default:
      return errors::InvalidArgument("indices must be uint8, int32 or int64, got ",
                                     DataTypeString(t.dtype()));
  }
}

template <typename T>
class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const char* names[] = {"depth", "on_value", "off_value"};
    for (int i = 1; i < 4; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                  errors::InvalidArgument(names[i - 1], " must be a scalar, got shape ",
                                          ctx->input(i).shape().DebugString()));
    }
    const int64_t depth = ctx->input(1).scalar<int32_t>();
    OP_REQUIRES(ctx, depth >= 0,
                errors::InvalidArgument("depth must be non-negative, got ", depth));
    const int rank = indices.dims();
    OP_REQUIRES(ctx, axis_ >= -1 && axis_ <= rank,
                errors::InvalidArgument("axis must be -1 or in [0, ", rank, "] for indices of shape ",
                                        indices.shape().DebugString(), ", got ", axis_));
    const int axis = axis_ == -1 ? rank : static_cast<int>(axis_);
    TensorShape out_shape = indices.shape();
    out_shape.InsertDim(axis, depth);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    StatusOr<std::vector<int64_t>> idx = ReadIndices(indices);
    OP_REQUIRES_OK(ctx, idx.status());
    int64_t prefix = 1, suffix = 1;
    for (int d = 0; d < axis; ++d) prefix *= indices.dim_size(d);
    for (int d = axis; d < rank; ++d) suffix *= indices.dim_size(d);
    const T on = ctx->input(2).scalar<T>();
    const T off = ctx->input(3).scalar<T>();
    T* o = out->data<T>();
    const int64_t* ix = idx->data();
    ParallelFor(ctx, prefix, depth * suffix + suffix, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* slab = o + p * depth * suffix;
        std::fill(slab, slab + depth * suffix, off);
        for (int64_t s = 0; s < suffix; ++s) {
          const int64_t v = ix[p * suffix + s];
          if (v >= 0 && v < depth) slab[v * suffix + s] = on;
        }
      }
    });
  }

 private:
  int64_t axis_ = -1;
};

#define TACT_REGISTER_ONE_HOT(T, ...) \
  REGISTER_KERNEL_BUILDER(Name("OneHot").Device(DEVICE_CPU).TypeConstraint<T>("T"), OneHotOp<T>);
TACT_CALL_ALL(TACT_REGISTER_ONE_HOT)
#undef TACT_REGISTER_ONE_HOT

}  // namespace
}  // namespace tact
