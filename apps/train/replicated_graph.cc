// The towers are made by copying tower 0's nodes: build one model with its
// gradients (and, for async, its update), then clone every node that
// depends on the tower's input placeholders once per further worker,
// renamed "tower_<k>/<name>", with inputs from the same tower's clones and
// everything else (variables, the training flag, constants) shared. Sync
// mode builds the averaging as AddN nodes with one input per tower, all
// tower 0's gradient at first, which the cloning rewires.
#include "apps/train/replicated_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "graph/nn/layers.h"
#include "graph/op_registry.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

std::string WorkerDevice(int k) { return "/job:worker/task:" + std::to_string(k); }
std::string TowerName(int k, const std::string& name) {
  return k == 0 ? name : "tower_" + std::to_string(k) + "/" + name;
}

// Nodes that depend, through data or control edges, on `roots`, without
// going through `stop` (whose own inputs the cloning rewires instead).
std::set<std::string> DependentNodes(const GraphDef& def, const std::set<std::string>& roots,
                                     const std::set<std::string>& stop) {
  std::map<std::string, std::vector<std::string>> consumers;
  for (const NodeDef& n : def.nodes) {
    for (const std::string& in : n.inputs) consumers[ParseInputRef(in)->node].push_back(n.name);
  }
  std::set<std::string> seen(roots.begin(), roots.end());
  std::vector<std::string> work(roots.begin(), roots.end());
  while (!work.empty()) {
    const std::string n = std::move(work.back());
    work.pop_back();
    for (const std::string& c : consumers[n]) {
      if (!stop.count(c) && seen.insert(c).second) work.push_back(c);
    }
  }
  return seen;
}

std::string Renamed(const std::string& input, int k, const std::set<std::string>& tower) {
  InputRef ref = *ParseInputRef(input);
  if (!tower.count(ref.node)) return input;
  // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on the
  // chain of operator+ here.
  std::string out = ref.is_control() ? "^" : "";
  out += TowerName(k, ref.node);
  if (ref.port > 0) {
    out += ':';
    out += std::to_string(ref.port);
  }
  return out;
}

bool IsVariable(const NodeDef& n) { return n.op == "Variable" || n.op == "VariableV2"; }

// An update takes a variable's reference; it runs where the variable is
// (the placer's colocation), never on the tower's worker. A node that
// only reads a variable's value (a MatMul of its kernel) is the tower's:
// left unpinned, the placer put tower 1's first MatMul beside its 800 KB
// kernel on the ps, and the ps computed it every step.
bool UpdatesVariable(const NodeDef& n, const std::map<std::string, const NodeDef*>& by_name) {
  StatusOr<const OpDef*> def = OpRegistry::Global()->LookUp(n.op);
  if (!def.ok()) return false;
  for (size_t i = 0; i < n.inputs.size() && i < (*def)->inputs.size(); ++i) {
    if (!(*def)->inputs[i].is_ref) continue;
    auto it = by_name.find(ParseInputRef(n.inputs[i])->node);
    if (it != by_name.end() && IsVariable(*it->second)) return true;
  }
  return false;
}

int64_t Elements(const NodeDef& var) {
  PartialTensorShape shape;
  int64_t elements = 1;
  if (GetAttr(var.attrs, "shape", &shape).ok() && shape.IsFullyDefined()) {
    for (int d = 0; d < shape.dims(); ++d) elements *= shape.dim_size(d);
  }
  return elements;
}

// Variables that one update references (a variable and its optimizer
// slots) must share a task: groups of them, by their first member.
std::map<std::string, std::string> VariableGroups(const GraphDef& def) {
  std::map<std::string, std::string> parent;
  for (const NodeDef& n : def.nodes) {
    if (IsVariable(n)) parent[n.name] = n.name;
  }
  auto root = [&](std::string v) {
    while (parent[v] != v) v = parent[v];
    return v;
  };
  for (const NodeDef& n : def.nodes) {
    std::string first;
    for (const std::string& in : n.inputs) {
      const std::string v = ParseInputRef(in)->node;
      if (!parent.count(v)) continue;
      if (first.empty()) {
        first = root(v);
      } else {
        parent[root(v)] = first;
      }
    }
  }
  std::map<std::string, std::string> group;
  for (const auto& [v, p] : parent) group[v] = root(v);
  return group;
}

