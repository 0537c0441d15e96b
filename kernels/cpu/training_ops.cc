// ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyRMSProp,
// ApplyAdagrad(V2), their SparseApply* forms, and CheckNumerics.
//
// The Apply* kernels update their Vars in place under the Vars' mutexes
// (taken in address order, so two steps updating overlapping sets cannot
// deadlock). Like AssignAdd (variable_ops.cc) they copy a buffer before
// writing when someone else still holds it: a value read earlier in the
// step keeps what it read. The update itself is one plain loop over raw
// pointers that the compiler vectorises; big tensors are split across the
// device's threads by ParallelFor. The sparse forms run the same formula
// on the rows their indices pick (kernels/cpu/picked_rows.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <mutex>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/picked_rows.h"
#include "kernels/kernel_registry.h"
#include "kernels/locked_slots.h"
#include "kernels/variable.h"

namespace tact {
namespace {

// Copy on write on the host.
SlotCopy HostCopy(OpKernelContext* ctx) {
  return [ctx](const Tensor& t) -> StatusOr<Tensor> { return t.DeepCopy(ctx->allocator()); };
}

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

// One element's update by each optimizer's formula (graph/ops/training_ops.h),
// shared by the dense kernels (every element) and the sparse ones (the
// picked rows' elements): var and the slots in place, g the gradient.
template <typename T, bool kNesterov>
struct MomentumStep {
  T lr, momentum;
  void operator()(T& var, T& accum, T g) const {
    accum = accum * momentum + g;
    var -= kNesterov ? lr * (g + momentum * accum) : lr * accum;
  }
};

template <typename T>
struct RMSPropStep {
  T lr, one_minus_rho, momentum, epsilon;
  void operator()(T& var, T& ms, T& mom, T g) const {
    ms += (g * g - ms) * one_minus_rho;
    mom = mom * momentum + lr * g / std::sqrt(ms + epsilon);
    var -= mom;
  }
};

template <typename T, bool kUpdateSlots>
struct AdagradStep {
  T lr, epsilon;
  void operator()(T& var, T& accum, T g) const {
    if (kUpdateSlots) accum += g * g;
    var -= lr * g / (std::sqrt(accum) + epsilon);
  }
};

// The rows a SparseApply* op updates: input `indices_port`, a vector,
// picks the rows of the slots that the gradient (input `grad_port`) holds.
template <int N>
Status AcquireSparse(OpKernelContext* ctx, LockedSlots<N>* slots, const std::array<int, N>& ports,
                     const std::array<const char*, N>& names, int grad_port, int indices_port,
                     std::vector<int64_t>* rows, int64_t* row_size) {
  const Tensor& indices = ctx->input(indices_port);
  if (indices.dims() != 1) {
    return errors::InvalidArgument("indices must be a vector, got shape ",
                                   indices.shape().DebugString());
  }
  return AcquireRows<N>(ctx, slots, ports, names, indices, ctx->input(grad_port), "the gradient",
                     rows, row_size);
}

// The slots an update writes and the elements its step runs over: every
// element, with the whole gradient (an Apply* op), or the elements of the
// rows that a vector of indices picks, with those rows' gradient (its
// SparseApply* form). One kernel class serves both forms of each op.
template <typename T, int N>
class SlotUpdate {
 public:
  // `indices_port` < 0: the dense form.
  Status Acquire(OpKernelContext* ctx, const std::array<int, N>& ports,
                 const std::array<const char*, N>& names, int grad_port, int indices_port) {
    g_ = ctx->input(grad_port).data<T>();
    dense_ = indices_port < 0;
    if (dense_) return slots_.Acquire(ctx, ports, names, ctx->input(grad_port), HostCopy(ctx));
    return AcquireSparse<N>(ctx, &slots_, ports, names, grad_port, indices_port, &rows_, &row_size_);
  }

  // step(var, slot 1, [slot 2,] g) for each element; `cost` is roughly its
  // cycles.
  template <typename Step>
  void Run(OpKernelContext* ctx, int64_t cost, Step step) {
    T* __restrict var = static_cast<T*>(slots_.data(0));
    T* __restrict a = static_cast<T*>(slots_.data(1));
    T* __restrict b = N > 2 ? static_cast<T*>(slots_.data(N - 1)) : nullptr;
    const T* __restrict g = g_;
    auto one = [=](int64_t i, int64_t k) {
      if constexpr (N == 2) {
        step(var[i], a[i], g[k]);
      } else {
        step(var[i], a[i], b[i], g[k]);
      }
    };
    if (dense_) {
      ParallelFor(ctx, slots_.size(), cost, [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) one(i, i);
      });
    } else {
      ForEachPickedElement(ctx, rows_, row_size_, cost, one);
    }
  }

