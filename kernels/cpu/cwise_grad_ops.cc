// Kernels that gradient graphs use (paper 4.1): the derivatives of the
// activations and of Sqrt/Rsqrt, in TensorFlow's argument order, and
// BroadcastGradientArgs, which tells the gradient of a broadcasting op which
// axes to sum over.
#include <cmath>

#include "kernels/cpu/cwise_ops_common.h"

namespace tact {
namespace {

using cwise::SameShapeBinaryOp;

// (gradients, features) -> gradients where features > 0.
struct ReluGradF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T g, T f) { return f > T(0) ? g : T(0); }
};

struct Relu6GradF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T g, T f) { return (f > T(0) && f < T(6)) ? g : T(0); }
};

// (gradients, outputs): d/dx expm1(x) = e^x = outputs + 1 where x < 0.
struct EluGradF {
  static constexpr int64_t kCost = 2;
  template <typename T>
  static T Apply(T g, T y) { return y < T(0) ? g * (y + T(1)) : g; }
};

// (gradients, features): d/dx softplus(x) = sigmoid(x).
struct SoftplusGradF {
  static constexpr int64_t kCost = 25;
  template <typename T>
  static T Apply(T g, T f) { return g / (T(1) + std::exp(-f)); }
};

// The (y, dy) ops take the forward op's output y; for complex the
// derivative is conjugated, as in TensorFlow.
struct SigmoidGradF {
  static constexpr int64_t kCost = 3;
  template <typename T>
  static T Apply(T y, T dy) { return dy * Conj(y * (T(1) - y)); }
};

struct TanhGradF {
  static constexpr int64_t kCost = 3;
  template <typename T>
  static T Apply(T y, T dy) { return dy * Conj(T(1) - y * y); }
};

// y = x^-1/2: dy/dx = -x^-3/2 / 2 = -y^3 / 2.
struct RsqrtGradF {
  static constexpr int64_t kCost = 4;
  template <typename T>
  static T Apply(T y, T dy) { return dy * Conj(T(-0.5) * y * y * y); }
};

// y = x^1/2: dy/dx = 1 / (2y).
struct SqrtGradF {
  static constexpr int64_t kCost = 5;
  template <typename T>
  static T Apply(T y, T dy) { return dy * T(0.5) / Conj(y); }
};

template <typename T>
void SetVector(OpKernelContext* ctx, int port, const std::vector<int64_t>& v) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(port, TensorShape({static_cast<int64_t>(v.size())}), &out));
  for (size_t i = 0; i < v.size(); ++i) out->data<T>()[i] = static_cast<T>(v[i]);
}

// (s0, s1) -> (r0, r1): the axes over which to sum the gradient of a
// broadcast result to get the gradients of inputs of shapes s0 and s1.
template <typename T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, s.dims() == 1,
                  errors::InvalidArgument("input s", i, " must be a vector, got shape ",
                                          s.shape().DebugString()));
      for (int64_t j = 0; j < s.NumElements(); ++j) {
        const T d = s.data<T>()[j];
        OP_REQUIRES(ctx, d >= 0,
                    errors::InvalidArgument("input s", i, " has a negative dimension ", d));
        shapes[i].push_back(d);
      }
    }
    const BCast bc(shapes[0], shapes[1]);
    OP_REQUIRES(ctx, bc.IsValid(),
                errors::InvalidArgument("incompatible shapes for broadcasting: ",
                                        BCast::ShapeString(shapes[0]), " and ",
                                        BCast::ShapeString(shapes[1])));
    SetVector<T>(ctx, 0, bc.grad_x_reduce_idx());
    SetVector<T>(ctx, 1, bc.grad_y_reduce_idx());
  }
  bool IsExpensive() const override { return false; }
};

#define TACT_REGISTER_GRAD(T, OP, F)                                              \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          SameShapeBinaryOp<T, F>);

TACT_CALL_FLOATING(TACT_REGISTER_GRAD, "ReluGrad", ReluGradF)
TACT_CALL_FLOATING(TACT_REGISTER_GRAD, "Relu6Grad", Relu6GradF)
TACT_CALL_FLOATING(TACT_REGISTER_GRAD, "EluGrad", EluGradF)
TACT_CALL_FLOATING(TACT_REGISTER_GRAD, "SoftplusGrad", SoftplusGradF)
#define TACT_REGISTER_Y_DY_GRAD(OP, F)               \
  TACT_CALL_FLOATING(TACT_REGISTER_GRAD, OP, F)      \
  TACT_CALL_COMPLEX(TACT_REGISTER_GRAD, OP, F)
TACT_REGISTER_Y_DY_GRAD("SigmoidGrad", SigmoidGradF)
TACT_REGISTER_Y_DY_GRAD("TanhGrad", TanhGradF)
TACT_REGISTER_Y_DY_GRAD("RsqrtGrad", RsqrtGradF)
TACT_REGISTER_Y_DY_GRAD("SqrtGrad", SqrtGradF)
#undef TACT_REGISTER_Y_DY_GRAD
#undef TACT_REGISTER_GRAD

REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
                        BroadcastGradientArgsOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
                        BroadcastGradientArgsOp<int64_t>);
// Shape arithmetic in int32, which a GPU device keeps in host memory: the
// same host code serves it there.
REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs").Device(DEVICE_GPU).TypeConstraint<int32_t>("T"),
                        BroadcastGradientArgsOp<int32_t>);

}  // namespace
}  // namespace tact
