#include "graph/gradients/loop_grad.h"

#include <deque>
#include <set>
#include <utility>

#include "graph/control_flow_info.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "graph/shape_refiner.h"

namespace tact {
namespace {

bool IsEnter(const Node* n) { return IsEnterOp(n->op()); }

// The consumer of output `port` of `n` whose op is `op`, or null.
Node* ConsumerOf(const Node* n, int port, const std::string& op) {
  for (const Edge* e : n->out_edges()) {
    if (e->src_output == port && e->dst->op() == op) return e->dst;
  }
  return nullptr;
}

Output InputOf(const Node* n, int port) {
  const Edge* e = n->input_edge(port);
  return e == nullptr ? Output() : Output(e->src, e->src_output);
}

// The body: what the loop variables' Identities reach before the
// NextIterations, producers before consumers.
StatusOr<std::vector<Node*>> BodyNodes(const LoopStructure& loop, const std::string& what) {
  std::set<const Node*> inputs;
  for (const auto& v : loop.vars) inputs.insert(v.body_input);
  std::set<Node*> body;
  std::deque<const Node*> queue(inputs.begin(), inputs.end());
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    for (const Edge* e : n->out_edges()) {
      Node* d = e->dst;
      if (d->op() == "NextIteration" || inputs.count(d) > 0 || body.count(d) > 0) continue;
      if (IsEnter(d) || d->op() == "Exit" || d->op() == "LoopCond") {
        return errors::Unimplemented(what, ": its body holds another loop ('", d->name(),
                                     "'); the gradient of a loop in a loop is not supported");
      }
      if (d->op() == "TensorArrayRead") {
        // A gradient loop reads the forward values back: differentiating it
        // again would need the reads' gradients, which are not there.
        return errors::Unimplemented(what, ": it is itself a loop's gradient; second derivatives "
                                     "through a WhileLoop are not supported");
      }
      if (d->IsStateful()) {
        return errors::Unimplemented(what, ": its body holds the stateful op '", d->name(),
                                     "', which the gradient would run again");
      }
      body.insert(d);
      queue.push_back(d);
    }
  }
  // Kahn's order within the body (node ids are not one: a Cond in the body
  // reads Switches built after its branches).
  std::map<Node*, int> waiting;
  std::deque<Node*> ready;
  for (Node* n : body) {
    int count = 0;
    for (const Edge* e : n->in_edges()) count += body.count(e->src);
    waiting[n] = count;
    if (count == 0) ready.push_back(n);
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* n = ready.front();
    ready.pop_front();
    order.push_back(n);
    for (const Edge* e : n->out_edges()) {
      auto it = waiting.find(e->dst);
      if (it != waiting.end() && --it->second == 0) ready.push_back(e->dst);
    }
  }
  return order;
}

// A loop variable added to the forward loop: its value in the body, its
// Exit, and its Merge, whose back edge CloseLoopVar sets.
struct AddedVar {
  Output body_value;
  Output exit;
  Node* merge = nullptr;
};

AddedVar AddLoopVar(const Scope& s, const LoopStructure& loop, const Output& init) {
  const Output enter = Enter(s, init, loop.frame, false, loop.parallel_iterations);
  const MergeOutputs m = Merge(s, {enter, enter});
  const SwitchOutputs sw = Switch(s, m.output, Output(loop.loop_cond, 0));
  return {Identity(s, sw.output_true), Exit(s, sw.output_false), m.output.node};
}

Status CloseLoopVar(const Scope& s, const AddedVar& var, const Output& next) {
  const Output back = NextIteration(s, next);
  TACT_RETURN_IF_ERROR(s.status());
  Graph* g = s.graph();
  g->RemoveEdge(var.merge->input_edge(1));
  return g->AddEdge(back.node, back.index, var.merge, 1).status();
}

}  // namespace

