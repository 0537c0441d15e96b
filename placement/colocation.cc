#include "placement/colocation.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "kernels/kernel_registry.h"
#include "placement/prefetch.h"

namespace tact {
namespace {

constexpr char kColocationAttr[] = "_class";
constexpr char kColocationPrefix[] = "loc:@";

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n), size_(n, 1) {
    for (int i = 0; i < n; ++i) parent_[i] = i;
  }
  int Find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];  // path halving
      x = parent_[x];
    }
    return x;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
  }

 private:
  std::vector<int> parent_, size_;
};

// The nodes that `node`'s `_class` attr names and the graph has.
StatusOr<std::vector<const Node*>> ColocationHints(const Graph& graph, const Node& node) {
  std::vector<const Node*> out;
  auto it = node.attrs().find(kColocationAttr);
  if (it == node.attrs().end()) return out;
  if (it->second.kind() != AttrValue::Kind::kStringList) {
    return errors::InvalidArgument(node.ErrorPrefix(), "attr '", kColocationAttr,
                                   "' must be a list of strings \"loc:@node\", not ",
                                   it->second.DebugString());
  }
  for (const std::string& s : it->second.list_s()) {
    // Other entries are not colocation (TensorFlow's convention); a name
    // the graph lacks was pruned away (placer.h).
    if (s.rfind(kColocationPrefix, 0) != 0) continue;
    if (const Node* other = graph.FindNode(s.substr(sizeof(kColocationPrefix) - 1))) {
      out.push_back(other);
    }
  }
  return out;
}

bool IsRefInput(const Node& node, const Edge& e) {
  return !e.IsControlEdge() && IsRefType(node.input_type(e.dst_input));
}

// Device types that have a kernel for `node`, as a bit mask over
// devices.types().
uint64_t KernelTypeMask(const Node& node, const DeviceList& devices) {
  const KernelRegistry* reg = KernelRegistry::Global();
  uint64_t mask = 0;
  for (size_t t = 0; t < devices.types().size(); ++t) {
    if (reg->HasKernel(devices.types()[t], *node.properties())) mask |= uint64_t{1} << t;
  }
  return mask;
}

// KernelTypeMask, remembered per (op, dtype attrs): nodes of one op and
// dtypes select the same kernels (KernelRegistry matches on type attrs
// only), and an Inception-sized graph has a few hundred such pairs among
// tens of thousands of nodes.
class KernelMaskCache {
 public:
  explicit KernelMaskCache(const DeviceList& devices) : devices_(devices) {}

  uint64_t Get(const Node& node) {
    key_.op = &node.op_def();
    key_.types.clear();
    for (const auto& [name, value] : node.attrs()) {
      if (value.kind() == AttrValue::Kind::kType) {
        key_.types.push_back(value.type());
      } else if (value.kind() == AttrValue::Kind::kTypeList) {
        key_.types.push_back(static_cast<int>(value.list_type().size()) + 1000);
        for (DataType t : value.list_type()) key_.types.push_back(t);
      }
    }
    auto it = masks_.find(key_);
    if (it != masks_.end()) return it->second;
    const uint64_t mask = KernelTypeMask(node, devices_);
    masks_.emplace(key_, mask);
    return mask;
  }

 private:
  struct Key {
    const OpDef* op = nullptr;
    std::vector<int> types;
    bool operator==(const Key& o) const { return op == o.op && types == o.types; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = std::hash<const void*>()(k.op);
      for (int t : k.types) h = h * 1000003u ^ static_cast<size_t>(t);
      return h;
    }
  };
  const DeviceList& devices_;
  Key key_;  // scratch: lookups allocate nothing
  std::unordered_map<Key, uint64_t, KeyHash> masks_;
};

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string Quote(const Node& n) { return "'" + n.name() + "' (" + n.op() + ")"; }

