// TensorArray, TensorArrayWrite and TensorArrayRead (graph/ops/tensor_array_ops.h).
// The array is a resource of its step alone: not in a container, alive while
// a tensor refers to it, so it goes when the step's last reference does.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_registry.h"
#include "kernels/resource_ref.h"

namespace tact {
namespace {

class TensorArrayResource : public ResourceBase {
 public:
  TensorArrayResource(DataType dtype, int64_t size) : dtype_(dtype), values_(size) {}
  std::string DebugString() const override {
    return "a TensorArray of " + DataTypeString(dtype_);
  }
  DataType dtype() const { return dtype_; }

  Status Write(int64_t index, const Tensor& value) {
    if (index < 0) return errors::InvalidArgument("index ", index, " is negative");
    if (value.dtype() != dtype_) {
      return errors::InvalidArgument("cannot write a ", DataTypeString(value.dtype()), " into ",
                                     DebugString());
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (index >= static_cast<int64_t>(values_.size())) values_.resize(index + 1);
    values_[index] = value;  // a reference: the writer's buffer is not copied
    return Status::OK();
  }

  StatusOr<Tensor> Read(int64_t index) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (index < 0 || index >= static_cast<int64_t>(values_.size()) ||
        !values_[index].IsInitialized()) {
      return errors::InvalidArgument("index ", index, " of ", DebugString(), " (", values_.size(),
                                     " entries) was never written");
    }
    return values_[index];
  }

 private:
  const DataType dtype_;
  mutable std::mutex mu_;
  std::vector<Tensor> values_;
};

// A Write's or Read's array (input 0) and index (input 1, a scalar).
StatusOr<std::pair<std::shared_ptr<TensorArrayResource>, int64_t>> ArrayAndIndex(OpKernelContext* ctx) {
  TACT_ASSIGN_OR_RETURN(auto array, ResourceFromRefAs<TensorArrayResource>(ctx->input(0), "a TensorArray"));
  if (ctx->input(1).dims() != 0) return errors::InvalidArgument("index must be a scalar");
  return std::make_pair(std::move(array), static_cast<int64_t>(ctx->input(1).scalar<int32_t>()));
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->input(0).dims() == 0 && ctx->input(0).scalar<int32_t>() >= 0,
                errors::InvalidArgument("size must be a non-negative scalar"));
    ctx->set_output(0, MakeResourceRef(std::make_shared<TensorArrayResource>(
                           dtype_, ctx->input(0).scalar<int32_t>())));
    ctx->set_output(1, Tensor::Scalar<int32_t>(0));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto at = ArrayAndIndex(ctx);
    OP_REQUIRES_OK(ctx, at.status());
    OP_REQUIRES_OK(ctx, at->first->Write(at->second, ctx->input(2)));
    ctx->set_output(0, ctx->input(3));
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto at = ArrayAndIndex(ctx);
    OP_REQUIRES_OK(ctx, at.status());
    StatusOr<Tensor> value = at->first->Read(at->second);
    OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, std::move(value).value());
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("TensorArray").Device(DEVICE_CPU), TensorArrayOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayWrite").Device(DEVICE_CPU), TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayRead").Device(DEVICE_CPU), TensorArrayReadOp);

}  // namespace
}  // namespace tact