StatusOr<LoopStructure> FindLoop(const Graph& graph, Node* loop_cond) {
  LoopStructure loop;
  loop.loop_cond = loop_cond;
  auto bad = [&](const std::string& why) {
    return errors::InvalidArgument(loop_cond->ErrorPrefix(), "not a loop as WhileLoop builds it: ",
                                   why);
  };
  for (const Edge* e : loop_cond->out_edges()) {
    if (e->IsControlEdge()) continue;
    LoopStructure::Var v;
    v.loop_switch = e->dst;
    if (v.loop_switch->op() != "Switch" || e->dst_input != 1) {
      return bad("it feeds '" + v.loop_switch->name() + "', not a Switch's pred");
    }
    v.merge = InputOf(v.loop_switch, 0).node;
    if (v.merge == nullptr || v.merge->op() != "Merge" || v.merge->num_inputs() != 2) {
      return bad("Switch '" + v.loop_switch->name() + "' reads no Merge of two inputs");
    }
    v.enter = InputOf(v.merge, 0).node;
    v.next_iteration = InputOf(v.merge, 1).node;
    if (v.enter == nullptr || !IsEnter(v.enter) || v.next_iteration == nullptr ||
        v.next_iteration->op() != "NextIteration") {
      return bad("Merge '" + v.merge->name() + "' does not read an Enter and a NextIteration");
    }
    v.exit = ConsumerOf(v.loop_switch, 0, "Exit");
    v.body_input = ConsumerOf(v.loop_switch, 1, "Identity");
    if (v.exit == nullptr || v.body_input == nullptr) {
      return bad("Switch '" + v.loop_switch->name() + "' has no Exit or no body Identity");
    }
    loop.vars.push_back(v);
  }
  if (loop.vars.empty()) return bad("it feeds no Switch");
  TACT_RETURN_IF_ERROR(GetAttr(loop.vars[0].enter->attrs(), "frame_name", &loop.frame));
  int64_t parallel = 10;
  if (GetAttr(loop.vars[0].enter->attrs(), "parallel_iterations", &parallel).ok()) {
    loop.parallel_iterations = static_cast<int>(parallel);
  }
  for (Node* n : graph.nodes()) {
    std::string frame;
    bool constant = false;
    if (!IsEnter(n) || !GetAttr(n->attrs(), "frame_name", &frame).ok() || frame != loop.frame) {
      continue;
    }
    if (GetAttr(n->attrs(), "is_constant", &constant).ok() && constant) loop.invariants.push_back(n);
  }
  return loop;
}

