// OpRegistry: every op the process knows, by name. Ops register themselves
// at static-initialisation time with REGISTER_OP (op_def.h); a registration
// error there is a programmer error and aborts with a message.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/op_def.h"

namespace tact {

class OpRegistry {
 public:
  static OpRegistry* Global();

  // AlreadyExists if an op of that name is registered.
  Status Register(OpDef def);
  // NotFound, naming the op, if none is registered.
  StatusOr<const OpDef*> LookUp(const std::string& op) const;
  std::vector<std::string> ListOps() const;

 private:
  mutable std::mutex mu_;
  // OpDefs are never removed, so the pointers LookUp returns stay valid.
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
};

// Registers at construction; used only by REGISTER_OP.
struct OpRegistration {
  OpRegistration(const OpDefBuilder& builder);  // NOLINT: implicit for the macro
};

}  // namespace tact

#define TACT_OP_CONCAT_INNER(a, b) a##b
#define TACT_OP_CONCAT(a, b) TACT_OP_CONCAT_INNER(a, b)
#define REGISTER_OP(name)                                                          \
  static const ::tact::OpRegistration TACT_OP_CONCAT(tact_op_registration_, __COUNTER__) = \
      ::tact::OpDefBuilder(name)
