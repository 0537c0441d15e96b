// OpKernel: the implementation of an op on one device type (paper 2:
// "a kernel is a particular implementation of an operation that can be run
// on a particular type of device").
//
// A kernel is built once per node (attrs are read in the constructor) and
// its Compute may then run many times, concurrently for concurrent steps:
// Compute must not mutate the kernel. An AsyncOpKernel (Recv, queue
// dequeue) returns from ComputeAsync at once and calls `done` when finished,
// so that no executor thread waits on it.
//
//   class ReluOp : public OpKernel {
//    public:
//     using OpKernel::OpKernel;
//     void Compute(OpKernelContext* ctx) override {
//       const Tensor& x = ctx->input(0);
//       Tensor* y;
//       OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
//       ...
//     }
//   };
//   REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_CPU).TypeConstraint<float>("T"), ReluOp);
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "graph/node_properties.h"
#include "graph/tensor.h"

namespace tact {

class OpKernelConstruction {
 public:
  OpKernelConstruction(Device* device, std::shared_ptr<const NodeProperties> props);

  template <typename T>
  Status GetAttr(const std::string& name, T* out) const {
    Status s = ::tact::GetAttr(props_->def.attrs, name, out);
    return s;
  }
  bool HasAttr(const std::string& name) const { return props_->def.attrs.count(name) > 0; }
  const NodeDef& def() const { return props_->def; }
  const std::shared_ptr<const NodeProperties>& properties() const { return props_; }
  const std::vector<DataType>& input_types() const { return props_->input_types; }
  const std::vector<DataType>& output_types() const { return props_->output_types; }
  Device* device() const { return device_; }

  // Records a failure; the kernel is then discarded. The message gets the
  // node's prefix.
  void CtxFailure(const Status& s);
  const Status& status() const { return status_; }

 private:
  Device* device_;
  std::shared_ptr<const NodeProperties> props_;
  Status status_;
};

class OpKernelContext;
class AsyncOpKernel;
class Rendezvous;

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual void Compute(OpKernelContext* ctx) = 0;
  virtual AsyncOpKernel* AsAsync() { return nullptr; }
  // Cheap kernels (Identity, Const, scalar math) run inline on the executor
  // thread; expensive ones go to the device's thread pool (paper 3.1).
  virtual bool IsExpensive() const { return true; }

  const std::string& name() const { return props_->def.name; }
  const std::string& type_string() const { return props_->def.op; }
  const NodeDef& def() const { return props_->def; }
  int num_inputs() const { return static_cast<int>(props_->input_types.size()); }
  int num_outputs() const { return static_cast<int>(props_->output_types.size()); }
  DataType input_type(int i) const { return props_->input_types[i]; }
  DataType output_type(int i) const { return props_->output_types[i]; }
  std::string ErrorPrefix() const { return props_->ErrorPrefix(); }

 private:
  std::shared_ptr<const NodeProperties> props_;
};

class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;
  // Must call `done` exactly once, on any thread, after setting outputs or
  // a failure status on `ctx`.
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  AsyncOpKernel* AsAsync() final { return this; }
  // Runs ComputeAsync and blocks until done (for tests and simple callers;
  // the executor never calls it).
  void Compute(OpKernelContext* ctx) final;
};

class OpKernelContext {
 public:
  struct Params {
    Device* device = nullptr;
    OpKernel* op_kernel = nullptr;
    // One tensor per input port (`num_inputs` of them); must outlive the
    // context. A flat array so the executor can hand out a slice of its
    // per-step input slots without building a vector per node.
    const Tensor* inputs = nullptr;
    int num_inputs = 0;
    int64_t step_id = 0;
    // The step's rendezvous, for _Send/_Recv; may be null outside a step.
    Rendezvous* rendezvous = nullptr;
    // The container of Variables whose `container` attr is empty (the
    // session's own); null means "" (ResourceMgr's shared default).
    const std::string* default_container = nullptr;
    // Inside a loop: ";<frame>:<iteration>", which _Send and _Recv append
    // to their rendezvous keys, so each iteration's transfer meets its own
    // (actors/frame_executor.h). Null in the root frame.
    const std::string* frame_iter = nullptr;
  };
  explicit OpKernelContext(const Params& params);
  OpKernelContext(const OpKernelContext&) = delete;
  OpKernelContext& operator=(const OpKernelContext&) = delete;

  int num_inputs() const { return params_.num_inputs; }
  const Tensor& input(int i) const { return params_.inputs[i]; }
  int num_outputs() const { return num_outputs_; }

  // Allocates output `i` with the kernel's declared dtype for it.
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // Sets output `i` to an existing tensor (sharing its buffer: Identity,
  // Reshape). Its dtype must be the declared one (DT_RESOURCE for a ref
  // output, see kernels/variable.h), else the step fails.
  void set_output(int i, Tensor t);
  Tensor* mutable_output(int i) { return &outputs_[i]; }
  const Tensor& output(int i) const { return outputs_[i]; }
  // Every output, in port order (num_outputs() of them).
  Tensor* outputs() { return outputs_; }
  std::vector<Tensor> TakeOutputs();

  // Scratch memory from the device's allocator.
  Status allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out);

  Device* device() const { return params_.device; }
  Allocator* allocator() const { return params_.device->allocator(); }
  Eigen::ThreadPoolDevice* eigen_cpu_device() const { return params_.device->eigen_cpu_device(); }
  const OpKernel& op_kernel() const { return *params_.op_kernel; }
  int64_t step_id() const { return params_.step_id; }
  Rendezvous* rendezvous() const { return params_.rendezvous; }
  const std::string& default_container() const;
  const std::string* frame_iter() const { return params_.frame_iter; }

  // Records a failure; the first one wins and gets the node's prefix.
  void CtxFailure(const Status& s);
  const Status& status() const { return status_; }

 private:
  Params params_;
  // Most ops have one or two outputs: those live here, with no allocation
  // per node; more go to overflow_.
  Tensor inline_outputs_[2];
  std::vector<Tensor> overflow_;
  Tensor* outputs_;
  int num_outputs_;
  Status status_;
};

}  // namespace tact

// Fails the kernel (construction or compute) and returns if `cond` is false.
#define OP_REQUIRES(CTX, COND, STATUS) \
  do {                                 \
    if (!(COND)) {                     \
      (CTX)->CtxFailure(STATUS);       \
      return;                          \
    }                                  \
  } while (0)

#define OP_REQUIRES_OK(CTX, EXPR)             \
  do {                                        \
    ::tact::Status _tact_op_status = (EXPR);  \
    if (!_tact_op_status.ok()) {              \
      (CTX)->CtxFailure(_tact_op_status);     \
      return;                                 \
    }                                         \
  } while (0)
