// What the pooling kernels share: their attrs and the window geometry of
// one pooling (TensorFlow's output sizes and padding). Windows are clipped
// to the input: padding never contributes a value, so MaxPool never sees
// it and AvgPool divides by the number of in-bounds elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/ops/window_geometry.h"
#include "kernels/op_kernel.h"

namespace tact {

struct PoolAttrs {
  std::vector<int64_t> ksize;    // NHWC, batch and depth entries 1
  std::vector<int64_t> strides;  // NHWC, batch and depth entries 1
  Padding padding = Padding::kValid;
};

// Reads ksize, strides, padding and data_format (which must be NHWC).
Status ReadPoolAttrs(OpKernelConstruction* ctx, PoolAttrs* attrs);

struct PoolDims {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t window_rows = 1, window_cols = 1, stride_rows = 1, stride_cols = 1;
  int64_t out_rows = 0, out_cols = 0, pad_rows = 0, pad_cols = 0;

  TensorShape output_shape() const { return TensorShape({batch, out_rows, out_cols, depth}); }
  // The in-bounds input rows [*begin, *end) of output row `oy` (likewise cols).
  void RowRange(int64_t oy, int64_t* begin, int64_t* end) const {
    const int64_t start = oy * stride_rows - pad_rows;
    *begin = std::max<int64_t>(start, 0);
    *end = std::min<int64_t>(start + window_rows, in_rows);
  }
  void ColRange(int64_t ox, int64_t* begin, int64_t* end) const {
    const int64_t start = ox * stride_cols - pad_cols;
    *begin = std::max<int64_t>(start, 0);
    *end = std::min<int64_t>(start + window_cols, in_cols);
  }
};

// The geometry for an NHWC input; InvalidArgument naming the shape for a
// rank other than 4 or a window that does not fit.
StatusOr<PoolDims> ComputePoolDims(const TensorShape& input, const PoolAttrs& attrs);

}  // namespace tact
