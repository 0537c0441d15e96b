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

// `image` is one NHWC image [H, W, Cin]; `col` has out_pixels() rows of
// patch_size() elements.
template <typename T>
void Im2Col(const Conv2DDims& d, const T* image, T* col);
// Adds `col` back into `image`, which the caller has zeroed.
template <typename T>
void Col2Im(const Conv2DDims& d, const T* col, T* image);

// How many images one GEMM takes: about a 4 MiB im2col buffer (so it is
// still in cache when read back), at least 1024 GEMM rows and one image,
// at most the batch. It depends only on the geometry, so results do not depend
// on the thread count.
int64_t ImagesPerChunk(const Conv2DDims& d, size_t element_size);

// The step Conv2D and Conv2DBackpropFilter both take before their GEMM:
// im2col of the batch `input` [N, H, W, Cin], chunk by chunk of
// ImagesPerChunk images, each chunk spread over the device's threads; then
// fn(b0, n, col) with the im2col matrix of images [b0, b0 + n). Fails only
// if the scratch buffer cannot be allocated.
template <typename T>
Status ForEachIm2ColChunk(OpKernelContext* ctx, const Conv2DDims& d, const T* input,
                          const std::function<void(int64_t b0, int64_t n, const T* col)>& fn);

}  // namespace tact
