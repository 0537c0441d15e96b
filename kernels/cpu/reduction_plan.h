// What a reduction (Sum, Mean, Max, ...) does to a shape, planned on the
// host for the CPU and the GPU kernels alike: the output shape, and the
// input as alternating runs of reduced and kept dimensions, size-1
// dimensions dropped and adjacent runs merged, so a kernel walks at most a
// few [outer, reduced, inner] passes whatever the rank.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/tensor.h"
#include "kernels/op_kernel.h"

namespace tact {

struct ReductionPlan {
  TensorShape output_shape;
  struct Group {
    int64_t size;
    bool reduced;
  };
  std::vector<Group> groups;  // alternating reduced / kept
  int64_t reduced_count = 1;  // elements combined into each output
};

// `axes_tensor` (int32 or int64, scalar or vector) in [-rank, rank), each
// axis once; InvalidArgument naming the axis and the input's shape
// otherwise.
StatusOr<ReductionPlan> MakeReductionPlan(const TensorShape& in, const Tensor& axes_tensor, bool keep_dims);

// The start of a reduction kernel on any device: the plan for input 0
// reduced over the axes of input 1. Empty when the kernel is done already:
// the plan was refused (the error is set on `ctx`), or only size-1 (or no)
// axes are reduced and the output, set on `ctx`, is the input reshaped.
std::optional<ReductionPlan> PlanReductionOrForward(OpKernelContext* ctx, bool keep_dims);

}  // namespace tact
