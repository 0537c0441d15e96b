#include "kernels/variable.h"

namespace tact {
namespace {

// The buffer of a ref tensor: it owns the Var, and data() points at the
// buffer itself so the tensor has a non-null address.
class RefBuffer final : public TensorBuffer {
 public:
  explicit RefBuffer(std::shared_ptr<Var> var) : var_(std::move(var)) {}
  void* data() const override { return const_cast<RefBuffer*>(this); }
  size_t size() const override { return 0; }
  const std::shared_ptr<Var>& var() const { return var_; }

 private:
  std::shared_ptr<Var> var_;
};

}  // namespace

Tensor MakeRefTensor(std::shared_ptr<Var> var) {
  return Tensor(DT_RESOURCE, TensorShape(), std::make_shared<RefBuffer>(std::move(var)));
}

StatusOr<std::shared_ptr<Var>> VarFromRef(const Tensor& t) {
  auto* buf = t.dtype() == DT_RESOURCE ? dynamic_cast<RefBuffer*>(t.buffer().get()) : nullptr;
  if (buf == nullptr) {
    return errors::InvalidArgument("expected a variable reference, got a ",
                                   DataTypeString(t.dtype()), " tensor");
  }
  return buf->var();
}

StatusOr<Tensor> ReadVariable(const Tensor& ref) {
  TACT_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, VarFromRef(ref));
  std::lock_guard<std::mutex> lock(*var->mu());
  if (!var->initialized()) {
    return errors::FailedPrecondition("variable '", var->name(),
                                      "' is read before it was initialized (run its Assign or "
                                      "the initializer first)");
  }
  return *var->tensor();
}

}  // namespace tact