 private:
  LockedSlots<N> slots_;
  const T* g_ = nullptr;
  bool dense_ = true;
  std::vector<int64_t> rows_;
  int64_t row_size_ = 0;
};

template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    T alpha;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 1, "alpha", &alpha));
    const Tensor& delta = ctx->input(2);
    LockedSlots<1> slots;
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0}, {"var"}, delta, HostCopy(ctx)));
    T* __restrict var = static_cast<T*>(slots.data(0));
    const T* __restrict d = delta.data<T>();
    ParallelFor(ctx, slots.size(), 2, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) var[i] -= alpha * d[i];
    });
    ctx->set_output(0, ctx->input(0));
  }
};

// ApplyMomentum, and SparseApplyMomentum (kSparse: indices after grad).
template <typename T, bool kSparse>
class MomentumOp : public OpKernel {
 public:
  explicit MomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    T lr, momentum;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 2, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, kSparse ? 5 : 4, "momentum", &momentum));
    SlotUpdate<T, 2> update;
    OP_REQUIRES_OK(ctx, update.Acquire(ctx, {0, 1}, {"var", "accum"}, 3, kSparse ? 4 : -1));
    if (use_nesterov_) {
      update.Run(ctx, 4, MomentumStep<T, true>{lr, momentum});
    } else {
      update.Run(ctx, 4, MomentumStep<T, false>{lr, momentum});
    }
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
    OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0, 1, 2}, {"var", "m", "v"}, grad, HostCopy(ctx)));
    T* __restrict var = static_cast<T*>(slots.data(0));
    T* __restrict m = static_cast<T*>(slots.data(1));
    T* __restrict v = static_cast<T*>(slots.data(2));
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

// ApplyRMSProp, and SparseApplyRMSProp (kSparse: indices after grad).
template <typename T, bool kSparse>
class RMSPropOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    T lr, rho, momentum, epsilon;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 3, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 4, "rho", &rho));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 5, "momentum", &momentum));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 6, "epsilon", &epsilon));
    SlotUpdate<T, 3> update;
    OP_REQUIRES_OK(ctx, update.Acquire(ctx, {0, 1, 2}, {"var", "ms", "mom"}, 7, kSparse ? 8 : -1));
    update.Run(ctx, 12, RMSPropStep<T>{lr, T(1) - rho, momentum, epsilon});
    ctx->set_output(0, ctx->input(0));
  }
};

// ApplyAdagrad is ApplyAdagradV2 with an epsilon of 0 (TensorFlow's two
// ops); `kHasEpsilon` says which inputs the op has, and kSparse that it is
// the SparseApply* form (indices after grad).
template <typename T, bool kHasEpsilon, bool kSparse>
class AdagradOp : public OpKernel {
 public:
  explicit AdagradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("update_slots", &update_slots_));
  }
  void Compute(OpKernelContext* ctx) override {
    T lr, epsilon = T(0);
    OP_REQUIRES_OK(ctx, ReadScalar(ctx, 2, "lr", &lr));
    if (kHasEpsilon) OP_REQUIRES_OK(ctx, ReadScalar(ctx, 3, "epsilon", &epsilon));
    const int grad_port = kHasEpsilon ? 4 : 3;
    SlotUpdate<T, 2> update;
    OP_REQUIRES_OK(ctx, update.Acquire(ctx, {0, 1}, {"var", "accum"}, grad_port,
                                       kSparse ? grad_port + 1 : -1));
    if (update_slots_) {
      update.Run(ctx, 8, AdagradStep<T, true>{lr, epsilon});
    } else {
      update.Run(ctx, 8, AdagradStep<T, false>{lr, epsilon});
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  bool update_slots_ = true;
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
                          MomentumOp<T, false>);                                                 \
  REGISTER_KERNEL_BUILDER(Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
                          ApplyAdamOp<T>);                                                       \
  REGISTER_KERNEL_BUILDER(Name("ApplyRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
                          RMSPropOp<T, false>);                                                  \
  REGISTER_KERNEL_BUILDER(Name("ApplyAdagrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
                          AdagradOp<T, false, false>);                                           \
  REGISTER_KERNEL_BUILDER(Name("ApplyAdagradV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),       \
                          AdagradOp<T, true, false>);                                            \
  REGISTER_KERNEL_BUILDER(Name("SparseApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          MomentumOp<T, true>);                                                  \
  REGISTER_KERNEL_BUILDER(Name("SparseApplyRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          RMSPropOp<T, true>);                                                   \
  REGISTER_KERNEL_BUILDER(Name("SparseApplyAdagrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          AdagradOp<T, false, true>);                                            \
  REGISTER_KERNEL_BUILDER(Name("SparseApplyAdagradV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AdagradOp<T, true, true>);                                             \
  REGISTER_KERNEL_BUILDER(Name("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
                          CheckNumericsOp<T>)
TACT_REGISTER_TRAINING(float);
TACT_REGISTER_TRAINING(double);
#undef TACT_REGISTER_TRAINING

}  // namespace
}  // namespace tact
