// The rows of a Variable that a sparse update picks (Scatter*, SparseApply*):
// checked against the variable before anything is written, then walked so
// that a row picked twice gets both updates in order, on any number of
// threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/locked_slots.h"
#include "kernels/op_kernel.h"

namespace tact {

// The rows of a variable `var` of `var_shape` that `indices` (any shape)
// picks, for an update whose `updates` must have shape indices.shape +
// var_shape[1:]. InvalidArgument naming the variable and the position of
// an index outside [0, var_shape[0]), or the shapes that do not fit.
// `what` names the updates in the error ("updates", "the gradient").
StatusOr<std::vector<int64_t>> PickedRows(const Tensor& indices, const Tensor& updates,
                                          const char* what, const TensorShape& var_shape,
                                          const std::string& var);

// The rows picked in a sparse update of `slots` (kernels/locked_slots.h):
// locks and checks the slots as Acquire does, with PickedRows in place of
// the gradient's shape check, and copies on write on the host. Sets
// `*rows` and `*row_size` (the elements in one row of the variable).
template <int N>
Status AcquireRows(OpKernelContext* ctx, LockedSlots<N>* slots, const std::array<int, N>& ports,
                   const std::array<const char*, N>& names, const Tensor& indices,
                   const Tensor& updates, const char* what, std::vector<int64_t>* rows,
                   int64_t* row_size) {
  auto copy = [ctx](const Tensor& t) -> StatusOr<Tensor> { return t.DeepCopy(ctx->allocator()); };
  return slots->Acquire(ctx, ports, names, copy, [&](const TensorShape& shape) -> Status {
    TACT_ASSIGN_OR_RETURN(*rows, PickedRows(indices, updates, what, shape, slots->var_name()));
    *row_size = shape.dim_size(0) == 0 ? 0 : shape.num_elements() / shape.dim_size(0);
    return Status::OK();
  });
}

// Calls f(v, u) for each element of each picked row: v its offset in the
// variable, u the offset of its update (row r of the updates updates row
// rows[r]; each row holds row_size elements). The work is split by
// columns, never by picked rows: each thread walks every picked row over
// its own columns, so a repeated row's updates land in the order of their
// positions whatever the thread count, and no two threads share an element.
// `cost` is roughly the cycles of one call.
template <typename F>
void ForEachPickedElement(OpKernelContext* ctx, const std::vector<int64_t>& rows,
                          int64_t row_size, int64_t cost, F f) {
  const int64_t n = static_cast<int64_t>(rows.size());
  ParallelFor(ctx, row_size, cost * n, [&](int64_t begin, int64_t end) {
    for (int64_t r = 0; r < n; ++r) {
      const int64_t v = rows[r] * row_size, u = r * row_size;
      for (int64_t j = begin; j < end; ++j) f(v + j, u + j);
    }
  });
}

}  // namespace tact