// What the message says about one member of an infeasible group.
std::string DescribeMember(const Graph& graph, const Node& n) {
  std::string s = "  '" + n.name() + "' (op " + n.op() + "): requested device ";
  s += n.requested_device().empty() ? "none" : "'" + n.requested_device() + "'";
  std::vector<std::string> types = KernelRegistry::Global()->SupportedDeviceTypes(*n.properties());
  std::sort(types.begin(), types.end());  // registration order is the linker's
  if (types.empty()) {
    std::vector<std::string> registered;
    for (const KernelDef* k : KernelRegistry::Global()->KernelsFor(n.op())) {
      registered.push_back(k->DebugString());
    }
    s += "; NO kernel fits its attrs on any device type (registered: " +
         (registered.empty() ? std::string("none") : Join(registered, ", ")) + ")";
  } else {
    s += "; kernels for " + Join(types, ", ");
  }
  std::vector<std::string> why;
  auto hints = ColocationHints(graph, n);
  if (hints.ok()) {
    for (const Node* h : *hints) why.push_back("colocated with '" + h->name() + "' by _class");
  }
  for (const Edge* e : n.in_edges()) {
    if (IsRefInput(n, *e)) why.push_back("takes a reference to '" + e->src->name() + "'");
  }
  if (!why.empty()) s += "; " + Join(why, ", ");
  return s;
}

// Up to `limit` names, then "and N more".
std::string ListSome(const std::vector<std::string>& v, size_t limit) {
  std::vector<std::string> head(v.begin(), v.begin() + std::min(limit, v.size()));
  std::string s = Join(head, ", ");
  if (v.size() > limit) s += " and " + std::to_string(v.size() - limit) + " more";
  return s;
}

Status InfeasibleError(const Graph& graph, const DeviceList& devices,
                       const std::vector<int>& members, int culprit, bool soft) {
  const Node& bad = *graph.node(culprit);
  std::string msg = "cannot place node '" + bad.name() + "' (op '" + bad.op() + "'): ";
  msg += members.size() == 1
             ? "no device satisfies its requested device and has a kernel for it."
             : "no device satisfies every member of its colocation group (" +
                   std::to_string(members.size()) + " nodes that must share one device).";
  // Members with a constraint of their own first: they are the ones to fix.
  std::vector<const Node*> listed;
  const uint64_t all_types = devices.types().size() >= 64
                                 ? ~uint64_t{0}
                                 : (uint64_t{1} << devices.types().size()) - 1;
  for (int id : members) {
    const Node* n = graph.node(id);
    if (!n->requested_device().empty() || KernelTypeMask(*n, devices) != all_types) {
      listed.push_back(n);
    }
  }
  const size_t constrained = listed.size();
  for (int id : members) {
    const Node* n = graph.node(id);
    if (n->requested_device().empty() && KernelTypeMask(*n, devices) == all_types) {
      listed.push_back(n);
    }
  }
  constexpr size_t kMaxMembers = 40;
  msg += members.size() == 1 ? "\nThe node:" : "\nColocation group:";
  for (size_t i = 0; i < listed.size() && i < kMaxMembers; ++i) {
    msg += '\n';
    msg += DescribeMember(graph, *listed[i]);
  }
  if (listed.size() > kMaxMembers) {
    msg += "\n  ... and " + std::to_string(listed.size() - kMaxMembers) + " more" +
           (constrained <= kMaxMembers ? " with no requested device and kernels everywhere" : "");
  }

  // Every device, with what excludes it.
  msg += "\nDevices (" + std::to_string(devices.size()) + "):";
  constexpr int kMaxDevices = 32;
  bool some_kernel_fit = false;
  for (int d = 0; d < devices.size() && d < kMaxDevices; ++d) {
    std::vector<std::string> no_kernel, not_requested;
    for (int id : members) {
      const Node* n = graph.node(id);
      if (!((KernelTypeMask(*n, devices) >> devices.type_of(d)) & 1)) {
        no_kernel.push_back(Quote(*n));
      }
      if (!n->requested_device().empty()) {
        auto spec = DeviceName::Parse(n->requested_device());
        if (spec.ok() && !spec->Matches(devices.parsed(d))) {
          not_requested.push_back("'" + n->name() + "' requests '" + n->requested_device() + "'");
        }
      }
    }
    if (no_kernel.empty()) some_kernel_fit = true;
    msg += "\n  " + devices.name(d) + ": ";
    std::vector<std::string> why;
    if (!no_kernel.empty()) why.push_back("no " + devices.types()[devices.type_of(d)] +
                                          " kernel for " + ListSome(no_kernel, 4));
    if (!not_requested.empty()) why.push_back(ListSome(not_requested, 4));
    msg += why.empty() ? "fits (should not happen)" : Join(why, "; ");
  }
  if (devices.size() > kMaxDevices) {
    msg += "\n  ... and " + std::to_string(devices.size() - kMaxDevices) + " more devices";
  }
  msg += "\nTo fix: ";
  if (some_kernel_fit && !soft) {
    msg += "change or remove the requested devices above, or remove a colocation "
           "(Scope::ColocateWith, the _class attr), or set allow_soft_placement "
           "(SessionOptions; `tact run --allow-soft-placement`) to place the "
           "group on a device with kernels for all of it.";
  } else {
    msg += "no device type in the list has kernels for every member: add a device of a "
           "type that does, change the dtype of the members without kernels, or remove a "
           "colocation.";
  }
  return errors::InvalidArgument(msg);
}

