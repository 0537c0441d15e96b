// The slice spec of StridedSlice (NumPy basic indexing in TensorFlow's
// encoding), shared by its kernel, its gradient's kernel and its shape
// function. Bit i of
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
// spec); then each dimension becomes (first index, element count).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/status.h"

namespace tact {

struct SliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

// One entry per input dimension.
struct DenseDim {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_masked = false, end_masked = false, shrink = false;
};

// In `gather`: an output dimension that is new (size 1), or none (a shrunk
// dimension); any other entry is the dense dimension it comes from.
constexpr int kNewSliceAxis = -1;
constexpr int kShrinkSliceAxis = -2;

// Expands the spec to `rank` dims.
Status BuildDenseSlice(int rank, std::vector<int64_t> begin, std::vector<int64_t> end,
                       std::vector<int64_t> strides, SliceMasks m, std::vector<DenseDim>* dense,
                       std::vector<int>* gather);

// Turns dimension `index` (of size `dim`) into its first index and element
// count.
Status ResolveSliceDim(const DenseDim& d, int index, int64_t dim, int64_t* first, int64_t* size);

}  // namespace tact
