// GPU kernels of the broadcasting binary ops (Add, Sub, Mul, Div, Maximum,
// Minimum, SquaredDifference) and the comparisons (Equal, NotEqual, Less,
// LessEqual, Greater, GreaterEqual -> bool), for float, double, half,
// bfloat16 and int64 (Div: floating only; Equal and NotEqual: bool too).
// Semantics: kernels/cpu/cwise_binary_ops.cc and cwise_compare_ops.cc.
//
// The host computes the broadcast with the CPU kernels' BCast and hands its
// folded dimensions and strides to one CUDA kernel.
#include <type_traits>
#include <vector>

#include "kernels/cpu/broadcast.h"
#include "kernels/gpu/cwise_binary_launch.h"
#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// The output shape and folded walk of x op y; InvalidArgument for shapes
// that do not broadcast or fold into more dimensions than the kernel walks.
Status MakeWalk(const Tensor& x, const Tensor& y, TensorShape* out_shape, gpu::BroadcastWalk* w) {
  const BCast bc(x.shape().dim_sizes(), y.shape().dim_sizes());
  if (!bc.IsValid()) {
    return errors::InvalidArgument("incompatible shapes for broadcasting: ",
                                   x.shape().DebugString(), " and ", y.shape().DebugString());
  }
  const std::vector<int64_t>& dims = bc.result_shape();
  if (dims.size() > static_cast<size_t>(gpu::kMaxBroadcastDims)) {
    return errors::InvalidArgument("broadcasting ", x.shape().DebugString(), " and ",
                                   y.shape().DebugString(), " needs ", dims.size(),
                                   " dimensions; the GPU kernel walks at most ",
                                   gpu::kMaxBroadcastDims);
  }
  *out_shape = TensorShape(bc.output_shape());
  w->rank = static_cast<int>(dims.size());
  for (int d = 0; d < w->rank; ++d) {
    w->dims[d] = dims[d];
    w->x_strides[d] = bc.x_strides()[d];
    w->y_strides[d] = bc.y_strides()[d];
  }
  return Status::OK();
}

// Kind is BinaryOpKind, or CompareOpKind for the comparisons (bool output).
template <typename Kind, Kind kOp>
class GpuBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    TensorShape shape;
    gpu::BroadcastWalk walk;
    OP_REQUIRES_OK(ctx, MakeWalk(x, y, &shape, &walk));
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &z));
    const gpu::ElementType type = *gpu::ElementTypeOf(x.dtype());
    cudaError_t err;
    if constexpr (std::is_same_v<Kind, gpu::CompareOpKind>) {
      err = gpu::LaunchCompare(kOp, type, walk, x.raw_data(), y.raw_data(), z->data<bool>(),
                               d->compute_stream());
    } else {
      err = gpu::LaunchBinary(kOp, type, walk, x.raw_data(), y.raw_data(), z->raw_data(),
                              d->compute_stream());
    }
    gpu::CudaOk(ctx, err, type_string().c_str());
  }
};

const std::vector<DataType> kFloatingTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
const std::vector<DataType> kRealTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT64};
const std::vector<DataType> kEqualityTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                              DT_BFLOAT16, DT_INT64, DT_BOOL};

#define TACT_REGISTER_BINARY(OP, KIND, TYPES)                                      \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_GPU).TypeConstraint("T", TYPES), \
                          GpuBinaryOp<gpu::BinaryOpKind, gpu::BinaryOpKind::KIND>)
TACT_REGISTER_BINARY("Add", kAdd, kRealTypes);
TACT_REGISTER_BINARY("Sub", kSub, kRealTypes);
TACT_REGISTER_BINARY("Mul", kMul, kRealTypes);
TACT_REGISTER_BINARY("Div", kDiv, kFloatingTypes);
TACT_REGISTER_BINARY("Maximum", kMaximum, kRealTypes);
TACT_REGISTER_BINARY("Minimum", kMinimum, kRealTypes);
TACT_REGISTER_BINARY("SquaredDifference", kSquaredDifference, kRealTypes);
#undef TACT_REGISTER_BINARY

#define TACT_REGISTER_COMPARE(OP, KIND, TYPES)                                     \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_GPU).TypeConstraint("T", TYPES), \
                          GpuBinaryOp<gpu::CompareOpKind, gpu::CompareOpKind::KIND>)
TACT_REGISTER_COMPARE("Equal", kEqual, kEqualityTypes);
TACT_REGISTER_COMPARE("NotEqual", kNotEqual, kEqualityTypes);
TACT_REGISTER_COMPARE("Less", kLess, kRealTypes);
TACT_REGISTER_COMPARE("LessEqual", kLessEqual, kRealTypes);
TACT_REGISTER_COMPARE("Greater", kGreater, kRealTypes);
TACT_REGISTER_COMPARE("GreaterEqual", kGreaterEqual, kRealTypes);
#undef TACT_REGISTER_COMPARE

}  // namespace
}  // namespace tact
