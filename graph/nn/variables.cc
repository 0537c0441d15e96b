#include "graph/nn/variables.h"

#include <map>
#include <memory>
#include <mutex>

#include "graph/ops/core_ops.h"
#include "graph/ops/state_ops.h"

namespace tact {
namespace {

// Keyed by Graph*, guarded by a weak_ptr: a new graph at the address of a
// dead one finds the stale entry expired and starts afresh.
struct Entry {
  std::weak_ptr<Graph> graph;
  std::vector<VariableInfo> vars;
};

std::mutex& TableMutex() {
  static std::mutex mu;
  return mu;
}

std::map<const Graph*, Entry>& Table() {
  static auto* table = new std::map<const Graph*, Entry>();
  return *table;
}

// The entry for scope's graph, dropping those of dead graphs. Caller holds
// TableMutex().
std::vector<VariableInfo>& VarsOf(const Scope& scope) {
  auto& table = Table();
  for (auto it = table.begin(); it != table.end();) {
    it = it->second.graph.expired() ? table.erase(it) : std::next(it);
  }
  Entry& e = table[scope.graph()];
  if (e.graph.expired()) {
    e.graph = scope.shared_graph();
    e.vars.clear();
  }
  return e.vars;
}

// GetUniqueName returns prefix + name (+ "_k"), and WithOpName puts the
// prefix back: the part to hand WithOpName starts after a '/' (or at 0)
// with `name` and continues with nothing or "_<digits>".
std::string LocalName(const std::string& full, const std::string& name) {
  for (size_t p = full.size() >= name.size() ? full.size() - name.size() : 0;; --p) {
    if ((p == 0 || full[p - 1] == '/') && full.compare(p, name.size(), name) == 0) {
      const std::string rest = full.substr(p + name.size());
      bool suffix = rest.empty() || (rest.size() > 1 && rest[0] == '_');
      for (size_t i = 1; suffix && i < rest.size(); ++i) suffix = rest[i] >= '0' && rest[i] <= '9';
      if (suffix) return full.substr(p);
    }
    if (p == 0) break;
  }
  return name;
}

}  // namespace

Output VariableWithInit(const Scope& scope, const std::string& name, const TensorShape& shape,
                        const Initializer& initializer, DataType dtype, bool trainable) {
  if (!scope.ok()) return Output();
  const std::string local = LocalName(scope.GetUniqueName(name), name);
  Output var = Variable(scope.WithOpName(local), shape, dtype);
  Output value = initializer(scope.NewSubScope(local + "/Initializer"), shape, dtype);
  Output assign = Assign(scope.WithOpName(local + "/Assign"), var, value);
  if (!scope.ok()) return Output();
  std::lock_guard<std::mutex> lock(TableMutex());
  VarsOf(scope).push_back(VariableInfo{var.node->name(), shape, dtype, var, assign, trainable});
  return var;
}

Node* InitAllVariables(const Scope& scope) {
  std::vector<Output> inits;
  for (const VariableInfo& v : AllVariables(scope)) inits.push_back(v.initializer);
  return NoOp(scope.WithControlDependencies(inits));
}

std::vector<VariableInfo> AllVariables(const Scope& scope) {
  std::lock_guard<std::mutex> lock(TableMutex());
  return VarsOf(scope);
}

std::vector<VariableInfo> TrainableVariables(const Scope& scope) {
  std::vector<VariableInfo> out;
  for (VariableInfo& v : AllVariables(scope)) {
    if (v.trainable) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace tact
