#include "graph/ops/while_loop.h"

#include "graph/ops/control_flow_ops.h"
#include "graph/ops/core_ops.h"
#include "graph/ops/outside_inputs.h"

namespace tact {
std::vector<Output> WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars,
                              const LoopCondFn& cond_fn, const LoopBodyFn& body_fn,
                              const WhileOptions& options) {
  if (!scope.ok()) return {};
  const Scope ws = scope.NewSubScope(options.name);
  const std::string frame = ws.prefix().substr(0, ws.prefix().size() - 1);
  const std::string what = "WhileLoop '" + frame + "'";
  auto fail = [&](const Status& s) {
    ws.UpdateStatus(s);
    return std::vector<Output>();
  };
  if (loop_vars.empty()) return fail(errors::InvalidArgument(what, ": it has no loop variable"));
  Graph* g = ws.graph();
  const int first_inside = g->num_node_ids();
  std::vector<Output> merges;
  for (const Output& v : loop_vars) {
    if (!v.ok()) return fail(errors::InvalidArgument(what, ": a loop variable is an empty Output"));
    const Output enter = Enter(ws, v, frame, false, options.parallel_iterations);
    merges.push_back(Merge(ws, {enter, enter}).output);  // input 1 becomes the NextIteration
  }
  if (!ws.ok()) return {};

  OutsideInputs spec;
  spec.first_inside_id = first_inside;
  spec.what = what;
  spec.outside_control_allowed = false;
  spec.bring_in = OncePerOutput([ws, frame, &options](const Output& outside) {
    return Enter(ws, outside, frame, /*is_constant=*/true, options.parallel_iterations);
  });

  spec.scan_from = g->num_node_ids();
  const Output pred = cond_fn(ws.NewSubScope("cond"), merges);
  if (!ws.ok()) return {};
  if (!pred.ok() || pred.type() != DT_BOOL ||
      !pred.node->output_shape(pred.index).IsCompatibleWith(TensorShape())) {
    return fail(errors::InvalidArgument(
        what, ": the condition must return a bool scalar, not ",
        pred.ok() ? DataTypeString(pred.type()) + " of shape " +
                        pred.node->output_shape(pred.index).DebugString()
                  : std::string("an empty Output")));
  }
  spec.scan_to = g->num_node_ids();
  spec.pivot = merges[0].node;
  Status s = RewireOutsideInputs(ws, spec);
  if (!s.ok()) return fail(s);

  const Output loop_cond = LoopCond(ws, InsideOutput(pred, spec));
  std::vector<Output> exits, body_inputs;
  for (const Output& m : merges) {
    const SwitchOutputs sw = Switch(ws, m, loop_cond);
    exits.push_back(Exit(ws, sw.output_false));
    body_inputs.push_back(Identity(ws, sw.output_true));
  }
  if (!ws.ok()) return {};

  spec.scan_from = g->num_node_ids();
  spec.scan_to = -1;
  std::vector<Output> next = body_fn(ws.NewSubScope("body"), body_inputs);
  if (!ws.ok()) return {};
  spec.pivot = body_inputs[0].node;
  s = RewireOutsideInputs(ws, spec);
  if (!s.ok()) return fail(s);
  if (next.size() != loop_vars.size()) {
    return fail(errors::InvalidArgument(what, ": the body returns ", next.size(), " values for ",
                                        loop_vars.size(), " loop variables"));
  }
  for (size_t i = 0; i < next.size(); ++i) {
    if (!next[i].ok()) return fail(errors::InvalidArgument(what, ": body value ", i, " is empty"));
    next[i] = InsideOutput(next[i], spec);
    if (next[i].type() != loop_vars[i].type()) {
      return fail(errors::InvalidArgument(what, ": loop variable ", i, " is ",
                                          DataTypeString(loop_vars[i].type()),
                                          " but the body returns ", DataTypeString(next[i].type())));
    }
    const PartialTensorShape& entered = loop_vars[i].node->output_shape(loop_vars[i].index);
    const PartialTensorShape& after = next[i].node->output_shape(next[i].index);
    // As the shape it entered with is the one its Merge gives every
    // iteration, a body value that contradicts it is an error. One less
    // known (a Placeholder of unknown shape in the body) is taken on trust,
    // as TensorFlow's C++ API does; the kernels check the real shapes.
    if (!entered.IsCompatibleWith(after)) {
      return fail(errors::InvalidArgument(what, ": loop variable ", i, " enters with shape ",
                                          entered.DebugString(), " but the body returns shape ",
                                          after.DebugString(), "; a loop variable keeps its shape"));
    }
    const Output back = NextIteration(ws, next[i]);
    if (!ws.ok()) return {};
    g->RemoveEdge(merges[i].node->input_edge(1));
    s = g->AddEdge(back.node, back.index, merges[i].node, 1).status();
    if (!s.ok()) return fail(s);
  }
  return exits;
}

}  // namespace tact
