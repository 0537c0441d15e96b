// Variable, Assign, AssignAdd, AssignSub, IsVariableInitialized and
// ResetContainer: the kernels over persistent state (paper 2). The state
// itself is a Var in a ResourceMgr container (kernels/variable.h).
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"
#include "kernels/variable.h"

namespace tact {
namespace {

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = ctx->def().name;
  }

  void Compute(OpKernelContext* ctx) override {
    const std::string& container = container_.empty() ? ctx->default_container() : container_;
    auto var = ResourceMgr::Global()->LookupOrCreate<Var>(container, shared_name_, [&] {
      return std::make_shared<Var>(shared_name_, dtype_, shape_);
    });
    OP_REQUIRES_OK(ctx, var.status());
    OP_REQUIRES(ctx, (*var)->dtype() == dtype_,
                errors::InvalidArgument("variable '", shared_name_, "' in container '", container,
                                        "' is ", DataTypeString((*var)->dtype()), ", not ",
                                        DataTypeString(dtype_)));
    ctx->set_output(0, MakeRefTensor(std::move(var).value()));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape shape_;
  std::string container_;
  std::string shared_name_;
};

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    auto var = VarFromRef(ctx->input(0));
    OP_REQUIRES_OK(ctx, var.status());
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*(*var)->mu());
      if (validate_shape_) {
        const bool fits = (*var)->initialized() ? (*var)->tensor()->shape() == value.shape()
                                                : (*var)->declared_shape().IsCompatibleWith(value.shape());
        OP_REQUIRES(ctx, fits,
                    errors::InvalidArgument(
                        "cannot assign a value of shape ", value.shape().DebugString(),
                        " to variable '", (*var)->name(), "' of shape ",
                        (*var)->initialized() ? (*var)->tensor()->shape().DebugString()
                                              : (*var)->declared_shape().DebugString()));
      }
      // The Var takes a reference to the value's buffer; AssignAdd copies
      // before writing while anyone else still holds it.
      *(*var)->tensor() = value;
    }
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool validate_shape_ = true;
};

template <typename T, bool kSubtract>
class AssignUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    auto var = VarFromRef(ctx->input(0));
    OP_REQUIRES_OK(ctx, var.status());
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*(*var)->mu());
      OP_REQUIRES(ctx, (*var)->initialized(),
                  errors::FailedPrecondition("variable '", (*var)->name(),
                                             "' is updated before it was initialized"));
      Tensor* t = (*var)->tensor();
      OP_REQUIRES(ctx, t->shape() == value.shape(),
                  errors::InvalidArgument("cannot update variable '", (*var)->name(), "' of shape ",
                                          t->shape().DebugString(), " with a value of shape ",
                                          value.shape().DebugString()));
      // Copy on write: a reader earlier in the step (or a Const the value
      // came from) may still hold this buffer.
      if (t->buffer().use_count() > 1) *t = t->DeepCopy(ctx->allocator());
      T* dst = t->data<T>();
      const T* src = value.data<T>();
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        dst[i] = kSubtract ? WrappingSub(dst[i], src[i]) : WrappingAdd(dst[i], src[i]);
      }
    }
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

class IsVariableInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto var = VarFromRef(ctx->input(0));
    OP_REQUIRES_OK(ctx, var.status());
    bool initialized;
    {
      std::lock_guard<std::mutex> lock(*(*var)->mu());
      initialized = (*var)->initialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
  }
  bool IsExpensive() const override { return false; }
};

class ResetContainerOp : public OpKernel {
 public:
  explicit ResetContainerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES(ctx, !container_.empty(),
                errors::InvalidArgument("ResetContainer needs a container's name: the tasks' default "
                                        "container is shared by every run"));
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int64_t>(ResourceMgr::Global()->Reset(container_)));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_;
};

REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("ResetContainer").Device(DEVICE_CPU), ResetContainerOp);
REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_CPU), AssignOp);
// A variable on a GPU device holds a tensor in device memory: Variable only
// hands out its (host) reference and Assign takes the value's buffer, so
// neither touches the bytes.
REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_GPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_GPU), AssignOp);
REGISTER_KERNEL_BUILDER(Name("IsVariableInitialized").Device(DEVICE_CPU), IsVariableInitializedOp);
// The types of AssignAdd's declaration (graph/ops/state_ops.cc).
#define TACT_REGISTER_ASSIGN_UPDATE(T, ...)                                              \
  REGISTER_KERNEL_BUILDER(Name("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AssignUpdateOp<T, false>);                                    \
  REGISTER_KERNEL_BUILDER(Name("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AssignUpdateOp<T, true>);
TACT_CALL_FLOATING(TACT_REGISTER_ASSIGN_UPDATE)
TACT_CALL_INT(TACT_REGISTER_ASSIGN_UPDATE)
TACT_CALL_COMPLEX(TACT_REGISTER_ASSIGN_UPDATE)
#undef TACT_REGISTER_ASSIGN_UPDATE

}  // namespace
}  // namespace tact
