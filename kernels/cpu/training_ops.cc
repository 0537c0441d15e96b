// ApplyGradientDescent, ApplyMomentum, ApplyAdam and CheckNumerics.
//
// The Apply* kernels update their Vars in place under the Vars' mutexes
// (taken in address order, so two steps updating overlapping sets cannot
// deadlock). Like AssignAdd (variable_ops.cc) they copy a buffer before
// writing when someone else still holds it: a value read earlier in the
// step keeps what it read. The update itself is one plain loop over raw
// pointers that the compiler vectorises; big tensors are split across the
// device's threads by ParallelFor.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <mutex>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/variable.h"

namespace tact {
namespace {

// The Vars of an Apply* kernel's ref inputs, locked, initialised, of one
// shape, and each the sole owner of its buffer.
template <int N>
class LockedSlots {
 public:
  // `ports[i]` is the input port of slot i (slot 0 is var); `grad` must
  // have var's shape.
  Status Acquire(OpKernelContext* ctx, const std::array<int, N>& ports,
                 const std::array<const char*, N>& names, const Tensor& grad) {
    for (int i = 0; i < N; ++i) {
      TACT_ASSIGN_OR_RETURN(vars_[i], VarFromRef(ctx->input(ports[i])));
    }
    std::vector<std::mutex*> mus;
    for (auto& v : vars_) mus.push_back(v->mu());
    std::sort(mus.begin(), mus.end());
    mus.erase(std::unique(mus.begin(), mus.end()), mus.end());
    for (std::mutex* mu : mus) locks_.emplace_back(*mu);

    for (int i = 0; i < N; ++i) {
      if (!vars_[i]->initialized()) {
        return errors::FailedPrecondition("attempting to use uninitialized value of '", names[i],
                                          "' (variable '", vars_[i]->name(), "')");
      }
    }
    const TensorShape& shape = vars_[0]->tensor()->shape();
    for (int i = 1; i < N; ++i) {
      if (vars_[i]->tensor()->shape() != shape) {
        return errors::InvalidArgument("'", names[i], "' (variable '", vars_[i]->name(),
                                       "') has shape ", vars_[i]->tensor()->shape().DebugString(),
                                       " but var (variable '", vars_[0]->name(), "') has shape ",
                                       shape.DebugString());
      }
    }
    if (grad.shape() != shape) {
      return errors::InvalidArgument("the gradient has shape ", grad.shape().DebugString(),
                                     " but var (variable '", vars_[0]->name(), "') has shape ",
                                     shape.DebugString());
    }
    for (auto& v : vars_) {
      // Copy on write (kernels/variable.h).
      Tensor* t = v->tensor();
      if (t->buffer().use_count() > 1) *t = t->DeepCopy(ctx->allocator());
    }
    return Status::OK();
  }

  template <typename T>
  T* data(int i) { return vars_[i]->tensor()->template data<T>(); }
  int64_t size() const { return vars_[0]->tensor()->NumElements(); }

 private:
  std::array<std::shared_ptr<Var>, N> vars_;
  std::vector<std::unique_lock<std::mutex>> locks_;
};

// The scalar at input `port`, or InvalidArgument naming it.
template <typename T>
Status ReadScalar(OpKernelContext* ctx, int port, const char* name, T* out) {
  const Tensor& t = ctx->input(port);
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " must be a scalar, got shape ", t.shape().DebugString());
  }
  *out = t.data<T>()[0];
  return Status::OK();
}

template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    T alpha;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 1, "alpha", &alpha));
    const Tensor& delta = ctx->input(2);
    LockedSlots<1> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0}, {"var"}, delta));
    T* __restrict var = slots.data<T>(0);
    const T* __restrict d = delta.data<T>();
    ParallelFor(ctx, slots.size(), 2, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) var[i] -= alpha * d[i];
    });
    ctx->set_output(0, ctx->input(0));
  }
};

