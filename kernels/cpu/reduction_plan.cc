#include "kernels/cpu/reduction_plan.h"

#include "kernels/cpu/kernel_util.h"

namespace tact {

StatusOr<ReductionPlan> MakeReductionPlan(const TensorShape& in, const Tensor& axes_tensor, bool keep_dims) {
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                        ReadIntVector(axes_tensor, "reduction_indices"));
  const int rank = in.dims();
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument("reduction axis ", a, " is out of range for input of shape ",
                                     in.DebugString(), " (expected [", -rank, ", ", rank, "))");
    }
    const int d = static_cast<int>(a < 0 ? a + rank : a);
    if (reduced[d]) {
      return errors::InvalidArgument("reduction axis ", a, " is given twice in reduction_indices ",
                                     axes_tensor.DebugString(), " for input of shape ",
                                     in.DebugString());
    }
    reduced[d] = true;
  }
  ReductionPlan plan;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = in.dim_size(d);
    if (!reduced[d]) plan.output_shape.AddDim(size);
    if (reduced[d] && keep_dims) plan.output_shape.AddDim(1);
    if (reduced[d]) plan.reduced_count *= size;
    if (size == 1) continue;
    if (!plan.groups.empty() && plan.groups.back().reduced == reduced[d]) {
      plan.groups.back().size *= size;
    } else {
      plan.groups.push_back({size, reduced[d]});
    }
  }
  return plan;
}

std::optional<ReductionPlan> PlanReductionOrForward(OpKernelContext* ctx, bool keep_dims) {
  const Tensor& in = ctx->input(0);
  StatusOr<ReductionPlan> plan = MakeReductionPlan(in.shape(), ctx->input(1), keep_dims);
  if (!plan.ok()) {
    ctx->CtxFailure(plan.status());
    return std::nullopt;
  }
  bool any_reduced = false;
  for (const auto& g : plan->groups) any_reduced |= g.reduced;
  if (any_reduced || in.NumElements() == 0) return std::move(plan).value();
  StatusOr<Tensor> same = in.Reshaped(plan->output_shape);
  if (same.ok()) {
    ctx->set_output(0, *same);
  } else {
    ctx->CtxFailure(same.status());
  }
  return std::nullopt;
}

}  // namespace tact
