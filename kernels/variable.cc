#include "kernels/variable.h"

#include "kernels/resource_ref.h"

namespace tact {

Tensor MakeRefTensor(std::shared_ptr<Var> var) { return MakeResourceRef(std::move(var)); }

StatusOr<std::shared_ptr<Var>> VarFromRef(const Tensor& t) { return ResourceFromRefAs<Var>(t, "a variable"); }

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