template <typename T>
class ApplyMomentumOp : public OpKernel {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    T lr, momentum;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 2, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 4, "momentum", &momentum));
    const Tensor& grad = ctx->input(3);
    LockedSlots<2> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0, 1}, {"var", "accum"}, grad));
    T* __restrict var = slots.data<T>(0);
    T* __restrict accum = slots.data<T>(1);
    const T* __restrict g = grad.data<T>();
    const bool nesterov = use_nesterov_;
    ParallelFor(ctx, slots.size(), 4, [=](int64_t begin, int64_t end) {
      if (nesterov) {
        for (int64_t i = begin; i < end; ++i) {
          accum[i] = accum[i] * momentum + g[i];
          var[i] -= lr * (g[i] + momentum * accum[i]);
        }
      } else {
        for (int64_t i = begin; i < end; ++i) {
          accum[i] = accum[i] * momentum + g[i];
          var[i] -= lr * accum[i];
        }
      }
    });
    ctx->set_output(0, ctx->input(0));
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ApplyAdamOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    T beta1_power, beta2_power, lr, beta1, beta2, epsilon;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 3, "beta1_power", &beta1_power));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 4, "beta2_power", &beta2_power));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 5, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 6, "beta1", &beta1));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 7, "beta2", &beta2));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 8, "epsilon", &epsilon));
    const Tensor& grad = ctx->input(9);
    LockedSlots<3> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0, 1, 2}, {"var", "m", "v"}, grad));
    T* __restrict var = slots.data<T>(0);
    T* __restrict m = slots.data<T>(1);
    T* __restrict v = slots.data<T>(2);
    const T* __restrict g = grad.data<T>();
    const T lr_t = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
    const T one_minus_beta1 = T(1) - beta1;
    const T one_minus_beta2 = T(1) - beta2;
    ParallelFor(ctx, slots.size(), 12, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        m[i] += (g[i] - m[i]) * one_minus_beta1;
        v[i] += (g[i] * g[i] - v[i]) * one_minus_beta2;
        var[i] -= lr_t * m[i] / (std::sqrt(v[i]) + epsilon);
      }
    });
    ctx->set_output(0, ctx->input(0));
  }
};

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const T* p = x.data<T>();
    const int64_t n = x.NumElements();
    // The fast pass counts elements whose exponent bits are all ones (Inf
    // or NaN) with integer arithmetic only, which vectorises; the kind is
    // sorted out in a second pass that runs only on failure.
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr Bits kExponent = sizeof(T) == 4 ? Bits(0x7F800000u) : Bits(0x7FF0000000000000ull);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      Bits b;
      std::memcpy(&b, p + i, sizeof(b));
      bad += (b & kExponent) == kExponent;
    }
    if (bad > 0) {
      bool nan = false, inf = false;
      for (int64_t i = 0; i < n; ++i) {
        nan = nan || std::isnan(p[i]);
        inf = inf || std::isinf(p[i]);
      }
      const char* what = nan && inf ? "NaN and Inf" : (nan ? "NaN" : "Inf");
      ctx->CtxFailure(errors::InvalidArgument(message_, " : Tensor had ", what, " values"));
      return;
    }
    ctx->set_output(0, x);
  }

 private:
  std::string message_;
};

#define TACT_REGISTER_TRAINING(T)                                                                \
  REGISTER_KERNEL_BUILDER(Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ApplyGradientDescentOp<T>);                                            \
  REGISTER_KERNEL_BUILDER(Name("ApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
                          ApplyMomentumOp<T>);                                                   \
  REGISTER_KERNEL_BUILDER(Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
                          ApplyAdamOp<T>);                                                       \
  REGISTER_KERNEL_BUILDER(Name("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
                          CheckNumericsOp<T>)
TACT_REGISTER_TRAINING(float);
TACT_REGISTER_TRAINING(double);
#undef TACT_REGISTER_TRAINING

}  // namespace
}  // namespace tact
