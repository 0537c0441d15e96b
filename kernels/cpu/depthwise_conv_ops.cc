// DepthwiseConv2dNative and its two gradients on CPU, as direct loops: each
// input channel meets only its own channel_multiplier (M) filters, so there
// is no GEMM to hand the work to (TensorFlow's CPU kernel loops too). The
// innermost loops run along the channels, contiguous in NHWC and in the
// HWIO filter.
//   forward          one task per output row (image, oy), each output pixel
//                    summed over the window in (ky, kx) order;
//   backprop input   one task per input row, each input pixel gathering the
//                    output pixels whose windows cover it;
//   backprop filter  one task per filter tap (ky, kx), summing over the
//                    batch and the output pixels in order.
// Every element is summed by one task in a fixed order, so the bits do not
// depend on the number of threads.
#include <algorithm>
#include <vector>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// The output pixel index o with o * stride == t, if t is on the stride and
// 0 <= o < size; else -1.
int64_t OnStride(int64_t t, int64_t stride, int64_t size) {
  if (t < 0 || t % stride != 0 || t / stride >= size) return -1;
  return t / stride;
}

// ComputeConv2DDims reads a depthwise filter [KH, KW, C, M] as a Conv2D
// filter with M output channels: in these kernels out_depth is M, and the
// output's depth in_depth * M.

// acc[c * M + m] += x[c] * f[c * M + m] for every channel c and multiplier m.
template <typename T>
void MultiplyAdd(const T* x, const T* f, int64_t channels, int64_t m, T* acc) {
  if (m == 1) {
    for (int64_t c = 0; c < channels; ++c) acc[c] += x[c] * f[c];
    return;
  }
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t j = 0; j < m; ++j) acc[c * m + j] += x[c] * f[c * m + j];
  }
}

// acc[c] += sum over m of g[c * M + m] * f[c * M + m]: an output pixel's
// gradient carried back to its input channels.
template <typename T>
void ChannelDots(const T* g, const T* f, int64_t channels, int64_t m, T* acc) {
  if (m == 1) {
    for (int64_t c = 0; c < channels; ++c) acc[c] += g[c] * f[c];
    return;
  }
  for (int64_t c = 0; c < channels; ++c) {
    T sum(0);
    for (int64_t j = 0; j < m; ++j) sum += g[c * m + j] * f[c * m + j];
    acc[c] += sum;
  }
}

template <typename T>
class DepthwiseConv2dNativeOp : public ConvOpKernel {
 public:
  using ConvOpKernel::ConvOpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    StatusOr<Conv2DDims> dims = ComputeConv2DDims(input.shape(), filter.shape(), attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    const int64_t depth = d.in_depth * d.out_depth;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({d.batch, d.out_rows, d.out_cols, depth}), &out));
    const T* x = input.data<T>();
    const T* f = filter.data<T>();
    T* y = out->data<T>();
    const int64_t cost = d.out_cols * d.filter_rows * d.filter_cols * depth * 2;
    ParallelFor(ctx, d.batch * d.out_rows, cost, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / d.out_rows, oy = row % d.out_rows;
        T* yr = y + row * d.out_cols * depth;
        std::fill(yr, yr + d.out_cols * depth, T(0));
        for (int64_t ox = 0; ox < d.out_cols; ++ox) {
          for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
            const int64_t iy = oy * d.stride_rows - d.pad_rows + ky * d.dilation_rows;
            if (iy < 0 || iy >= d.in_rows) continue;
            for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
              const int64_t ix = ox * d.stride_cols - d.pad_cols + kx * d.dilation_cols;
              if (ix < 0 || ix >= d.in_cols) continue;
              MultiplyAdd(x + ((n * d.in_rows + iy) * d.in_cols + ix) * d.in_depth,
                          f + (ky * d.filter_cols + kx) * depth, d.in_depth, d.out_depth,
                          yr + ox * depth);
            }
          }
        }
      }
    });
  }

};

