// What Conv2D and its two gradients share: reading the conv attrs, the
// geometry of one convolution, and im2col / col2im, which turn a
// convolution into one GEMM. For image n, im2col writes a matrix
// [out_rows * out_cols, filter_rows * filter_cols * in_depth] whose row
// (oy, ox) holds the input patch that output pixel sees, in the order
// (ky, kx, ci) of an HWIO filter flattened to [KH*KW*Cin, Cout]; padding
// reads as zeros. col2im is its adjoint: it adds each row back onto the
// patch it came from.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph/ops/window_geometry.h"
#include "kernels/op_kernel.h"

namespace tact {

struct ConvAttrs {
  std::vector<int64_t> strides;    // NHWC, batch and depth entries 1
  std::vector<int64_t> dilations;  // NHWC, batch and depth entries 1
  Padding padding = Padding::kValid;
};

// Reads strides, dilations, padding and data_format (which must be NHWC);
// the error names the attr.
Status ReadConvAttrs(OpKernelConstruction* ctx, ConvAttrs* attrs);

// The base of the CPU convolution kernels: reads the conv attrs once, when
// the kernel is built.
class ConvOpKernel : public OpKernel {
 public:
  explicit ConvOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
  }

 protected:
  ConvAttrs attrs_;
};

struct Conv2DDims {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  int64_t pad_rows = 0, pad_cols = 0;  // padding before the first row / column

  int64_t patch_size() const { return filter_rows * filter_cols * in_depth; }  // GEMM k
  int64_t out_pixels() const { return out_rows * out_cols; }                  // rows per image
  // A 1x1 filter with unit strides and no padding: the input already is
  // the im2col matrix, so no copy is needed.
  bool IsPointwise() const {
    return filter_rows == 1 && filter_cols == 1 && stride_rows == 1 && stride_cols == 1 &&
           pad_rows == 0 && pad_cols == 0;
  }
};

// input [N, H, W, Cin] and filter [KH, KW, Cin, Cout] -> the geometry;
// InvalidArgument naming both shapes for a wrong rank or depth, or a
// window that does not fit.
StatusOr<Conv2DDims> ComputeConv2DDims(const TensorShape& input, const TensorShape& filter,
                                       const ConvAttrs& attrs);

// Checks that out_backprop has the shape Conv2D gives for `dims`.
Status CheckOutBackprop(const TensorShape& out_backprop, const Conv2DDims& dims);

// A 4-element int32/int64 sizes vector (input_sizes, filter_sizes) as a shape.
StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes, const char* what);

// What a convolution's gradient op does before it computes. kInput ops
// (Conv2DBackpropInput, DepthwiseConv2dNativeBackpropInput) take
// (input_sizes, filter, out_backprop); kFilter ops take (input,
// filter_sizes, out_backprop). Reads the sizes, computes the geometry,
// checks out_backprop against the forward op's output (out_depth channels;
// in_depth * out_depth for a depthwise filter [KH, KW, C, M], whose
// out_depth is M) and allocates the output, of the sizes' shape.
enum class ConvBackprop { kInput, kFilter };
StatusOr<Conv2DDims> StartConvBackprop(OpKernelContext* ctx, const ConvAttrs& attrs,
                                       ConvBackprop kind, bool depthwise, Tensor** out);

// `image` is one NHWC image [H, W, Cin]; `col` has out_pixels() rows of
// patch_size() elements.
template <typename T>
void Im2Col(const Conv2DDims& d, const T* image, T* col);
// Adds `col` back into `image`, which the caller has zeroed.
template <typename T>
void Col2Im(const Conv2DDims& d, const T* col, T* image);

// How the conv kernels cut a batch for the device's threads: `chunk`
// images share one im2col buffer, small enough to stay in a core's L2
// cache between the im2col that writes it and the GEMM that reads it; runs
// of `chunks_per_group` consecutive chunks form a group, and the threads
// take whole groups. Each thread works on its own images with its own
// buffer and single-threaded BLAS, so nothing waits between im2col and the
// GEMM. The split depends only on the geometry, never on the thread count:
// Conv2DBackpropFilter sums one partial per group, in group order, so its
// bits do not depend on the threads either.
struct ConvBatchSplit {
  int64_t chunk = 1;             // images per im2col buffer
  int64_t chunks_per_group = 1;  // consecutive chunks per group
  int64_t groups = 0;            // ceil(batch / (chunk * chunks_per_group))

  int64_t images_per_group() const { return chunk * chunks_per_group; }
};
ConvBatchSplit SplitConvBatch(const Conv2DDims& d, size_t element_size);

// Runs fn(group, b0, n, col) for every chunk, images [b0, b0 + n), with
// the chunks of one group in order on one thread and the groups spread
// over the device's threads; `col` is scratch of chunk * out_pixels() *
// patch_size() elements that the thread owns while fn runs (it holds
// garbage on entry). Fails only if a scratch buffer cannot be allocated;
// groups that ran have then run completely.
template <typename T>
Status ForEachConvChunk(OpKernelContext* ctx, const Conv2DDims& d, const ConvBatchSplit& split,
                        const std::function<void(int64_t group, int64_t b0, int64_t n, T* col)>& fn);

}  // namespace tact
