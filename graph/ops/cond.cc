#include "graph/ops/cond.h"

#include <string>

#include "graph/ops/control_flow_ops.h"
#include "graph/ops/core_ops.h"
#include "graph/ops/outside_inputs.h"

namespace tact {
namespace {

// Builds one branch: `port` is the Switch output that feeds it (1: true).
std::vector<Output> BuildBranch(const Scope& cs, const Output& pred, const BranchFn& fn, int port,
                                const std::string& what) {
  const Scope ps = cs.WithOpName(port == 1 ? "pivot_t" : "pivot_f");
  const SwitchOutputs pivot_switch = Switch(cs, pred, pred);
  const Output pivot = Identity(ps, port == 1 ? pivot_switch.output_true : pivot_switch.output_false);
  if (!cs.ok()) return {};
  OutsideInputs spec;
  spec.first_inside_id = cs.graph()->num_node_ids();
  spec.scan_from = spec.first_inside_id;
  spec.pivot = pivot.node;
  spec.what = what;
  spec.bring_in = OncePerOutput([cs, pred, port](const Output& outside) {
    const SwitchOutputs s = Switch(cs, outside, pred);
    return port == 1 ? s.output_true : s.output_false;
  });
  std::vector<Output> outs = fn(cs.NewSubScope(port == 1 ? "true" : "false"));
  if (!cs.ok()) return {};
  Status s = RewireOutsideInputs(cs, spec);
  if (!s.ok()) {
    cs.UpdateStatus(s);
    return {};
  }
  for (Output& o : outs) {
    if (!o.ok()) {
      cs.UpdateStatus(errors::InvalidArgument(what, " returns an empty Output"));
      return {};
    }
    o = InsideOutput(o, spec);
  }
  return outs;
}

}  // namespace

std::vector<Output> Cond(const Scope& scope, Input pred, const BranchFn& true_fn,
                         const BranchFn& false_fn) {
  if (!scope.ok()) return {};
  const Scope cs = scope.NewSubScope("cond");
  const std::string name = cs.prefix().substr(0, cs.prefix().size() - 1);
  const std::string what = "Cond '" + name + "'";
  const Output p = Identity(cs.WithOpName("pred"), pred);
  if (!cs.ok()) return {};
  if (p.type() != DT_BOOL || !p.node->output_shape(0).IsCompatibleWith(TensorShape())) {
    cs.UpdateStatus(errors::InvalidArgument(what, ": pred must be a bool scalar, not ",
                                            DataTypeString(p.type()), " of shape ",
                                            p.node->output_shape(0).DebugString()));
    return {};
  }
  const std::vector<Output> t = BuildBranch(cs, p, true_fn, 1, what + " (true branch)");
  const std::vector<Output> f = BuildBranch(cs, p, false_fn, 0, what + " (false branch)");
  if (!cs.ok()) return {};
  if (t.size() != f.size() || t.empty()) {
    cs.UpdateStatus(errors::InvalidArgument(what, ": the true branch returns ", t.size(),
                                            " values and the false branch ", f.size(),
                                            "; both must return the same number, at least one"));
    return {};
  }
  std::vector<Output> result;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].type() != f[i].type()) {
      cs.UpdateStatus(errors::InvalidArgument(what, ": value ", i, " is ",
                                              DataTypeString(t[i].type()), " in the true branch but ",
                                              DataTypeString(f[i].type()), " in the false branch"));
      return {};
    }
    result.push_back(Merge(cs, {f[i], t[i]}).output);
  }
  return result;
}

}  // namespace tact
