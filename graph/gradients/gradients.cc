#include "graph/gradients/gradients.h"

#include <functional>
#include <map>
#include <set>
#include <utility>

#include "graph/gradients/grad_registry.h"
#include "graph/gradients/loop_grad.h"
#include "graph/ops/fill_ops.h"
#include "graph/ops/math_ops.h"

namespace tact {

bool IsDifferentiableType(DataType t) {
  t = BaseType(t);  // a Variable's ref output carries its value's gradient
  return t == DT_FLOAT || t == DT_DOUBLE || t == DT_HALF || t == DT_BFLOAT16 ||
         t == DT_COMPLEX64 || t == DT_COMPLEX128;
}

namespace {

using Port = std::pair<int, int>;  // (node id, output index)

bool CarriesGradient(const Edge* e) {
  return !e->IsControlEdge() && IsDifferentiableType(e->src->output_type(e->src_output));
}

// Nodes reachable from `starts` along gradient-carrying data edges, forwards
// (out edges) or backwards (in edges).
std::vector<bool> Reach(const Graph& g, const std::vector<Node*>& starts, bool forward) {
  std::vector<bool> seen(g.num_node_ids(), false);
  std::vector<Node*> stack;
  for (Node* n : starts) {
    if (!seen[n->id()]) {
      seen[n->id()] = true;
      stack.push_back(n);
    }
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    // StopGradient passes nothing back, so nothing flows forwards through it.
    if (forward && n->op() == "StopGradient") continue;
    for (const Edge* e : forward ? n->out_edges() : n->in_edges()) {
      if (!CarriesGradient(e)) continue;
      Node* next = forward ? e->dst : e->src;
      if (!forward && next->op() == "StopGradient") {
        // Backwards we may still reach it (so it is "on the path"), but its
        // inputs get nothing; mark it and do not continue through it.
        if (!seen[next->id()]) seen[next->id()] = true;
        continue;
      }
      if (!seen[next->id()]) {
        seen[next->id()] = true;
        stack.push_back(next);
      }
    }
  }
  return seen;
}

// The loops that a gradient flows through (one of their Exits is on the
// path), and which nodes are inside one of them: the walker leaves those to
// the loop's gradient (loop_grad.h), built when it meets the loop's Enters.
struct PathLoops {
  std::vector<LoopStructure> loops;
  std::vector<bool> inside;          // by node id
  std::map<int, size_t> loop_of_enter;  // the Enters of loops not inside another
};

StatusOr<PathLoops> FindPathLoops(const Graph& g, const std::function<bool(const Node*)>& on_path) {
  PathLoops p;
  p.inside.assign(g.num_node_ids(), false);
  std::vector<std::vector<bool>> inside_each;
  for (Node* n : g.nodes()) {
    if (n->op() != "LoopCond") continue;
    bool exit_on_path = false;
    for (const Edge* e : n->out_edges()) {
      for (const Edge* o : e->dst->out_edges()) {
        if (o->dst->op() == "Exit" && on_path(o->dst)) exit_on_path = true;
      }
    }
    if (!exit_on_path) continue;  // (a gradient loop being built is never on the path)
    TACT_ASSIGN_OR_RETURN(LoopStructure loop, FindLoop(g, n));
    std::set<const Node*> exits;
    std::vector<Node*> stack;
    for (const auto& v : loop.vars) {
      exits.insert(v.exit);
      stack.push_back(v.enter);
    }
    for (Node* inv : loop.invariants) stack.push_back(inv);
    std::vector<bool> inside(g.num_node_ids(), false);
    while (!stack.empty()) {
      Node* m = stack.back();
      stack.pop_back();
      if (inside[m->id()]) continue;
      inside[m->id()] = true;
      if (exits.count(m) > 0) continue;
      for (const Edge* e : m->out_edges()) stack.push_back(e->dst);
    }
    p.loops.push_back(std::move(loop));
    inside_each.push_back(std::move(inside));
  }
  for (size_t l = 0; l < p.loops.size(); ++l) {
    for (size_t id = 0; id < p.inside.size(); ++id) p.inside[id] = p.inside[id] || inside_each[l][id];
    bool nested = false;
    for (size_t m = 0; m < p.loops.size(); ++m) {
      nested = nested || (m != l && inside_each[m][p.loops[l].vars[0].enter->id()]);
    }
    if (nested) continue;
    for (const auto& v : p.loops[l].vars) p.loop_of_enter[v.enter->id()] = l;
    for (Node* inv : p.loops[l].invariants) p.loop_of_enter[inv->id()] = l;
  }
  return p;
}

// The sum of the partial gradients of one tensor (AddN for several).
Output SumGradients(const Scope& scope, const std::vector<Output>& parts) {
  if (parts.size() == 1) return parts[0];
  std::vector<Input> inputs(parts.begin(), parts.end());
  return AddN(scope, inputs);
}

}  // namespace

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                            const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                            std::vector<Output>* grads) {
  TACT_RETURN_IF_ERROR(scope.status());
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    return errors::InvalidArgument("AddSymbolicGradients: ", ys.size(), " ys but ",
                                   grad_ys.size(), " grad_ys");
  }
  for (const auto& o : ys) {
    if (!o.ok()) return errors::InvalidArgument("AddSymbolicGradients: an empty y");
  }
  for (const auto& o : xs) {
    if (!o.ok()) return errors::InvalidArgument("AddSymbolicGradients: an empty x");
  }
  Graph& g = *scope.graph();
  std::vector<Node*> x_nodes, y_nodes;
  for (const auto& x : xs) x_nodes.push_back(x.node);
  for (const auto& y : ys) y_nodes.push_back(y.node);
  const std::vector<bool> from_x = Reach(g, x_nodes, /*forward=*/true);
  const std::vector<bool> to_y = Reach(g, y_nodes, /*forward=*/false);
  auto on_path = [&](const Node* n) { return from_x[n->id()] && to_y[n->id()]; };

  // Order of the graph as it is now: nodes added below are not visited.
  TACT_ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
  Scope gs = scope.NewSubScope("gradients");

  std::map<Port, std::vector<Output>> pending;
  for (size_t i = 0; i < ys.size(); ++i) {
    if (!IsDifferentiableType(ys[i].type())) {
      return errors::InvalidArgument(ys[i].node->ErrorPrefix(),
                                     "cannot differentiate a y of type ",
                                     DataTypeString(ys[i].type()));
    }
    Output seed = grad_ys.empty() ? OnesLike(gs, ys[i]) : grad_ys[i];
    pending[{ys[i].node->id(), ys[i].index}].push_back(seed);
  }

  TACT_ASSIGN_OR_RETURN(PathLoops loops, FindPathLoops(g, on_path));
  std::map<size_t, std::map<int, Output>> loop_grads;  // by loop: Enter id -> its input's gradient

  std::map<Port, Output> x_grads;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = *it;
    if (!on_path(n)) continue;
    if (loops.inside[n->id()]) {
      auto l = loops.loop_of_enter.find(n->id());
      if (l == loops.loop_of_enter.end()) continue;  // done with its loop
      if (loop_grads.count(l->second) == 0) {
        // Every Exit's consumers come before any Enter in this order, so
        // the Exits' gradients are complete.
        const LoopStructure& loop = loops.loops[l->second];
        std::vector<Output> exit_grads;
        for (const auto& v : loop.vars) {
          auto p = pending.find({v.exit->id(), 0});
          exit_grads.push_back(p == pending.end() || p->second.empty() ? Output()
                                                                       : SumGradients(gs, p->second));
        }
        Status st = AddLoopGradient(gs, loop, exit_grads, &loop_grads[l->second]);
        if (!st.ok()) {
          scope.UpdateStatus(st);
          return st;
        }
      }
      const auto& grads = loop_grads[l->second];
      auto gi = grads.find(n->id());
      const Edge* in = n->input_edge(0);
      if (gi != grads.end() && in != nullptr && CarriesGradient(in) && from_x[in->src->id()]) {
        pending[{in->src->id(), in->src_output}].push_back(gi->second);
      }
      continue;
    }
    bool any = false;
    std::vector<Output> out_grads(n->num_outputs());
    for (int i = 0; i < n->num_outputs(); ++i) {
      auto p = pending.find({n->id(), i});
      if (p == pending.end() || p->second.empty()) continue;
      out_grads[i] = SumGradients(gs, p->second);
      x_grads[{n->id(), i}] = out_grads[i];
      any = true;
    }
    if (!any) continue;
    bool needs_inputs = false;
    for (const Edge* e : n->in_edges()) {
      if (CarriesGradient(e) && from_x[e->src->id()]) needs_inputs = true;
    }
    if (!needs_inputs || n->op() == "StopGradient") continue;
    for (int i = 0; i < n->num_outputs(); ++i) {
      if (!out_grads[i].ok() && IsDifferentiableType(n->output_type(i))) {
        out_grads[i] = ZerosLike(gs, Output(n, i));
      }
    }
    GradFunc fn = nullptr;
    Status found = GradOpRegistry::Global()->Lookup(n->op(), &fn);
    if (!found.ok()) {
      Status err = errors::NotFound(n->ErrorPrefix(), "no gradient function registered for op '",
                                    n->op(), "'");
      scope.UpdateStatus(err);
      return err;
    }
    if (fn == nullptr) continue;  // registered as having no gradient
    std::vector<Output> in_grads;
    Status st = fn(gs, n, out_grads, &in_grads);
    if (st.ok() && !gs.ok()) st = gs.status();
    if (!st.ok()) {
      Status err = Status(st.code(), n->ErrorPrefix() + "gradient: " + st.message());
      scope.UpdateStatus(err);
      return err;
    }
    if (static_cast<int>(in_grads.size()) != n->num_inputs()) {
      return errors::Internal(n->ErrorPrefix(), "gradient function gave ", in_grads.size(),
                              " gradients for ", n->num_inputs(), " inputs");
    }
    for (const Edge* e : n->in_edges()) {
      if (!CarriesGradient(e) || !from_x[e->src->id()]) continue;
      const Output& gi = in_grads[e->dst_input];
      if (!gi.ok()) continue;
      pending[{e->src->id(), e->src_output}].push_back(gi);
    }
  }

  std::vector<Output> result;
  for (const auto& x : xs) {
    auto it = x_grads.find({x.node->id(), x.index});
    if (it != x_grads.end()) {
      result.push_back(it->second);
    } else if (IsDifferentiableType(x.type())) {
      result.push_back(ZerosLike(gs, x));
    } else {
      result.push_back(Output());
    }
  }
  TACT_RETURN_IF_ERROR(gs.status());
  *grads = std::move(result);
  return Status::OK();
}

}  // namespace tact
