// The gradients of MaxPool and AvgPool. MaxPoolGrad sends each grad element
// to the position of its window's maximum in orig_input, the first one in
// row-major window order on ties (as TensorFlow's CPU kernel does);
// AvgPoolGrad spreads it evenly over the window's in-bounds elements.
// MaxPoolGradGrad, MaxPoolGrad's own gradient, reads grad at that same
// position of each window.
// Windows of one image overlap, so work is split by image, never finer.
#include <algorithm>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/pooling_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

Status CheckPooledShape(const TensorShape& got, const PoolDims& d, const char* what) {
  if (got != d.output_shape()) {
    return errors::InvalidArgument(what, " has shape ", got.DebugString(),
                                   " but the pooling's output is ",
                                   d.output_shape().DebugString());
  }
  return Status::OK();
}

// The kernels that take (orig_input, orig_output, grad): their attrs, and
// the geometry of orig_input with orig_output checked against it.
class MaxPoolRoutingOp : public OpKernel {
 public:
  explicit MaxPoolRoutingOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, &attrs_));
  }

 protected:
  StatusOr<PoolDims> Dims(OpKernelContext* ctx) const {
    TACT_ASSIGN_OR_RETURN(PoolDims d, ComputePoolDims(ctx->input(0).shape(), attrs_));
    TACT_RETURN_IF_ERROR(CheckPooledShape(ctx->input(1).shape(), d, "orig_output"));
    return d;
  }

 private:
  PoolAttrs attrs_;
};

template <typename T>
class MaxPoolGradOp : public MaxPoolRoutingOp {
 public:
  using MaxPoolRoutingOp::MaxPoolRoutingOp;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StatusOr<PoolDims> dims = Dims(ctx);
    OP_REQUIRES_OK(ctx, dims.status());
    const PoolDims& d = *dims;
    OP_REQUIRES_OK(ctx, CheckPooledShape(ctx->input(2).shape(), d, "grad"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->NumElements(), T(0));
    if (ctx->input(2).NumElements() == 0) return;
    const T* in = input.data<T>();
    const T* g = ctx->input(2).data<T>();
    const int64_t depth = d.depth;
    const int64_t image = d.in_rows * d.in_cols * depth;
    const int64_t cost = d.out_rows * d.out_cols * d.window_rows * d.window_cols * depth;
    // Windows that do not overlap (stride >= window, the usual 2x2 / 2)
    // each own their input elements, so the gradient is written, not added.
    const bool disjoint = d.stride_rows >= d.window_rows && d.stride_cols >= d.window_cols;
    ParallelFor(ctx, d.batch, cost, [&](int64_t begin, int64_t end) {
      // Per channel: the largest value so far and its position in the
      // window (row-major). Selects instead of branches and no gather, so
      // the compiler vectorises over channels; a branch per element
      // mispredicted half the time on real activations.
      std::vector<T> best(depth);
      std::vector<int32_t> which(depth);
      for (int64_t n = begin; n < end; ++n) {
        const T* x = in + n * image;
        T* dxn = dx + n * image;
        for (int64_t oy = 0; oy < d.out_rows; ++oy) {
          int64_t y0, y1;
          d.RowRange(oy, &y0, &y1);
          for (int64_t ox = 0; ox < d.out_cols; ++ox) {
            int64_t x0, x1;
            d.ColRange(ox, &x0, &x1);
            const int64_t wcols = x1 - x0;
            const T* first = x + (y0 * d.in_cols + x0) * depth;
            std::copy(first, first + depth, best.begin());
            std::fill(which.begin(), which.end(), 0);
            int32_t w = 0;
            for (int64_t y = y0; y < y1; ++y) {
              for (int64_t xx = x0; xx < x1; ++xx, ++w) {
                if (w == 0) continue;
                const T* src = x + (y * d.in_cols + xx) * depth;
                T* bp = best.data();
                int32_t* wp = which.data();
                for (int64_t c = 0; c < depth; ++c) {
                  const bool gt = src[c] > bp[c];  // strict: ties keep the first maximum
                  bp[c] = gt ? src[c] : bp[c];
                  wp[c] = gt ? w : wp[c];
                }
              }
            }
            const T* gp = g + ((n * d.out_rows + oy) * d.out_cols + ox) * depth;
            if (disjoint) {
              w = 0;
              for (int64_t y = y0; y < y1; ++y) {
                for (int64_t xx = x0; xx < x1; ++xx, ++w) {
                  T* dst = dxn + (y * d.in_cols + xx) * depth;
                  const int32_t* wp = which.data();
                  for (int64_t c = 0; c < depth; ++c) dst[c] = wp[c] == w ? gp[c] : T(0);
                }
              }
            } else {
              for (int64_t c = 0; c < depth; ++c) {
                const int64_t y = y0 + which[c] / wcols, xx = x0 + which[c] % wcols;
                dxn[(y * d.in_cols + xx) * depth + c] += gp[c];
              }
            }
          }
        }
      }
    });
  }

};

