// Small helpers that many CPU kernels share: work split across the
// device's thread pool, axis normalisation, reading shape-like int tensors,
// and float copies of half and bfloat16 tensors. Eigen stays in kernel_util.cc, so including this is cheap.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/op_kernel.h"

namespace tact {

// Runs fn(begin, end) over [0, n) on the device's compute threads, in
// blocks sized from `cost_per_unit` (roughly the cycles one unit costs):
// small work runs inline on the calling thread, so cheap ops pay no
// scheduling. Blocks never overlap; fn must be thread-safe across blocks.
void ParallelFor(OpKernelContext* ctx, int64_t n, int64_t cost_per_unit,
                 const std::function<void(int64_t begin, int64_t end)>& fn);
// Under this much work (n * cost_per_unit, in cycles) ParallelFor runs fn
// inline: a hand-off to another thread costs more than it saves.
inline constexpr int64_t kParallelForMinCost = 100000;

// Maps axis in [-rank, rank) to [0, rank); InvalidArgument naming `what`
// ("axis", "dimension") otherwise.
StatusOr<int> NormalizeAxis(int64_t axis, int rank, const char* what = "axis");

// The elements of an int32 or int64 tensor of rank 0 or 1 as int64s;
// InvalidArgument naming `what` for any other dtype or rank.
StatusOr<std::vector<int64_t>> ReadIntVector(const Tensor& t, const char* what);

// For the products that compute half and bfloat16 in float (MatMul,
// BatchMatMul): calls multiply(a, b, c) on float copies of `a` and `b` (half
// or bfloat16) and a float temp of out's shape, then rounds c into `out`.
Status MultiplyInFloat(OpKernelContext* ctx, const Tensor& a, const Tensor& b, Tensor* out,
                       const std::function<void(const float* a, const float* b, float* c)>& multiply);

}  // namespace tact
