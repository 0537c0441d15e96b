// StridedSlice: NumPy basic indexing, x[b0:e0:s0, ..., tf.newaxis, 3], with
// TensorFlow's encoding: begin/end/strides vectors plus five bit masks over
// their entries. Bit i of
//   begin_mask / end_mask   ignores begin[i] / end[i]: the full range.
//   ellipsis_mask           makes entry i "...": as many full dimensions as
//                           the other entries leave (at most one such bit).
//   new_axis_mask           makes entry i a new dimension of size 1.
//   shrink_axis_mask        makes entry i a plain index: that dimension is
//                           taken at begin[i] and removed.
// A spec without an ellipsis has one implied at its end. Negative indices
// count from the end; out-of-range ones clamp, except a shrink index, which
// must exist. For a shrink entry the stride is ignored.
//
// The spec is first expanded to one entry per input dimension (the "dense"
// spec), then each dimension becomes (begin, step, size), which is a
// strided copy; new and shrunk axes only change the output's shape.
#include <algorithm>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

// One entry per input dimension.
struct DenseDim {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_masked = false, end_masked = false, shrink = false;
};

constexpr int kNewAxis = -1;
constexpr int kShrinkAxis = -2;

bool Bit(int64_t mask, int i) { return i < 63 && ((mask >> i) & 1) != 0; }

// Expands the spec to `rank` dims. `gather` lists, for each output dim
// source: a dense dim, kNewAxis or kShrinkAxis (which yields none).
Status BuildDense(int rank, std::vector<int64_t> begin, std::vector<int64_t> end,
                  std::vector<int64_t> strides, Masks m, std::vector<DenseDim>* dense,
                  std::vector<int>* gather) {
  int n = static_cast<int>(begin.size());
  int ellipsis_at = -1;
  for (int i = 0; i < n; ++i) {
    if (!Bit(m.ellipsis, i)) continue;
    if (ellipsis_at >= 0) {
      return errors::InvalidArgument("ellipsis_mask ", m.ellipsis,
                                     " has more than one bit set: multiple ellipses");
    }
    ellipsis_at = i;
  }
  if (ellipsis_at < 0) {  // the implied "..." at the end
    begin.push_back(0);
    end.push_back(0);
    strides.push_back(1);
    ellipsis_at = n++;
    m.ellipsis = int64_t{1} << ellipsis_at;
  }
  int new_axes_after = 0;
  for (int i = ellipsis_at + 1; i < n; ++i) new_axes_after += Bit(m.new_axis, i) ? 1 : 0;
  dense->assign(rank, DenseDim());
  int full = 0;
  for (int i = 0; i < n; ++i) {
    if (i == ellipsis_at) {
      const int next = std::min(rank, rank - (n - i) + 1 + new_axes_after);
      for (; full < next; ++full) {
        (*dense)[full].begin_masked = (*dense)[full].end_masked = true;
        gather->push_back(full);
      }
    } else if (Bit(m.new_axis, i)) {
      gather->push_back(kNewAxis);
    } else {
      if (full == rank) {
        return errors::InvalidArgument("the slice spec indexes more dimensions than the input's ",
                                       rank);
      }
      DenseDim& d = (*dense)[full];
      d.begin = begin[i];
      d.end = end[i];
      d.stride = strides[i];
      d.begin_masked = Bit(m.begin, i);
      d.end_masked = Bit(m.end, i);
      d.shrink = Bit(m.shrink, i);
      gather->push_back(d.shrink ? kShrinkAxis : full);
      ++full;
    }
  }
  return Status::OK();
}

// Turns dimension `d` of size `dim` into its first index and element count.
Status ResolveDim(const DenseDim& d, int index, int64_t dim, int64_t* first, int64_t* size) {
  if (d.stride == 0) return errors::InvalidArgument("stride of dimension ", index, " is 0");
  if (d.shrink) {
    const int64_t x = d.begin < 0 ? dim + d.begin : d.begin;
    if (x < 0 || x >= dim) {
      return errors::InvalidArgument("index ", d.begin, " is out of bounds for dimension ", index,
                                     " of size ", dim);
    }
    *first = x;
    *size = 1;
    return Status::OK();
  }
  // Stepping forward an index lies in [0, dim]; backward in [-1, dim - 1]
  // (-1 as an end means "past the first element", not "the last one").
  const bool fwd = d.stride > 0;
  const int64_t lo = fwd ? 0 : -1, hi = fwd ? dim : dim - 1;
  auto canonical = [&](int64_t x, bool masked, bool is_begin) {
    if (masked) return (is_begin == fwd) ? lo : hi;
    const int64_t x_fwd = x < 0 ? dim + x : x;
    return std::clamp(x_fwd, lo, hi);
  };
  const int64_t b = canonical(d.begin, d.begin_masked, true);
  const int64_t e = canonical(d.end, d.end_masked, false);
  const int64_t interval = e - b;
  *first = b;
  if (interval == 0 || (interval < 0) != (d.stride < 0)) {
    *size = 0;
  } else {
    *size = interval / d.stride + (interval % d.stride != 0 ? 1 : 0);
  }
  return Status::OK();
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("begin_mask", &masks_.begin));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("end_mask", &masks_.end));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ellipsis_mask", &masks_.ellipsis));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("new_axis_mask", &masks_.new_axis));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shrink_axis_mask", &masks_.shrink));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, b.dims() == 1 && ctx->input(2).shape() == b.shape() &&
                         ctx->input(3).shape() == b.shape(),
                errors::InvalidArgument("begin, end and strides must be vectors of one length, "
                                        "got shapes ", b.shape().DebugString(), ", ",
                                        ctx->input(2).shape().DebugString(), " and ",
                                        ctx->input(3).shape().DebugString()));
    std::vector<std::vector<int64_t>> spec;
    for (int i = 1; i <= 3; ++i) {
      StatusOr<std::vector<int64_t>> v = ReadIntVector(ctx->input(i), "slice spec");
      OP_REQUIRES_OK(ctx, v.status());
      spec.push_back(std::move(v).value());
    }
    const int rank = in.dims();
    std::vector<DenseDim> dense;
    std::vector<int> gather;
    OP_REQUIRES_OK(ctx, BuildDense(rank, spec[0], spec[1], spec[2], masks_, &dense, &gather));
    const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dim_sizes());
    std::vector<int64_t> dims(rank), steps(rank);
    int64_t base = 0;
    for (int d = 0; d < rank; ++d) {
      int64_t first = 0;
      OP_REQUIRES_OK(ctx, ResolveDim(dense[d], d, in.dim_size(d), &first, &dims[d]));
      base += first * in_strides[d];
      steps[d] = (dense[d].shrink ? 1 : dense[d].stride) * in_strides[d];
    }
    TensorShape out_shape;
    for (int g : gather) {
      if (g == kNewAxis) out_shape.AddDim(1);
      if (g >= 0) out_shape.AddDim(dims[g]);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    // The output has the elements of the `dims`-shaped block, in its order.
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, in, base, dims, steps, out));
  }

 private:
  Masks masks_;
};

REGISTER_KERNEL_BUILDER(Name("StridedSlice").Device(DEVICE_CPU), StridedSliceOp);

}  // namespace
}  // namespace tact
