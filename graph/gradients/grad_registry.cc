#include "graph/gradients/grad_registry.h"

#include <map>

namespace tact {
namespace {
std::map<std::string, GradFunc>& Table() {
  static auto* table = new std::map<std::string, GradFunc>();
  return *table;
}
}  // namespace

GradOpRegistry* GradOpRegistry::Global() {
  static GradOpRegistry registry;
  return &registry;
}

bool GradOpRegistry::Register(const std::string& op, GradFunc fn) {
  Table()[op] = fn;
  return true;
}

Status GradOpRegistry::Lookup(const std::string& op, GradFunc* fn) const {
  auto it = Table().find(op);
  if (it == Table().end()) {
    return errors::NotFound("no gradient function registered for op '", op, "'");
  }
  *fn = it->second;
  return Status::OK();
}

}  // namespace tact
