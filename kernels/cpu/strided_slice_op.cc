// StridedSlice: NumPy basic indexing, x[b0:e0:s0, ..., tf.newaxis, 3]
// (graph/strided_slice_spec.h says how the spec is read): each dimension
// becomes (first, step, count), a strided copy; new and shrunk axes only
// change the output's shape. StridedSliceGrad puts a gradient back where
// the slice took it from, zeros elsewhere.
#include <algorithm>
#include <cstring>

#include "graph/strided_slice_spec.h"
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Where a slice of an input of dims `in_dims` takes its elements from: the
// block's dims, its first element's flat offset and each dim's step, and the
// output's shape. The spec is inputs first..first+2 of `ctx`.
struct SliceGeometry {
  std::vector<int64_t> dims, steps;
  int64_t base = 0;
  TensorShape out_shape;
};

Status Geometry(OpKernelContext* ctx, int first, const std::vector<int64_t>& in_dims, const SliceMasks& masks,
                SliceGeometry* g) {
  const Tensor& b = ctx->input(first);
  if (b.dims() != 1 || ctx->input(first + 1).shape() != b.shape() ||
      ctx->input(first + 2).shape() != b.shape()) {
    return errors::InvalidArgument("begin, end and strides must be vectors of one length, got shapes ",
                                   b.shape().DebugString(), ", ", ctx->input(first + 1).shape().DebugString(),
                                   " and ", ctx->input(first + 2).shape().DebugString());
  }
  std::vector<std::vector<int64_t>> spec;
  for (int i = first; i < first + 3; ++i) {
    TACT_ASSIGN_OR_RETURN(std::vector<int64_t> v, ReadIntVector(ctx->input(i), "slice spec"));
    spec.push_back(std::move(v));
  }
  const int rank = static_cast<int>(in_dims.size());
  std::vector<DenseDim> dense;
  std::vector<int> gather;
  TACT_RETURN_IF_ERROR(BuildDenseSlice(rank, spec[0], spec[1], spec[2], masks, &dense, &gather));
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  g->dims.assign(rank, 0);
  g->steps.assign(rank, 0);
  for (int d = 0; d < rank; ++d) {
    int64_t start = 0;
    TACT_RETURN_IF_ERROR(ResolveSliceDim(dense[d], d, in_dims[d], &start, &g->dims[d]));
    g->base += start * in_strides[d];
    g->steps[d] = (dense[d].shrink ? 1 : dense[d].stride) * in_strides[d];
  }
  for (int gd : gather) {
    if (gd == kNewSliceAxis) g->out_shape.AddDim(1);
    if (gd >= 0) g->out_shape.AddDim(g->dims[gd]);
  }
  return Status::OK();
}

Status ReadMasks(OpKernelConstruction* ctx, SliceMasks* m) {
  TACT_RETURN_IF_ERROR(ctx->GetAttr("begin_mask", &m->begin));
  TACT_RETURN_IF_ERROR(ctx->GetAttr("end_mask", &m->end));
  TACT_RETURN_IF_ERROR(ctx->GetAttr("ellipsis_mask", &m->ellipsis));
  TACT_RETURN_IF_ERROR(ctx->GetAttr("new_axis_mask", &m->new_axis));
  return ctx->GetAttr("shrink_axis_mask", &m->shrink);
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    SliceGeometry g;
    OP_REQUIRES_OK(ctx, Geometry(ctx, 1, in.shape().dim_sizes(), masks_, &g));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.out_shape, &out));
    // The output has the elements of the `dims`-shaped block, in its order.
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, in, g.base, g.dims, g.steps, out));
  }

 private:
  SliceMasks masks_;
};

// StridedSliceGrad(shape, begin, end, strides, dy): zeros of `shape` with
// dy where StridedSlice of that spec took its elements.
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    StatusOr<std::vector<int64_t>> shape = ReadIntVector(ctx->input(0), "shape");
    OP_REQUIRES_OK(ctx, shape.status());
    StatusOr<TensorShape> x_shape = TensorShape::FromDims(*shape);
    OP_REQUIRES_OK(ctx, x_shape.status());
    SliceGeometry g;
    OP_REQUIRES_OK(ctx, Geometry(ctx, 1, *shape, masks_, &g));
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, dy.shape() == g.out_shape,
                errors::InvalidArgument("dy has shape ", dy.shape().DebugString(), " but the slice has ",
                                        g.out_shape.DebugString()));
    Tensor* dx;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *x_shape, &dx));
    const size_t item = DataTypeSize(dy.dtype());
    OP_REQUIRES(ctx, item > 0, errors::Unimplemented("StridedSliceGrad of ", DataTypeString(dy.dtype())));
    std::memset(dx->raw_data(), 0, dx->TotalBytes());
    // Walks the block in order (an odometer over its dims), putting each of
    // dy's elements at its offset in dx.
    const int rank = static_cast<int>(g.dims.size());
    std::vector<int64_t> index(rank, 0);
    int64_t at = g.base;
    const char* src = static_cast<const char*>(dy.raw_data());
    char* dst = static_cast<char*>(dx->raw_data());
    for (int64_t n = 0; n < dy.NumElements(); ++n) {
      std::memcpy(dst + at * static_cast<int64_t>(item), src + n * static_cast<int64_t>(item), item);
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < g.dims[d]) {
          at += g.steps[d];
          break;
        }
        at -= g.steps[d] * (index[d] - 1);
        index[d] = 0;
      }
    }
  }

 private:
  SliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(Name("StridedSlice").Device(DEVICE_CPU), StridedSliceOp);
REGISTER_KERNEL_BUILDER(Name("StridedSliceGrad").Device(DEVICE_CPU), StridedSliceGradOp);

}  // namespace
}  // namespace tact