template <typename T>
class AvgPoolGradOp : public OpKernel {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    OP_REQUIRES(ctx, sizes.dims() == 1 && sizes.NumElements() == 4,
                errors::InvalidArgument("orig_input_shape must be a vector of 4 elements, got "
                                        "shape ", sizes.shape().DebugString()));
    StatusOr<std::vector<int64_t>> dims_v = ReadIntVector(sizes, "orig_input_shape");
    OP_REQUIRES_OK(ctx, dims_v.status());
    StatusOr<TensorShape> in_shape = TensorShape::FromDims(*dims_v);
    OP_REQUIRES_OK(ctx, in_shape.status());
    StatusOr<PoolDims> dims = ComputePoolDims(*in_shape, attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    const PoolDims& d = *dims;
    OP_REQUIRES_OK(ctx, CheckPooledShape(ctx->input(1).shape(), d, "grad"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *in_shape, &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->NumElements(), T(0));
    if (ctx->input(1).NumElements() == 0) return;
    const T* g = ctx->input(1).data<T>();
    const int64_t depth = d.depth;
    const int64_t image = d.in_rows * d.in_cols * depth;
    const int64_t cost = d.out_rows * d.out_cols * d.window_rows * d.window_cols * depth;
    ParallelFor(ctx, d.batch, cost, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        T* dxn = dx + n * image;
        for (int64_t oy = 0; oy < d.out_rows; ++oy) {
          int64_t y0, y1;
          d.RowRange(oy, &y0, &y1);
          for (int64_t ox = 0; ox < d.out_cols; ++ox) {
            int64_t x0, x1;
            d.ColRange(ox, &x0, &x1);
            const T inv = T(1) / static_cast<T>((y1 - y0) * (x1 - x0));
            const T* gp = g + ((n * d.out_rows + oy) * d.out_cols + ox) * depth;
            for (int64_t y = y0; y < y1; ++y) {
              for (int64_t xx = x0; xx < x1; ++xx) {
                T* dst = dxn + (y * d.in_cols + xx) * depth;
                for (int64_t c = 0; c < depth; ++c) dst[c] += gp[c] * inv;
              }
            }
          }
        }
      }
    });
  }

 private:
  PoolAttrs attrs_;
};

template <typename T>
class MaxPoolGradGradOp : public MaxPoolRoutingOp {
 public:
  using MaxPoolRoutingOp::MaxPoolRoutingOp;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StatusOr<PoolDims> dims = Dims(ctx);
    OP_REQUIRES_OK(ctx, dims.status());
    const PoolDims& d = *dims;
    OP_REQUIRES(ctx, ctx->input(2).shape() == input.shape(),
                errors::InvalidArgument("grad has shape ", ctx->input(2).shape().DebugString(),
                                        " but orig_input has ", input.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, d.output_shape(), &out));
    if (out->NumElements() == 0) return;
    const T* in = input.data<T>();
    const T* g = ctx->input(2).data<T>();
    T* o = out->data<T>();
    const int64_t depth = d.depth;
    const int64_t image = d.in_rows * d.in_cols * depth;
    const int64_t cost = d.out_rows * d.out_cols * d.window_rows * d.window_cols * depth;
    ParallelFor(ctx, d.batch, cost, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        for (int64_t oy = 0; oy < d.out_rows; ++oy) {
          int64_t y0, y1;
          d.RowRange(oy, &y0, &y1);
          for (int64_t ox = 0; ox < d.out_cols; ++ox) {
            int64_t x0, x1;
            d.ColRange(ox, &x0, &x1);
            T* op = o + ((n * d.out_rows + oy) * d.out_cols + ox) * depth;
            for (int64_t c = 0; c < depth; ++c) {
              int64_t best = n * image + (y0 * d.in_cols + x0) * depth + c;
              for (int64_t y = y0; y < y1; ++y) {
                for (int64_t xx = x0; xx < x1; ++xx) {
                  const int64_t at = n * image + (y * d.in_cols + xx) * depth + c;
                  if (in[at] > in[best]) best = at;  // strict: the first maximum, as MaxPoolGrad
                }
              }
              op[c] = g[best];
            }
          }
        }
      }
    });
  }

};

#define TACT_REGISTER(T)                                                                  \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolGradGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          MaxPoolGradGradOp<T>);                                          \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          MaxPoolGradOp<T>);                                              \
  REGISTER_KERNEL_BUILDER(Name("AvgPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          AvgPoolGradOp<T>)
TACT_REGISTER(float);
TACT_REGISTER(double);
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
