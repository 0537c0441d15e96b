// The Variables an optimizer update writes (ApplyGradientDescent's var,
// ApplyMomentum's var and accum, ApplyAdam's var, m and v), checked and
// locked for the update, on any device type.
//
//   LockedSlots<3> slots;
//   OP_REQUIRES_OK(ctx, slots.Acquire(ctx, {0, 1, 2}, {"var", "m", "v"}, grad, HostCopy(ctx)));
//   float* var = static_cast<float*>(slots.data(0));
//
// Acquire locks the Vars' mutexes in address order (two slots may share a
// Var; two updates of overlapping Vars never deadlock), then checks that
// each is initialised, that all have var's shape and that `grad` has it,
// naming the slot and the variable; then, copy on write (kernels/variable.h),
// gives each Var whose buffer someone else still holds (a value read earlier
// in the step) a fresh copy made by `copy`, so that the earlier reader keeps
// what it read. The locks are held until the LockedSlots is destroyed.
// The sparse updates (SparseApply*, Scatter*) pass a check of their own in
// place of the gradient's shape.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/op_kernel.h"
#include "kernels/variable.h"

namespace tact {

// A copy of a Var's tensor in memory the device's update can write.
using SlotCopy = std::function<StatusOr<Tensor>(const Tensor& t)>;

template <int N>
class LockedSlots {
 public:
  // `ports[i]` is the input port of slot i (slot 0 is var).
  Status Acquire(OpKernelContext* ctx, const std::array<int, N>& ports,
                 const std::array<const char*, N>& names, const Tensor& grad, const SlotCopy& copy) {
    return Acquire(ctx, ports, names, copy, [&](const TensorShape& shape) -> Status {
      if (grad.shape() == shape) return Status::OK();
      return errors::InvalidArgument("the gradient has shape ", grad.shape().DebugString(),
                                     " but var (variable '", vars_[0]->name(), "') has shape ",
                                     shape.DebugString());
    });
  }

  // As above, with `check` (given var's shape) in place of the gradient's
  // shape check: the sparse updates check the rows they pick with it.
  Status Acquire(OpKernelContext* ctx, const std::array<int, N>& ports,
                 const std::array<const char*, N>& names, const SlotCopy& copy,
                 const std::function<Status(const TensorShape&)>& check) {
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
        return errors::InvalidArgument("'", names[i], "' (variable '", vars_[i]->name(), "') has shape ",
                                       vars_[i]->tensor()->shape().DebugString(), " but var (variable '",
                                       vars_[0]->name(), "') has shape ", shape.DebugString());
      }
    }
    TACT_RETURN_IF_ERROR(check(shape));
    for (auto& v : vars_) {
      Tensor* t = v->tensor();
      if (t->buffer().use_count() == 1) continue;
      TACT_ASSIGN_OR_RETURN(*t, copy(*t));
    }
    return Status::OK();
  }

  const std::string& var_name() const { return vars_[0]->name(); }
  void* data(int i) { return vars_[i]->tensor()->raw_data(); }
  int64_t size() const { return vars_[0]->tensor()->NumElements(); }

 private:
  std::array<std::shared_ptr<Var>, N> vars_;
  std::vector<std::unique_lock<std::mutex>> locks_;
};

}  // namespace tact
