// Checks that an op's kernels share whatever device they run on: a CPU
// kernel and its GPU twin (kernels/gpu/) read attrs and inputs alike and
// refuse bad ones with the same messages. Host code only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_kernel.h"

namespace tact {

// The data_format attr, which must be NHWC (the channel last); otherwise
// the construction fails naming the device type.
void ReadNhwcFormat(OpKernelConstruction* ctx);

// BiasAdd: `bias` a vector the size of `value`'s last dimension.
Status CheckBiasAdd(const Tensor& value, const Tensor& bias);
// BiasAddGrad: `out_backprop` of rank 1 or more.
Status CheckBiasAddGrad(const Tensor& out_backprop);

// Fill: the output shape from an int vector `dims` and a scalar `value`.
StatusOr<TensorShape> FillShape(const Tensor& dims, const Tensor& value);

// BatchMatMul: each matrix of op(x) is m x k and of op(y) k x n, with
// adj_x/adj_y transposing; InvalidArgument naming both shapes for a rank
// below 2, inner dimensions that differ, or dimensions past 2^31-1 (which
// BLAS, cuBLAS included, cannot take).
struct MatrixProductDims {
  int64_t m = 0, k = 0, n = 0;
};
StatusOr<MatrixProductDims> BatchMatMulDims(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y);
// BatchMatMul's output batch shape: the batch dims (all but the last two)
// of `x` and `y` broadcast as in BatchMatMulV2 (a size-1 dim pairs with
// any size; a missing leading dim counts as 1); InvalidArgument naming both
// shapes when they do not broadcast. Both shapes have rank >= 2.
StatusOr<std::vector<int64_t>> BatchMatMulBatchDims(const TensorShape& x, const TensorShape& y);

}  // namespace tact