// Largest group first onto the ps task holding the fewest elements.
void SpreadVariables(GraphDef& def, int ps) {
  const std::map<std::string, std::string> group = VariableGroups(def);
  std::map<std::string, int64_t> group_size;
  for (const NodeDef& n : def.nodes) {
    if (IsVariable(n)) group_size[group.at(n.name)] += Elements(n);
  }
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [g, size] : group_size) order.emplace_back(size, g);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<int64_t> load(static_cast<size_t>(ps), 0);
  std::map<std::string, std::string> device;
  for (const auto& [size, g] : order) {
    const size_t task = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[task] += size;
    device[g] = "/job:ps/task:" + std::to_string(task);
  }
  for (NodeDef& n : def.nodes) {
    if (IsVariable(n)) n.device = device.at(group.at(n.name));
  }
}

bool IsStatelessRandom(const NodeDef& n) {
  return n.op == "StatelessRandomUniform" || n.op == "StatelessRandomNormal" ||
         n.op == "StatelessTruncatedNormal";
}

// Tower k's copy of a stateless random op draws from seed + k * stride
// (the seed's first number; the second is the step), so that each
// replica's dropout has masks of its own, the same in every run: the
// clone shares tower 0's seed input, which lies outside the tower.
void OffsetSeed(NodeDef& clone, int k, std::vector<NodeDef>* added) {
  DataType tseed = DT_INT64;
  (void)GetAttr(clone.attrs, "Tseed", &tseed);
  Tensor offset(tseed, TensorShape({2}));
  if (tseed == DT_INT32) {
    offset.data<int32_t>()[0] = k * 7919;  // stays in range for any worker count here
    offset.data<int32_t>()[1] = 0;
  } else {
    offset.data<int64_t>()[0] = int64_t{k} * 0x5DEECE66D;
    offset.data<int64_t>()[1] = 0;
  }
  NodeDef c;
  c.name = clone.name + "/replica_seed_offset";
  c.op = "Const";
  c.device = clone.device;
  c.attrs["dtype"] = AttrValue::Type(tseed);
  c.attrs["value"] = AttrValue::FromTensor(offset);
  NodeDef add;
  add.name = clone.name + "/replica_seed";
  add.op = "Add";
  add.device = clone.device;
  add.inputs = {clone.inputs[1], c.name};
  add.attrs["T"] = AttrValue::Type(tseed);
  clone.inputs[1] = add.name;
  added->push_back(std::move(c));
  added->push_back(std::move(add));
}

// Adds towers 1..W-1 as clones of tower 0 and pins every tower to its
// worker. `sums` are the sync mode's AddN nodes: input k becomes tower k's.
void Replicate(GraphDef& def, const std::set<std::string>& tower, const std::set<std::string>& sums,
               int workers) {
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : def.nodes) by_name[n.name] = &n;
  std::set<std::string> pinned;
  for (const NodeDef& n : def.nodes) {
    if (tower.count(n.name) && !UpdatesVariable(n, by_name)) pinned.insert(n.name);
  }
  std::vector<NodeDef> clones;
  for (int k = 1; k < workers; ++k) {
    for (const NodeDef& n : def.nodes) {
      if (!tower.count(n.name)) continue;
      NodeDef c = n;
      c.name = TowerName(k, n.name);
      for (std::string& in : c.inputs) in = Renamed(in, k, tower);
      if (pinned.count(n.name)) c.device = WorkerDevice(k);
      std::vector<NodeDef> seeds;
      if (IsStatelessRandom(c) && c.inputs.size() == 2) OffsetSeed(c, k, &seeds);
      clones.push_back(std::move(c));
      for (NodeDef& d : seeds) clones.push_back(std::move(d));
    }
  }
  for (NodeDef& n : def.nodes) {
    if (pinned.count(n.name)) n.device = WorkerDevice(0);
    if (!sums.count(n.name)) continue;
    for (int k = 1; k < workers && k < static_cast<int>(n.inputs.size()); ++k) {
      n.inputs[static_cast<size_t>(k)] = Renamed(n.inputs[static_cast<size_t>(k)], k, tower);
    }
  }
  for (NodeDef& c : clones) def.nodes.push_back(std::move(c));
}

// The Assigns that the tower's input reaches: the model's own state
// updates (BatchNormalization's running averages), not the initializers.
std::vector<Node*> TowerAssigns(const Graph& g, Node* images) {
  std::vector<bool> seen(g.num_node_ids(), false);
  std::vector<Node*> work = {images}, assigns;
  seen[images->id()] = true;
  while (!work.empty()) {
    Node* n = work.back();
    work.pop_back();
    if (n->op() == "Assign") assigns.push_back(n);
    for (const Edge* e : n->out_edges()) {
      if (!seen[e->dst->id()]) {
        seen[e->dst->id()] = true;
        work.push_back(e->dst);
      }
    }
  }
  return assigns;
}

