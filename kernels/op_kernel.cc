#include "kernels/op_kernel.h"

#include <condition_variable>
#include <mutex>

namespace tact {

OpKernelConstruction::OpKernelConstruction(Device* device,
                                           std::shared_ptr<const NodeProperties> props)
    : device_(device), props_(std::move(props)) {}

void OpKernelConstruction::CtxFailure(const Status& s) {
  if (status_.ok()) status_ = s.WithPrefix(props_->ErrorPrefix());
}

OpKernel::OpKernel(OpKernelConstruction* ctx) : props_(ctx->properties()) {}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  ComputeAsync(ctx, [&] {
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
}

OpKernelContext::OpKernelContext(const Params& params)
    : params_(params), num_outputs_(params.op_kernel->num_outputs()) {
  if (num_outputs_ > 2) overflow_.resize(num_outputs_);
  outputs_ = num_outputs_ > 2 ? overflow_.data() : inline_outputs_;
}

std::vector<Tensor> OpKernelContext::TakeOutputs() {
  std::vector<Tensor> out(num_outputs_);
  for (int i = 0; i < num_outputs_; ++i) out[i] = std::move(outputs_[i]);
  return out;
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  if (i < 0 || i >= num_outputs()) {
    return errors::Internal("kernel allocated output ", i, " of ", num_outputs());
  }
  const DataType dtype = BaseType(op_kernel().output_type(i));
  TACT_ASSIGN_OR_RETURN(outputs_[i], Tensor::Allocate(params_.device->allocator_for(dtype), dtype, shape));
  *out = &outputs_[i];
  return Status::OK();
}

void OpKernelContext::set_output(int i, Tensor t) {
  if (i < 0 || i >= num_outputs()) {
    CtxFailure(errors::Internal("kernel set output ", i, " of ", num_outputs()));
    return;
  }
  const DataType declared = op_kernel().output_type(i);
  const DataType want = IsRefType(declared) ? DT_RESOURCE : declared;
  if (t.dtype() != want) {
    CtxFailure(errors::Internal("output ", i, " is declared ", DataTypeString(want),
                                " but the kernel produced ", DataTypeString(t.dtype())));
    return;
  }
  outputs_[i] = std::move(t);
}

Status OpKernelContext::allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out) {
  TACT_ASSIGN_OR_RETURN(*out, Tensor::Allocate(params_.device->allocator_for(dtype), dtype, shape));
  return Status::OK();
}

const std::string& OpKernelContext::default_container() const {
  static const std::string kShared;
  return params_.default_container ? *params_.default_container : kShared;
}

void OpKernelContext::CtxFailure(const Status& s) {
  if (status_.ok()) status_ = s.WithPrefix(op_kernel().ErrorPrefix());
}

}  // namespace tact
