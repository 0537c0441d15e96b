#include "checkpoint/freeze_checkpoint.h"

#include <map>

#include "checkpoint/checkpoint.h"
#include "graph/freeze_variables.h"

namespace tact {
namespace {

// Step `step`'s values of `names`, as the checkpoint stores them.
StatusOr<Checkpoint> ReadNeeded(const std::string& dir, int64_t step, const std::vector<std::string>& names) {
  TACT_ASSIGN_OR_RETURN(CheckpointInfo info, DescribeCheckpoint(dir, step));
  std::map<std::string, const StoredVariable*> stored;
  for (const StoredVariable& v : info.variables) stored[v.name] = &v;
  std::vector<VariableSpec> expected;
  for (const std::string& name : names) {
    auto it = stored.find(name);
    if (it == stored.end()) {
      return errors::InvalidArgument("checkpoint ", step, " in '", dir, "' has no variable '", name,
                                     "', which the outputs need");
    }
    expected.push_back({name, it->second->dtype, it->second->shape});
  }
  return ReadCheckpoint(dir, step, expected, /*allow_other_variables=*/true);
}

}  // namespace

StatusOr<FrozenGraph> FreezeFromCheckpoint(const GraphDef& graph, const std::vector<std::string>& outputs,
                                           const std::string& dir, int64_t step) {
  TACT_ASSIGN_OR_RETURN(std::vector<std::string> names, VariablesNeeded(graph, outputs));
  std::vector<int64_t> steps = {step};
  if (step < 0) {
    TACT_ASSIGN_OR_RETURN(steps, ListCheckpoints(dir));
    if (steps.empty()) return errors::NotFound("no checkpoint in '", dir, "'");
  }
  StatusOr<Checkpoint> c = errors::NotFound("no checkpoint in '", dir, "'");
  std::string refused;
  // Newest first; a damaged one (NotFound, DataLoss) gives way to the one
  // before, a checkpoint of another graph (InvalidArgument) does not.
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    c = ReadNeeded(dir, *it, names);
    if (c.ok()) break;
    const bool damaged = c.status().code() == Code::kNotFound || c.status().code() == Code::kDataLoss;
    if (!damaged || step >= 0) return c.status();
    refused += (refused.empty() ? "" : "; ") + c.status().ToString();
  }
  if (!c.ok()) return errors::NotFound("no good checkpoint in '", dir, "': ", refused);
  FrozenGraph f;
  TACT_ASSIGN_OR_RETURN(f.graph, FreezeVariables(graph, outputs, c->variables));
  f.step = c->step;
  f.variables = static_cast<int64_t>(c->variables.size());
  for (const auto& [name, value] : c->variables) f.parameters += value.NumElements();
  return f;
}

}  // namespace tact