// Per-node device sets, cached: by kernel type mask (few distinct ones) and
// by requested-device string (parsed once each).
class SetCache {
 public:
  explicit SetCache(const DeviceList& devices) : devices_(devices), words_(devices.words()) {
    all_.resize(words_);
    device_set::Fill(all_.data(), words_, devices.size());
  }

  const uint64_t* ForKernelMask(uint64_t mask) {
    for (const auto& [m, set] : by_mask_) {
      if (m == mask) return set;
    }
    uint64_t* set = NewSet();
    for (int d = 0; d < devices_.size(); ++d) {
      if ((mask >> devices_.type_of(d)) & 1) device_set::Add(set, d);
    }
    by_mask_.emplace_back(mask, set);
    return set;
  }

  StatusOr<const uint64_t*> ForRequest(const Node& node) {
    const std::string& req = node.requested_device();
    if (req.empty()) return all_.data();
    auto it = by_request_.find(req);
    if (it != by_request_.end()) return it->second;
    auto spec = DeviceName::Parse(req);
    if (!spec.ok()) {
      return errors::InvalidArgument(node.ErrorPrefix(), "bad requested device: ",
                                     spec.status().message());
    }
    uint64_t* set = NewSet();
    for (int d = 0; d < devices_.size(); ++d) {
      if (spec->Matches(devices_.parsed(d))) device_set::Add(set, d);
    }
    by_request_.emplace(req, set);
    return set;
  }

 private:
  // A deque of fixed-size vectors: the sets handed out never move.
  uint64_t* NewSet() { return sets_.emplace_back(words_, 0).data(); }
  const DeviceList& devices_;
  const int words_;
  std::vector<uint64_t> all_;
  std::deque<std::vector<uint64_t>> sets_;
  std::vector<std::pair<uint64_t, const uint64_t*>> by_mask_;
  std::unordered_map<std::string, const uint64_t*> by_request_;
};

// Members of every group, in node id order (CSR).
struct Members {
  std::vector<int> start, ids;
  std::vector<int> Of(int g) const {
    return std::vector<int>(ids.begin() + start[g], ids.begin() + start[g + 1]);
  }
};

Members GroupMembers(const ColocationGroups& g) {
  Members m;
  m.start.assign(g.num_groups + 1, 0);
  for (int grp : g.group_of) {
    if (grp >= 0) ++m.start[grp + 1];
  }
  for (int i = 0; i < g.num_groups; ++i) m.start[i + 1] += m.start[i];
  m.ids.resize(m.start[g.num_groups]);
  std::vector<int> next(m.start.begin(), m.start.end() - 1);
  for (int id = 0; id < static_cast<int>(g.group_of.size()); ++id) {
    if (g.group_of[id] >= 0) m.ids[next[g.group_of[id]]++] = id;
  }
  return m;
}

}  // namespace

