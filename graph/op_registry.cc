#include "graph/op_registry.h"

#include <cstdio>
#include <cstdlib>

#include "graph/printable.h"

namespace tact {

OpRegistry* OpRegistry::Global() {
  static OpRegistry* const kRegistry = new OpRegistry();  // used by static initialisers
  return kRegistry;
}

Status OpRegistry::Register(OpDef def) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = ops_[def.name];
  if (slot) return errors::AlreadyExists("op '", def.name, "' is registered twice");
  slot = std::make_unique<OpDef>(std::move(def));
  return Status::OK();
}

StatusOr<const OpDef*> OpRegistry::LookUp(const std::string& op) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(op);
  if (it == ops_.end()) return errors::NotFound("op '", Printable(op), "' is not registered");
  return it->second.get();
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, def] : ops_) names.push_back(name);
  return names;
}

OpRegistration::OpRegistration(const OpDefBuilder& builder) {
  StatusOr<OpDef> def = builder.Finalize();
  Status s = def.ok() ? OpRegistry::Global()->Register(std::move(def).value()) : def.status();
  if (!s.ok()) {
    // A malformed REGISTER_OP is a bug in tact itself, found at start-up.
    std::fprintf(stderr, "tact: REGISTER_OP failed: %s\n", s.ToString().c_str());
    std::abort();
  }
}

}  // namespace tact
