// GPU kernels of the element-wise unary ops and of the activation
// gradients, for float, double, half and bfloat16 (the 16-bit ones in
// float, as on the CPU). Semantics: kernels/cpu/cwise_unary_ops.cc,
// cwise_math_ops.cc and cwise_grad_ops.cc.
#include "kernels/gpu/cwise_unary_launch.h"
#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

const std::vector<DataType> kFloatingTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};

template <gpu::UnaryOpKind kOp>
class GpuUnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    gpu::CudaOk(ctx,
                gpu::LaunchUnary(kOp, *gpu::ElementTypeOf(x.dtype()), x.raw_data(), y->raw_data(),
                                 x.NumElements(), d->compute_stream()),
                type_string().c_str());
  }
};

template <gpu::UnaryGradKind kOp>
class GpuUnaryGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                errors::InvalidArgument("inputs must have the same shape, got ",
                                        a.shape().DebugString(), " and ",
                                        b.shape().DebugString()));
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &z));
    gpu::CudaOk(ctx,
                gpu::LaunchUnaryGrad(kOp, *gpu::ElementTypeOf(a.dtype()), a.raw_data(),
                                     b.raw_data(), z->raw_data(), a.NumElements(),
                                     d->compute_stream()),
                type_string().c_str());
  }
};

#define TACT_REGISTER_UNARY(OP, KIND)                                                  \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_GPU).TypeConstraint("T", kFloatingTypes), \
                          GpuUnaryOp<gpu::UnaryOpKind::KIND>)
TACT_REGISTER_UNARY("Neg", kNeg);
TACT_REGISTER_UNARY("Abs", kAbs);
TACT_REGISTER_UNARY("Square", kSquare);
TACT_REGISTER_UNARY("Sign", kSign);
TACT_REGISTER_UNARY("Exp", kExp);
TACT_REGISTER_UNARY("Log", kLog);
TACT_REGISTER_UNARY("Sqrt", kSqrt);
TACT_REGISTER_UNARY("Rsqrt", kRsqrt);
TACT_REGISTER_UNARY("Tanh", kTanh);
TACT_REGISTER_UNARY("Sigmoid", kSigmoid);
TACT_REGISTER_UNARY("Relu", kRelu);
TACT_REGISTER_UNARY("Relu6", kRelu6);
TACT_REGISTER_UNARY("Elu", kElu);
TACT_REGISTER_UNARY("Softplus", kSoftplus);
TACT_REGISTER_UNARY("Reciprocal", kReciprocal);
TACT_REGISTER_UNARY("Sin", kSin);
TACT_REGISTER_UNARY("Cos", kCos);
TACT_REGISTER_UNARY("Tan", kTan);
TACT_REGISTER_UNARY("Asin", kAsin);
TACT_REGISTER_UNARY("Acos", kAcos);
TACT_REGISTER_UNARY("Atan", kAtan);
TACT_REGISTER_UNARY("Sinh", kSinh);
TACT_REGISTER_UNARY("Cosh", kCosh);
TACT_REGISTER_UNARY("Log1p", kLog1p);
TACT_REGISTER_UNARY("Expm1", kExpm1);
TACT_REGISTER_UNARY("Erf", kErf);
TACT_REGISTER_UNARY("Erfc", kErfc);
TACT_REGISTER_UNARY("Floor", kFloor);
TACT_REGISTER_UNARY("Ceil", kCeil);
TACT_REGISTER_UNARY("Rint", kRint);
TACT_REGISTER_UNARY("Round", kRint);
TACT_REGISTER_UNARY("Softsign", kSoftsign);
TACT_REGISTER_UNARY("Selu", kSelu);
#undef TACT_REGISTER_UNARY

#define TACT_REGISTER_GRAD(OP, KIND)                                                   \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_GPU).TypeConstraint("T", kFloatingTypes), \
                          GpuUnaryGradOp<gpu::UnaryGradKind::KIND>)
TACT_REGISTER_GRAD("ReluGrad", kReluGrad);
TACT_REGISTER_GRAD("Relu6Grad", kRelu6Grad);
TACT_REGISTER_GRAD("EluGrad", kEluGrad);
TACT_REGISTER_GRAD("SoftplusGrad", kSoftplusGrad);
TACT_REGISTER_GRAD("SigmoidGrad", kSigmoidGrad);
TACT_REGISTER_GRAD("TanhGrad", kTanhGrad);
TACT_REGISTER_GRAD("RsqrtGrad", kRsqrtGrad);
TACT_REGISTER_GRAD("SqrtGrad", kSqrtGrad);
#undef TACT_REGISTER_GRAD

}  // namespace
}  // namespace tact