Status AddLoopGradient(const Scope& scope, const LoopStructure& loop,
                       const std::vector<Output>& exit_grads, std::map<int, Output>* enter_grads) {
  const std::string what = "the gradient of WhileLoop '" + loop.frame + "'";
  TACT_ASSIGN_OR_RETURN(const std::vector<Node*> body, BodyNodes(loop, what));

  // Where each forward value the body reads comes from in the gradient
  // loop: a body node's copy, a loop variable read back, or the invariant's
  // outside value (which the gradient loop takes in as its own invariant).
  std::map<const Node*, int> var_of_input;
  for (size_t i = 0; i < loop.vars.size(); ++i) var_of_input[loop.vars[i].body_input] = i;
  std::map<const Node*, Output> invariant_value;
  for (Node* inv : loop.invariants) invariant_value[inv] = InputOf(inv, 0);
  const std::set<const Node*> in_body(body.begin(), body.end());
  auto known = [&](const Node* n) {
    return in_body.count(n) + var_of_input.count(n) + invariant_value.count(n) > 0;
  };
  for (const Node* n : body) {
    for (const Edge* e : n->in_edges()) {
      if (!known(e->src) && !e->IsControlEdge()) {
        return errors::Unimplemented(what, ": node '", n->name(), "' of the body reads '",
                                     e->src->name(), "', which is neither a loop variable nor a "
                                     "loop invariant");
      }
    }
  }
  for (const auto& v : loop.vars) {
    if (!known(InputOf(v.next_iteration, 0).node)) {
      return errors::Unimplemented(what, ": the next value of '", v.merge->name(),
                                   "' does not come from the body");
    }
  }

  // The forward loop keeps each iteration's loop variables.
  const Scope ks = scope.NewSubScope("keep");
  const Output zero = Const(ks, Tensor::Scalar<int32_t>(0));
  std::vector<Output> arrays;
  for (const auto& v : loop.vars) {
    arrays.push_back(TensorArray(ks, 0, BaseType(v.merge->output_type(0))).handle);
  }
  const AddedVar counter = AddLoopVar(ks, loop, zero);
  TACT_RETURN_IF_ERROR(
      CloseLoopVar(ks, counter, Add(ks, counter.body_value, OnesLike(ks, counter.body_value))));
  const AddedVar flow = AddLoopVar(ks, loop, zero);
  Output written = flow.body_value;
  for (size_t i = 0; i < loop.vars.size(); ++i) {
    const Output array = Enter(ks, arrays[i], loop.frame, true, loop.parallel_iterations);
    written = TensorArrayWrite(ks, array, counter.body_value, Output(loop.vars[i].body_input, 0),
                               written);
  }
  TACT_RETURN_IF_ERROR(CloseLoopVar(ks, flow, written));

  std::vector<size_t> vars, invariants;  // those a gradient flows through
  for (size_t i = 0; i < loop.vars.size(); ++i) {
    if (IsDifferentiableType(loop.vars[i].merge->output_type(0))) vars.push_back(i);
  }
  for (size_t i = 0; i < loop.invariants.size(); ++i) {
    if (IsDifferentiableType(invariant_value[loop.invariants[i]].type())) invariants.push_back(i);
  }
  if (vars.empty() && invariants.empty()) return Status::OK();

  // The gradient loop: j from N - 1 down to 0, the loop variables'
  // gradients, and the invariants' sums.
  std::vector<Output> init = {Sub(scope, counter.exit, 1)};
  for (size_t i : vars) {
    init.push_back(exit_grads[i].ok() ? exit_grads[i]
                                      : ZerosLike(scope, Output(loop.vars[i].exit, 0)));
  }
  for (size_t i : invariants) init.push_back(ZerosLike(scope, invariant_value[loop.invariants[i]]));

  auto body_fn = [&](const Scope& bs, const std::vector<Output>& v) -> std::vector<Output> {
    const Output j = v[0];
    std::vector<Output> reads;
    for (size_t i = 0; i < loop.vars.size(); ++i) {
      reads.push_back(TensorArrayRead(bs, arrays[i], j, flow.exit,
                                      BaseType(loop.vars[i].merge->output_type(0))));
    }
    std::map<const Node*, Node*> copy;
    auto source = [&](const Node* n, int port) -> Output {
      auto c = copy.find(n);
      if (c != copy.end()) return Output(c->second, port);
      auto r = var_of_input.find(n);
      if (r != var_of_input.end()) return reads[r->second];
      return invariant_value.at(n);
    };
    Graph* g = bs.graph();
    for (const Node* n : body) {
      NodeDef def = n->def();
      def.name = bs.GetUniqueName(n->name());
      StatusOr<Node*> c = g->AddNode(std::move(def));
      Status st = c.status();
      for (const Edge* e : n->in_edges()) {
        if (!st.ok()) break;
        // A control input from outside the body, or from an invariant:
        // the gradient loop orders the copy by its own pivot.
        if (!known(e->src) || (e->IsControlEdge() && invariant_value.count(e->src) > 0)) continue;
        const Output src = source(e->src, e->IsControlEdge() ? 0 : e->src_output);
        if (e->IsControlEdge()) {
          g->AddControlEdge(src.node, *c);
        } else {
          st = g->AddEdge(src.node, src.index, *c, e->dst_input).status();
        }
      }
      if (st.ok()) st = InferNodeShapes(*c);
      if (!st.ok()) {
        bs.UpdateStatus(st);
        return {};
      }
      copy[n] = *c;
    }
    std::vector<Output> ys, xs, grad_ys;
    for (size_t k = 0; k < vars.size(); ++k) {
      const Output next = InputOf(loop.vars[vars[k]].next_iteration, 0);
      ys.push_back(source(next.node, next.index));
      grad_ys.push_back(v[1 + k]);
      xs.push_back(reads[vars[k]]);
    }
    for (size_t i : invariants) xs.push_back(invariant_value[loop.invariants[i]]);
    std::vector<Output> grads;
    if (!AddSymbolicGradients(bs, ys, xs, grad_ys, &grads).ok()) return {};
    std::vector<Output> next = {Sub(bs, j, 1)};
    for (size_t k = 0; k < vars.size(); ++k) next.push_back(grads[k]);
    for (size_t k = 0; k < invariants.size(); ++k) {
      next.push_back(Add(bs, v[1 + vars.size() + k], grads[vars.size() + k]));
    }
    return next;
  };
  WhileOptions options;
  options.name = "while_grad";
  options.parallel_iterations = loop.parallel_iterations;
  const std::vector<Output> exits = WhileLoop(
      scope, init, [](const Scope& c, const std::vector<Output>& v) { return GreaterEqual(c, v[0], 0); },
      body_fn, options);
  if (exits.empty()) return scope.status();
  for (size_t k = 0; k < vars.size(); ++k) (*enter_grads)[loop.vars[vars[k]].enter->id()] = exits[1 + k];
  for (size_t k = 0; k < invariants.size(); ++k) {
    (*enter_grads)[loop.invariants[invariants[k]]->id()] = exits[1 + vars.size() + k];
  }
  return Status::OK();
}

}  // namespace tact