// Sync mode: each tower computes its share's new state, and one Assign
// writes their mean, once per step with the averaged update (returned, for
// the train op to wait for), in place of one racing Assign per tower. The
// AddN joins `sums`, whose input k the cloning gives to tower k.
std::vector<Output> AverageStateUpdates(const Scope& s, Node* images, int workers,
                                        std::set<std::string>* sums) {
  std::vector<Output> updates;
  for (Node* old : TowerAssigns(*s.graph(), images)) {
    Output ref, value;
    for (const Edge* e : old->in_edges()) {
      if (e->IsControlEdge()) continue;
      (e->dst_input == 0 ? ref : value) = Output(e->src, e->src_output);
    }
    Scope avg = s.NewSubScope("replicas");
    auto sum = AddN(avg, std::vector<Input>(static_cast<size_t>(workers), value));
    sums->insert(sum.node->name());
    auto mean = Mul(avg, sum, 1.0f / static_cast<float>(workers));
    const std::string name = old->name();
    s.graph()->RemoveNode(old);  // and its control edges into the tower
    updates.push_back(Assign(avg.WithOpName(name), ref, mean));
  }
  return updates;
}

}  // namespace

StatusOr<ReplicatedTrainGraph> BuildReplicatedTrainGraph(const TrainOptions& opt,
                                                         const ReplicaOptions& r) {
  if (r.ps < 1 || r.workers < 1) {
    return errors::InvalidArgument("a cluster needs at least one ps and one worker task, got ps ",
                                   r.ps, " and workers ", r.workers);
  }
  Scope s = Scope::NewRootScope();
  TACT_ASSIGN_OR_RETURN(ModelGraph m, BuildModelGraph(s, opt));
  GradsAndVars gv;
  std::set<std::string> sums;
  // Each averaging's nodes (its AddN and Mul), by the variable it updates.
  std::map<std::string, std::vector<std::string>> averaging;
  for (size_t i = 0; i < m.vars.size(); ++i) {
    if (!r.sync) {
      gv.emplace_back(m.grads[i], m.vars[i]);
      continue;
    }
    // The mean of the towers' gradients: each tower's loss is the mean
    // over its share, so this is the gradient of the whole batch's mean.
    Scope avg = s.NewSubScope("replicas");
    auto sum = AddN(avg, std::vector<Input>(static_cast<size_t>(r.workers), m.grads[i]));
    sums.insert(sum.node->name());
    auto mean = Mul(avg, sum, 1.0f / static_cast<float>(r.workers));
    averaging[m.vars[i].node->name()] = {sum.node->name(), mean.node->name()};
    gv.emplace_back(mean, m.vars[i]);
  }
  // Before the optimizer, whose own Assigns (Adam's beta powers) the input reaches too.
  const std::vector<Output> state_updates =
      r.sync ? AverageStateUpdates(s, m.images.node, r.workers, &sums) : std::vector<Output>{};
  TACT_ASSIGN_OR_RETURN(Output train_op, AddTrainOp(s, opt, gv, m.global_step));
  for (const Output& u : state_updates) s.graph()->AddControlEdge(u.node, train_op.node);
  Node* init = InitAllVariables(s);
  ReplicatedTrainGraph g;
  g.variables = VariableReads(s);
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(g.def, s.ToGraphDef());
  g.parameters = CountParameters(s);
  g.training = m.training.name();
  g.init_op = init->name();
  if (r.sync) g.train_op = train_op.node->name();

  const std::set<std::string> tower =
      DependentNodes(g.def, {m.images.node->name(), m.labels.node->name()}, sums);
  Replicate(g.def, tower, sums, r.workers);
  SpreadVariables(g.def, r.ps);
  // The towers' gradients meet on their variable's ps task, each straight
  // from its worker: averaged on a worker, one tower's gradient took a hop
  // through the other's on every step.
  std::map<std::string, std::string> device_of;
  for (const NodeDef& n : g.def.nodes) device_of[n.name] = n.device;
  for (NodeDef& n : g.def.nodes) {
    for (const auto& [var, nodes] : averaging) {
      if (std::count(nodes.begin(), nodes.end(), n.name)) n.device = device_of.at(var);
    }
  }
  for (int k = 0; k < r.workers; ++k) {
    Tower t;
    t.images = TowerName(k, m.images.name());
    t.labels = TowerName(k, m.labels.name());
    t.loss = TowerName(k, m.loss.name());
    t.correct = TowerName(k, m.correct.name());
    if (!r.sync) t.train_op = TowerName(k, train_op.node->name());
    g.towers.push_back(std::move(t));
  }
  return g;
}

}  // namespace tact::apps