StatusOr<ColocationGroups> BuildColocationGroups(const Graph& graph, const FlatGraph& flat,
                                                 const DeviceList& devices,
                                                 bool allow_soft_placement) {
  if (devices.types().size() > 64) {
    return errors::InvalidArgument("more than 64 device types (", devices.types().size(), ")");
  }
  const int n_ids = graph.num_node_ids();
  // The one walk over the nodes' attrs: the unions, and what the
  // feasibility pass below needs of each node, into flat arrays (that pass
  // then reads no Node or attr map: on a large graph each walk over those
  // costs a cache miss per step, whatever it computes). A malformed requested
  // device is reported only in the second pass, as it always was, so that
  // a `_class` error anywhere comes first.
  UnionFind uf(n_ids);
  SetCache cache(devices);
  KernelMaskCache kernel_masks(devices);
  std::vector<const uint64_t*> requested(n_ids, nullptr);  // null: malformed
  std::vector<const uint64_t*> kernels(n_ids, nullptr);
  std::vector<int> pre_assigned;  // ids of nodes with an assigned device
  for (int id = 0; id < n_ids; ++id) {
    PrefetchNode(graph, id + kPrefetchDistance);
    const Node* node = graph.node(id);
    if (node == nullptr) continue;
    TACT_ASSIGN_OR_RETURN(std::vector<const Node*> hints, ColocationHints(graph, *node));
    for (const Node* h : hints) uf.Union(id, h->id());
    for (const FlatGraph::InEdge* e = flat.in_begin(id); e != flat.in_end(id); ++e) {
      if (e->ref) uf.Union(id, e->src);
    }
    StatusOr<const uint64_t*> req = cache.ForRequest(*node);
    if (req.ok()) requested[id] = *req;
    kernels[id] = cache.ForKernelMask(kernel_masks.Get(*node));
    if (!node->assigned_device().empty()) pre_assigned.push_back(id);
  }

  ColocationGroups g;
  g.group_of.assign(n_ids, -1);
  std::vector<int> group_of_root(n_ids, -1);
  for (int id = 0; id < n_ids; ++id) {
    if (kernels[id] == nullptr) continue;  // no live node
    const int root = uf.Find(id);
    if (group_of_root[root] < 0) group_of_root[root] = g.num_groups++;
    g.group_of[id] = group_of_root[root];
  }

  const int words = devices.words();
  g.words = words;
  g.feasible.resize(size_t(g.num_groups) * words);
  std::vector<uint64_t> kernels_only(g.feasible.size());
  for (int grp = 0; grp < g.num_groups; ++grp) {
    device_set::Fill(&g.feasible[size_t(grp) * words], words, devices.size());
    device_set::Fill(&kernels_only[size_t(grp) * words], words, devices.size());
  }
  g.assigned.assign(g.num_groups, -1);
  std::vector<int> culprit(g.num_groups, -1);  // the member that emptied the set
  auto next_assigned = pre_assigned.begin();
  for (int id = 0; id < n_ids; ++id) {
    const int grp = g.group_of[id];
    if (grp < 0) continue;
    if (next_assigned != pre_assigned.end() && *next_assigned == id) {
      ++next_assigned;
      const Node* node = graph.node(id);
      const int d = devices.Find(node->assigned_device());
      if (d < 0) {
        return errors::InvalidArgument(node->ErrorPrefix(), "already assigned to device '",
                                       node->assigned_device(),
                                       "', which is not among the devices to place on");
      }
      if (g.assigned[grp] >= 0 && g.assigned[grp] != d) {
        return errors::InvalidArgument(
            node->ErrorPrefix(), "already assigned to '", node->assigned_device(),
            "' but its colocation group is already assigned to '", devices.name(g.assigned[grp]),
            "'");
      }
      g.assigned[grp] = d;
    }
    if (requested[id] == nullptr) return cache.ForRequest(*graph.node(id)).status();
    uint64_t* f = &g.feasible[size_t(grp) * words];
    device_set::IntersectWith(f, kernels[id], words);
    device_set::IntersectWith(f, requested[id], words);
    device_set::IntersectWith(&kernels_only[size_t(grp) * words], kernels[id], words);
    if (culprit[grp] < 0 && device_set::Empty(f, words)) culprit[grp] = id;
  }

  Members members;  // built when first needed
  for (int grp = 0; grp < g.num_groups; ++grp) {
    uint64_t* f = &g.feasible[size_t(grp) * words];
    // A pre-assigned group goes where it was assigned, feasible or not: the
    // caller (the partitioner adding Send/Recv, a user) decided.
    if (g.assigned[grp] >= 0 || !device_set::Empty(f, words)) continue;
    if (members.start.empty()) members = GroupMembers(g);
    const uint64_t* k = &kernels_only[size_t(grp) * words];
    if (!allow_soft_placement || device_set::Empty(k, words)) {
      return InfeasibleError(graph, devices, members.Of(grp), culprit[grp], allow_soft_placement);
    }
    std::copy(k, k + words, f);
    for (int id : members.Of(grp)) {
      if (!graph.node(id)->requested_device().empty()) {
        g.soft_placed_nodes.push_back(graph.node(id)->name());
      }
    }
  }
  return g;
}

}  // namespace tact
