#include "graph/cse.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tact {
namespace {

// boost::hash_combine's mixing: enough to spread ids and small ints.
inline void Mix(size_t* h, size_t v) { *h ^= v + 0x9e3779b97f4a7c15ULL + (*h << 6) + (*h >> 2); }

size_t HashShape(const PartialTensorShape& s) {
  size_t h = static_cast<size_t>(s.dims() + 1);
  for (int64_t d : s.dim_sizes()) Mix(&h, static_cast<size_t>(d));
  return h;
}

// Hashes dtype, shape and the first bytes of a tensor: a big Const is not
// read in full here; equality (bitwise) settles what the hash leaves open.
size_t HashTensor(const Tensor& t) {
  size_t h = static_cast<size_t>(t.dtype());
  Mix(&h, HashShape(t.shape()));
  if (t.dtype() != DT_STRING && t.raw_data() != nullptr) {
    const size_t n = std::min<size_t>(t.TotalBytes(), 64);
    const auto* p = static_cast<const unsigned char*>(t.raw_data());
    for (size_t i = 0; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      Mix(&h, w);
    }
    for (size_t i = n & ~size_t{7}; i < n; ++i) Mix(&h, p[i]);
  }
  return h;
}

size_t HashAttr(const AttrValue& v) {
  size_t h = static_cast<size_t>(v.kind());
  switch (v.kind()) {
    case AttrValue::Kind::kInt: Mix(&h, static_cast<size_t>(v.i())); break;
    case AttrValue::Kind::kFloat: {
      uint32_t bits;
      const float f = v.f();
      std::memcpy(&bits, &f, 4);
      Mix(&h, bits);
      break;
    }
    case AttrValue::Kind::kBool: Mix(&h, v.b()); break;
    case AttrValue::Kind::kString: Mix(&h, std::hash<std::string>()(v.s())); break;
    case AttrValue::Kind::kType: Mix(&h, static_cast<size_t>(v.type())); break;
    case AttrValue::Kind::kShape: Mix(&h, HashShape(v.shape())); break;
    case AttrValue::Kind::kTensor: Mix(&h, HashTensor(v.tensor())); break;
    case AttrValue::Kind::kIntList:
      for (int64_t x : v.list_i()) Mix(&h, static_cast<size_t>(x));
      break;
    default:  // other lists: their length; equality compares the elements
      Mix(&h, v.list_size());
      break;
  }
  return h;
}

// What a node is compared by, gathered once: data inputs by port and the
// sorted control input ids.
struct Inputs {
  std::vector<std::pair<int, int>> data;  // (src id, src output) by port
  std::vector<int> control;
};

Inputs GatherInputs(const Node* n) {
  Inputs in;
  in.data.assign(n->num_inputs(), {-1, 0});
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) {
      in.control.push_back(e->src->id());
    } else {
      in.data[e->dst_input] = {e->src->id(), e->src_output};
    }
  }
  std::sort(in.control.begin(), in.control.end());
  in.control.erase(std::unique(in.control.begin(), in.control.end()), in.control.end());
  return in;
}

// The op by its OpDef's address (one per registered op) and attrs by value
// only: the names of an op's attrs are fixed by the op. Device names are
// compared, not hashed: nodes that differ only there are rare.
size_t HashNode(const Node* n, const Inputs& in) {
  size_t h = reinterpret_cast<size_t>(&n->op_def());
  for (const auto& [src, port] : in.data) {
    Mix(&h, static_cast<size_t>(src));
    Mix(&h, static_cast<size_t>(port));
  }
  Mix(&h, in.control.size());
  for (int c : in.control) Mix(&h, static_cast<size_t>(c));
  for (const auto& [name, value] : n->attrs()) Mix(&h, HashAttr(value));
  return h;
}

// The nodes other nodes name in a colocation hint (attr _class,
// "loc:@name"): merging one away would leave the hint pointing at nothing.
std::unordered_set<std::string> ColocationTargets(const Graph& graph) {
  std::unordered_set<std::string> out;
  for (const Node* n : graph.nodes()) {
    auto it = n->attrs().find("_class");
    if (it == n->attrs().end() || it->second.kind() != AttrValue::Kind::kStringList) continue;
    for (const std::string& c : it->second.list_s()) {
      if (c.rfind("loc:@", 0) == 0) out.insert(c.substr(5));
    }
  }
  return out;
}

bool MayMerge(const Node* n, const std::unordered_set<std::string>& colocation_targets) {
  const OpDef& op = n->op_def();
  if (op.is_stateful || op.allows_cycles || n->num_outputs() == 0) return false;
  if (n->op() == "Placeholder") return false;
  if (!colocation_targets.empty() && colocation_targets.count(n->name())) return false;
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (IsRefType(n->input_type(i))) return false;
  }
  for (int i = 0; i < n->num_outputs(); ++i) {
    if (IsRefType(n->output_type(i))) return false;
  }
  return true;
}

struct Candidate {
  Node* node;
  Inputs inputs;
};

bool Equivalent(const Candidate& a, const Node* b, const Inputs& b_in) {
  const Node* an = a.node;
  return an->op() == b->op() && an->requested_device() == b->requested_device() &&
         an->assigned_device() == b->assigned_device() && a.inputs.data == b_in.data &&
         a.inputs.control == b_in.control && an->attrs() == b->attrs();
}

// Gives `keep` every consumer of `gone`, port for port. Both nodes have the
// same op and attrs, hence the same output types, so AddEdge cannot fail.
void RewireConsumers(Graph* graph, Node* gone, Node* keep) {
  const std::vector<const Edge*> outs = gone->out_edges();  // copied: edited below
  for (const Edge* e : outs) {
    Node* dst = e->dst;
    if (e->IsControlEdge()) {
      graph->RemoveEdge(e);
      graph->AddControlEdge(keep, dst);
    } else {
      const int src_output = e->src_output, dst_input = e->dst_input;
      graph->RemoveEdge(e);
      (void)graph->AddEdge(keep, src_output, dst, dst_input);
    }
  }
}

}  // namespace

int EliminateCommonSubexpressions(Graph* graph) {
  StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return 0;
  // Visiting in topological order means a node's inputs were canonicalised
  // before it is hashed, so chains of duplicates collapse in one pass.
  const std::unordered_set<std::string> colocation_targets = ColocationTargets(*graph);
  std::unordered_map<size_t, std::vector<Candidate>> seen;
  seen.reserve(order->size());
  int removed = 0;
  for (Node* n : *order) {
    if (!MayMerge(n, colocation_targets)) continue;
    Inputs in = GatherInputs(n);
    std::vector<Candidate>& bucket = seen[HashNode(n, in)];
    Node* keep = nullptr;
    for (const Candidate& c : bucket) {
      if (Equivalent(c, n, in)) {
        keep = c.node;
        break;
      }
    }
    if (keep == nullptr) {
      bucket.push_back(Candidate{n, std::move(in)});
      continue;
    }
    RewireConsumers(graph, n, keep);
    graph->RemoveNode(n);
    ++removed;
  }
  return removed;
}

}  // namespace tact
