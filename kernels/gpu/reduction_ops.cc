// GPU kernels of Sum, Mean and Max over a set of axes, for float and
// double, with the CPU kernels' rules (kernels/cpu/reduction_ops.cc): axes
// in [-rank, rank), no axis twice, keep_dims, an empty reduction gives 0
// (Sum), -inf (Max) or NaN (Mean).
//
// The axes must be int32 (Tidx): a GPU device keeps int32 tensors in host
// memory, so the host reads them as the CPU kernel does. An int64 axes
// tensor would be in device memory and reading it would stall the stream;
// a node with int64 axes finds no GPU kernel and stays on the CPU.
//
// As on the CPU, the reduced axes are grouped into runs of adjacent axes
// (size-1 axes dropped) and each run is one [A, K, N] -> [A, N] pass,
// innermost first (reduction_launch.h).
#include <limits>
#include <vector>

#include "kernels/cpu/reduction_plan.h"
#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/fill_launch.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/reduction_launch.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <gpu::ReduceKind kKind, bool kMean>
class GpuReductionOp : public OpKernel {
 public:
  explicit GpuReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& in = ctx->input(0);
    std::optional<ReductionPlan> plan = PlanReductionOrForward(ctx, keep_dims_);
    if (!plan) return;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->output_shape, &out));
    if (out->NumElements() == 0) return;
    const gpu::ElementType type = *gpu::ElementTypeOf(in.dtype());
    if (plan->reduced_count == 0) {
      const double fill = kMean ? std::numeric_limits<double>::quiet_NaN()
                          : kKind == gpu::ReduceKind::kMax ? -std::numeric_limits<double>::infinity()
                                                           : 0.0;
      gpu::CudaOk(ctx, gpu::LaunchFillConstant(type, fill, out->raw_data(), out->NumElements(),
                                               d->compute_stream()),
                  "empty reduction");
      return;
    }
    Reduce(ctx, d, in, out, plan->groups, kMean ? plan->reduced_count : 1);
  }

 private:
  // One [A, K, N] pass per reduced group, innermost first; intermediate
  // results live in temps (freed to the allocator at once: the stream runs
  // every later user of the memory after this pass), the last pass writes
  // `out` and divides by `divisor`.
  void Reduce(OpKernelContext* ctx, gpu::GpuDevice* d, const Tensor& in, Tensor* out,
              std::vector<ReductionPlan::Group> groups, int64_t divisor) {
    const gpu::ElementType type = *gpu::ElementTypeOf(in.dtype());
    Tensor src = in;
    while (true) {
      int r = static_cast<int>(groups.size()) - 1;
      while (r >= 0 && !groups[r].reduced) --r;
      if (r < 0) return;
      int64_t outer = 1, N = 1;
      bool last_pass = true;
      for (int g = 0; g < r; ++g) {
        outer *= groups[g].size;
        last_pass &= !groups[g].reduced;
      }
      for (size_t g = r + 1; g < groups.size(); ++g) N *= groups[g].size;
      const int64_t K = groups[r].size;
      Tensor dst = *out;
      if (!last_pass) {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(in.dtype(), TensorShape({outer * N}), &dst));
      }
      Tensor scratch;
      const int64_t scratch_n = gpu::ReduceScratchElements(outer, K, N);
      if (scratch_n > 0) {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(in.dtype(), TensorShape({scratch_n}), &scratch));
      }
      if (!gpu::CudaOk(ctx,
                       gpu::LaunchReduce(kKind, type, src.raw_data(), dst.raw_data(), outer, K, N,
                                         last_pass ? divisor : 1, scratch.raw_data(),
                                         d->compute_stream()),
                       type_string().c_str())) {
        return;
      }
      // The kept groups either side of r are now adjacent: merge them.
      if (r + 1 < static_cast<int>(groups.size()) && r > 0) {
        groups[r - 1].size *= groups[r + 1].size;
        groups.erase(groups.begin() + r, groups.begin() + r + 2);
      } else {
        groups.erase(groups.begin() + r);
      }
      src = dst;
    }
  }

  bool keep_dims_ = false;
};

const std::vector<DataType> kTypes = {DT_FLOAT, DT_DOUBLE};

#define TACT_REGISTER_REDUCTION(OP, KIND, MEAN)                                              \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_GPU).TypeConstraint("T", kTypes)            \
                              .TypeConstraint<int32_t>("Tidx"),                              \
                          GpuReductionOp<gpu::ReduceKind::KIND, MEAN>)
TACT_REGISTER_REDUCTION("Sum", kSum, false);
TACT_REGISTER_REDUCTION("Mean", kSum, true);
TACT_REGISTER_REDUCTION("Max", kMax, false);
#undef TACT_REGISTER_REDUCTION

}  // namespace
}  // namespace tact