template <typename T>
class DepthwiseConv2dNativeBackpropInputOp : public ConvOpKernel {
 public:
  using ConvOpKernel::ConvOpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    StatusOr<Conv2DDims> dims = StartConvBackprop(ctx, attrs_, ConvBackprop::kInput, true, &out);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    const int64_t depth = d.in_depth * d.out_depth, channels = d.in_depth, m = d.out_depth;
    const T* f = filter.data<T>();
    const T* g = dy.data<T>();
    T* dx = out->data<T>();
    const int64_t cost = d.in_cols * d.filter_rows * d.filter_cols * depth * 2;
    ParallelFor(ctx, d.batch * d.in_rows, cost, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> ox_of_tap(d.filter_cols);  // the output column each kx meets
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / d.in_rows, iy = row % d.in_rows;
        T* dxr = dx + row * d.in_cols * channels;
        std::fill(dxr, dxr + d.in_cols * channels, T(0));
        for (int64_t ix = 0; ix < d.in_cols; ++ix) {
          for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
            ox_of_tap[kx] =
                OnStride(ix + d.pad_cols - kx * d.dilation_cols, d.stride_cols, d.out_cols);
          }
          for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
            const int64_t oy =
                OnStride(iy + d.pad_rows - ky * d.dilation_rows, d.stride_rows, d.out_rows);
            if (oy < 0) continue;
            for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
              if (ox_of_tap[kx] < 0) continue;
              ChannelDots(g + ((n * d.out_rows + oy) * d.out_cols + ox_of_tap[kx]) * depth,
                          f + (ky * d.filter_cols + kx) * depth, channels, m,
                          dxr + ix * channels);
            }
          }
        }
      }
    });
  }

};

template <typename T>
class DepthwiseConv2dNativeBackpropFilterOp : public ConvOpKernel {
 public:
  using ConvOpKernel::ConvOpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    StatusOr<Conv2DDims> dims = StartConvBackprop(ctx, attrs_, ConvBackprop::kFilter, true, &out);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    const Tensor& input = ctx->input(0);
    const Tensor& dy = ctx->input(2);
    const int64_t depth = d.in_depth * d.out_depth;
    const T* x = input.data<T>();
    const T* g = dy.data<T>();
    T* df = out->data<T>();
    const int64_t cost = d.batch * d.out_rows * d.out_cols * depth * 2;
    ParallelFor(ctx, d.filter_rows * d.filter_cols, cost, [&](int64_t begin, int64_t end) {
      for (int64_t tap = begin; tap < end; ++tap) {
        const int64_t ky = tap / d.filter_cols, kx = tap % d.filter_cols;
        T* acc = df + tap * depth;
        std::fill(acc, acc + depth, T(0));
        for (int64_t n = 0; n < d.batch; ++n) {
          for (int64_t oy = 0; oy < d.out_rows; ++oy) {
            const int64_t iy = oy * d.stride_rows - d.pad_rows + ky * d.dilation_rows;
            if (iy < 0 || iy >= d.in_rows) continue;
            for (int64_t ox = 0; ox < d.out_cols; ++ox) {
              const int64_t ix = ox * d.stride_cols - d.pad_cols + kx * d.dilation_cols;
              if (ix < 0 || ix >= d.in_cols) continue;
              // acc[c * M + m] += x[c] * dy[c * M + m]: MultiplyAdd with dy as the "filter".
              MultiplyAdd(x + ((n * d.in_rows + iy) * d.in_cols + ix) * d.in_depth,
                          g + ((n * d.out_rows + oy) * d.out_cols + ox) * depth, d.in_depth,
                          d.out_depth, acc);
            }
          }
        }
      }
    });
  }

};

// The types of the ops' declarations (graph/ops/nn_ops.cc), Conv2D's.
#define TACT_REGISTER_DEPTHWISE(T)                                                          \
  REGISTER_KERNEL_BUILDER(                                                                  \
      Name("DepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<T>("T"),              \
      DepthwiseConv2dNativeOp<T>);                                                          \
  REGISTER_KERNEL_BUILDER(                                                                  \
      Name("DepthwiseConv2dNativeBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthwiseConv2dNativeBackpropInputOp<T>);                                             \
  REGISTER_KERNEL_BUILDER(                                                                  \
      Name("DepthwiseConv2dNativeBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthwiseConv2dNativeBackpropFilterOp<T>);
TACT_REGISTER_DEPTHWISE(float)
TACT_REGISTER_DEPTHWISE(double)
#undef TACT_REGISTER_DEPTHWISE

}  // namespace
}  // namespace tact
