// Builder functions for indexing by coordinates (TensorFlow's gather_nd,
// scatter_nd and where): an index is a vector of k coordinates into the
// first k dimensions of a tensor, and picks an element (k = rank) or the
// slice of the remaining dimensions. Indices are int32 or int64; every one
// is checked by the kernel, and one out of range fails the step naming its
// position and value.
//
//   auto params = Const(s, Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2}));
//   auto picked = GatherNd(s, params, Tensor::FromVector<int32_t>({1, 0, 0, 1}, {2, 2}));
//   // picked = [3, 2]: params[1][0], params[0][1]
//   auto back = ScatterNd(s, Tensor::FromVector<int32_t>({1, 0, 0, 1}, {2, 2}), picked, {2, 2});
//   // back = [[0, 2], [3, 0]]
//   auto where = Where(s, Greater(s, params, 2.0f));   // int64 [[1, 0], [1, 1]]
#pragma once

#include "graph/op_builder.h"

namespace tact {

// out[i...] = params[indices[i..., :]]: indices' last dimension k (at most
// params' rank) indexes params' first k dimensions. The output's shape is
// indices.shape[:-1] + params.shape[k:]. Any dtype.
Output GatherNd(const Scope& scope, Input params, Input indices);

// A tensor of `shape` (an int vector of the same type as indices), zero but
// where `indices` point: there the `updates` are added, so duplicate
// indices sum. updates.shape = indices.shape[:-1] + shape[k:]. GatherNd's
// gradient, and GatherNd is its. Number types.
Output ScatterNd(const Scope& scope, Input indices, Input updates, Input shape);

// The coordinates of the true (nonzero) elements of `condition`, in
// row-major order: int64 [count, rank]. bool or number types; NaN counts
// as nonzero, -0.0 as zero.
Output Where(const Scope& scope, Input condition);

}  // namespace tact
