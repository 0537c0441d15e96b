// Var: the persistent, mutable tensor behind a Variable node (paper 2),
// and the reference tensors that carry it along ref edges.
//
// A Variable's output is a ref: a DT_RESOURCE scalar that points at its Var.
// A node with a ref input (Assign) gets that handle; a node with a plain
// input (MatMul reading W) gets the Var's current value, read by the
// executor when the edge delivers (ReadVariable). Updates never change a
// buffer someone else still holds: Assign* write in place only when the Var
// is the buffer's sole owner, and copy otherwise, so a value read earlier in
// a step stays what it was.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "graph/tensor.h"
#include "kernels/resource_mgr.h"

namespace tact {

class Var : public ResourceBase {
 public:
  Var(std::string name, DataType dtype, PartialTensorShape shape)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)) {}
  std::string DebugString() const override { return "variable " + DataTypeString(dtype_); }

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  const PartialTensorShape& declared_shape() const { return shape_; }

  std::mutex* mu() { return &mu_; }
  // Guarded by mu().
  bool initialized() const { return tensor_.IsInitialized(); }
  Tensor* tensor() { return &tensor_; }

 private:
  const std::string name_;
  const DataType dtype_;
  const PartialTensorShape shape_;
  std::mutex mu_;
  Tensor tensor_;  // uninitialised until the first Assign
};

// A DT_RESOURCE scalar that holds `var` alive.
Tensor MakeRefTensor(std::shared_ptr<Var> var);
// The Var behind a ref tensor; InvalidArgument if `t` is not one.
StatusOr<std::shared_ptr<Var>> VarFromRef(const Tensor& t);
// The Var's current value (sharing its buffer); FailedPrecondition naming
// the variable if it was never assigned.
StatusOr<Tensor> ReadVariable(const Tensor& ref);

}  // namespace tact
