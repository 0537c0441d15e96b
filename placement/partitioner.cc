#include "placement/partitioner.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "devices/device_name.h"
#include "placement/loop_control.h"
#include "placement/prefetch.h"
#include "placement/recv_schedule.h"

namespace tact {
namespace {

// Port -1 stands for a control edge: its pair carries a dummy scalar.
constexpr int kControlPort = -1;

struct PairKey {
  int src;   // node id
  int port;  // output, or kControlPort
  int dst_device;
  bool operator==(const PairKey& o) const {
    return src == o.src && port == o.port && dst_device == o.dst_device;
  }
  size_t Hash() const {
    return (static_cast<size_t>(src) * 1000003u + static_cast<size_t>(port + 1)) * 8191u +
           static_cast<size_t>(dst_device);
  }
};

// One Send/Recv pair. Its receiving end is named by where its NodeDefs sit
// in the destination partition, not by a copy of their names: a pair is
// made for most cut edges of a large graph, and every string it owned was
// one more allocation and free inside Partition().
struct Pair {
  PairKey key;
  int recv_index;   // the _Recv (or a Const's copy), in the destination partition's nodes
  int input_index;  // what consumers read: the _Recv, or the _ExpandFromUpper16
  int need = 0;     // earliest ALAP level among its consumers
  bool copy = false;  // a duplicated Const: no _Recv, nothing to schedule
};

// The pairs by key: open addressing over indices into a vector, sized once
// for every crossing edge. std::unordered_map allocated a node per pair.
class PairTable {
 public:
  void Reserve(size_t n) {
    size_t slots = 16;
    while (slots < 2 * n) slots *= 2;
    slots_.assign(slots, -1);
    pairs_.reserve(n);
  }
  // The pair of `key`, or nullptr.
  Pair* Find(const PairKey& key) {
    for (size_t i = Slot(key);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] < 0) return nullptr;
      if (pairs_[slots_[i]].key == key) return &pairs_[slots_[i]];
    }
  }
  // Adds a pair whose key is not in the table yet.
  Pair& Add(const Pair& pair) {
    if (2 * (pairs_.size() + 1) > slots_.size()) Grow();
    size_t i = Slot(pair.key);
    while (slots_[i] >= 0) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = static_cast<int>(pairs_.size());
    pairs_.push_back(pair);
    return pairs_.back();
  }
  // In creation order.
  std::vector<Pair>& pairs() { return pairs_; }

 private:
  size_t Slot(const PairKey& key) const {
    return (key.Hash() * 0x9E3779B97F4A7C15ull >> 20) & (slots_.size() - 1);
  }
  void Grow() {
    slots_.assign(std::max<size_t>(16, 2 * slots_.size()), -1);
    for (size_t p = 0; p < pairs_.size(); ++p) {
      size_t i = Slot(pairs_[p].key);
      while (slots_[i] >= 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = static_cast<int>(p);
    }
  }
  std::vector<int> slots_;  // index into pairs_, or -1
  std::vector<Pair> pairs_;
};

// "<src>" for output 0, "<src>:<port>" otherwise, appended to `out`.
void AppendTensor(const Node* src, int port, std::string* out) {
  out->append(src->name());
  if (port != 0) {
    out->push_back(':');
    out->append(std::to_string(port));
  }
}

std::string TensorString(const Node* src, int port) {
  std::string s;
  s.reserve(src->name().size() + 4);
  AppendTensor(src, port, &s);
  return s;
}

// a + b + c in one allocation (operator+ chains reallocate on the way).
std::string Concat(const std::string& a, const char* b, const std::string& c) {
  std::string s;
  s.reserve(a.size() + std::char_traits<char>::length(b) + c.size());
  s.append(a).append(b).append(c);
  return s;
}

class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options)
      : graph_(graph), options_(options) {}

  StatusOr<PartitionResult> Run();

 private:
  // Device indices of every node, and room reserved for what each
  // partition will hold (big vectors that grow by doubling cost copies).
  Status AssignDeviceIndices();
  // The index of a full device name, added if new. Graphs are placed on a
  // few devices: a scan of those beats hashing a 40-character name per node.
  int DeviceIndex(const std::string& name);
  // Sets `*input` to what a consumer on `dst_device` uses for src:port
  // (kControlPort: the "^..." control input), creating the pair on first use.
  Status CrossInput(const Edge* e, int dst_device, std::string* input);
  Pair& MakePair(const Node* src, int port, int dst_device);
  // Whether src:port is a Const that DuplicateConst may copy to dst_device.
  bool Duplicable(const Node* src, int port, int dst_device);
  // Adds the copy of Const `src` in dst_device's partition, as a pair whose
  // consumers read the copy.
  Pair& DuplicateConst(const Node* src, int dst_device);
  // What pair number `k` sends, with the nodes that make it on the source
  // device (a control edge's dummy, a lossy tensor's truncation).
  struct Payload {
    std::string input;   // the _Send's input
    std::string tensor;  // "src:port" or "^src", for the tensor_name
    std::string suffix;  // of the generated names: "<port>_<k>" or "ctrl_<k>"
    DataType type = DT_INVALID;  // on the wire
    bool lossy = false;
  };
  Payload MakePayload(const Node* src, int port, int dst_device, const std::string& k);
  // A name under `src` not taken in the graph. Generated names are unique
  // among themselves by construction (each holds the pair's number k), and
  // all contain "/_": the graph is searched only if one of its names does.
  std::string FreeName(std::string name) const;
  bool Lossy(int src_device, int dst_device) const;
  NodeDef& Append(int device, NodeDef def) {
    parts_[device].nodes.push_back(std::move(def));
    return parts_[device].nodes.back();
  }
  // The attrs of a pair's _Send (`type_attr` "T") or _Recv ("tensor_type"),
  // built in key order so that every insert lands at the end of the map.
  AttrMap EndpointAttrs(const std::string& tensor_name, int src_device, int dst_device,
                        const char* type_attr, DataType type) const;
  // A pair's _Send and _Recv attrs differ from those of every other pair
  // between the same devices with the same dtype only in tensor_name. They
  // are built once per (src, dst, dtype) and copied: a copy of a map
  // allocates as many nodes but compares no keys and rebalances nothing,
  // and building the two maps was a third of Partition() on 36,000 nodes.
  struct Endpoints {
    AttrMap send, recv;
  };
  const Endpoints& EndpointPrototype(int src_device, int dst_device, DataType type);
  Status ScheduleRecvs();

  const Graph& graph_;
  const PartitionOptions& options_;
  std::vector<std::string> devices_;  // index -> full name
  std::unordered_map<std::string, int> device_index_;  // once devices_ is long
  std::vector<int> device_of_;        // node id -> index
  // index -> type, parsed when first needed ("" not yet); a name without a
  // type gets "?<name>", which equals no other device's.
  std::vector<std::string> device_types_;
  std::vector<GraphDef> parts_;       // by device index
  bool names_may_collide_ = false;    // some node name contains "/_"
  PairTable pairs_;
  // Every crossing edge as (its pair's index, the consumer's id), for the
  // scheduling pass: no second walk over the graph's edges.
  std::vector<std::pair<int, int>> consumers_;
  // (src id << 32 | port) -> its _TruncateToUpper16 node's name.
  std::unordered_map<uint64_t, std::string> truncated_;
  // By (src device, dst device, dtype); tensor_name is left empty.
  std::unordered_map<uint64_t, Endpoints> endpoints_;
  PartitionResult result_;
};

int Partitioner::DeviceIndex(const std::string& name) {
  constexpr size_t kScanned = 16;
  if (devices_.size() <= kScanned) {
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (devices_[d] == name) return static_cast<int>(d);
    }
  } else {
    auto it = device_index_.find(name);
    if (it != device_index_.end()) return it->second;
  }
  const int d = static_cast<int>(devices_.size());
  devices_.push_back(name);
  if (devices_.size() == kScanned + 1) {
    for (int i = 0; i <= d; ++i) device_index_.emplace(devices_[i], i);
  } else if (devices_.size() > kScanned) {
    device_index_.emplace(name, d);
  }
  return d;
}

Status Partitioner::AssignDeviceIndices() {
  device_of_.assign(graph_.num_node_ids(), -1);
  // Each crossing edge adds at most a Send (and a truncation or a dummy)
  // to its source's partition and a Recv (and an expansion) to its
  // destination's. Counted in the same walk as the devices (one touch of
  // each node, not two): an edge from a node not reached yet (a higher id;
  // none in a builder-made graph) is counted after the walk.
  std::vector<size_t> size;
  size_t crossing = 0;
  auto count = [&](int src_device, int dst_device) {
    if (src_device == dst_device) return;
    ++crossing;
    size[src_device] += 2;
    size[dst_device] += 2;
  };
  std::vector<const Edge*> later;
  int last = -1;
  for (int id = 0; id < graph_.num_node_ids(); ++id) {
    PrefetchNode(graph_, id + kPrefetchDistance);
    const Node* n = graph_.node(id);
    if (n == nullptr) continue;
    if (n->assigned_device().empty()) {
      return errors::InvalidArgument(n->ErrorPrefix(),
                                     "has no assigned device; place the graph before "
                                     "partitioning it");
    }
    // Neighbours by id usually share a device: compare with the last one
    // before looking further.
    if (last < 0 || n->assigned_device() != devices_[last]) {
      last = DeviceIndex(n->assigned_device());
      size.resize(devices_.size(), 0);
    }
    device_of_[id] = last;
    names_may_collide_ = names_may_collide_ || n->name().find("/_") != std::string::npos;
    ++size[last];
    for (const Edge* e : n->in_edges()) {
      const int src = device_of_[e->src->id()];
      if (src < 0) {
        later.push_back(e);
      } else {
        count(src, last);
      }
    }
  }
  for (const Edge* e : later) count(device_of_[e->src->id()], device_of_[e->dst->id()]);
  parts_.resize(devices_.size());
  for (size_t d = 0; d < parts_.size(); ++d) parts_[d].nodes.reserve(size[d]);
  pairs_.Reserve(crossing);
  return Status::OK();
}

bool Partitioner::Lossy(int src_device, int dst_device) const {
  if (options_.lossy_float_transfer) return true;
  return !options_.lossy_float_transfer_pairs.empty() &&
         options_.lossy_float_transfer_pairs.count({devices_[src_device], devices_[dst_device]});
}

std::string Partitioner::FreeName(std::string name) const {
  while (names_may_collide_ && graph_.FindNode(name) != nullptr) name += "_";
  return name;
}

AttrMap Partitioner::EndpointAttrs(const std::string& tensor_name, int src_device,
                                   int dst_device, const char* type_attr, DataType type) const {
  auto inc = options_.incarnations.find(devices_[src_device]);
  const uint64_t incarnation = inc == options_.incarnations.end() ? 0 : inc->second;
  // Keys in increasing order ("T" < "client_terminated" < ... < "tensor_name"
  // < "tensor_type"), each inserted at the end: no comparisons, no rebalancing
  // walk, and no second map to copy from.
  const bool type_first = type_attr[0] == 'T';
  AttrMap a;
  if (type_first) a.emplace_hint(a.end(), type_attr, AttrValue::Type(type));
  a.emplace_hint(a.end(), "client_terminated", AttrValue::Bool(false));
  a.emplace_hint(a.end(), "recv_device", AttrValue::String(devices_[dst_device]));
  a.emplace_hint(a.end(), "send_device", AttrValue::String(devices_[src_device]));
  a.emplace_hint(a.end(), "send_device_incarnation",
                 AttrValue::Int(static_cast<int64_t>(incarnation)));
  a.emplace_hint(a.end(), "tensor_name", AttrValue::String(tensor_name));
  if (!type_first) a.emplace_hint(a.end(), type_attr, AttrValue::Type(type));
  return a;
}

const Partitioner::Endpoints& Partitioner::EndpointPrototype(int src_device, int dst_device,
                                                              DataType type) {
  const uint64_t key = (static_cast<uint64_t>(src_device) << 40) |
                       (static_cast<uint64_t>(dst_device) << 16) | static_cast<uint64_t>(type);
  auto it = endpoints_.find(key);
  if (it == endpoints_.end()) {
    Endpoints e{EndpointAttrs("", src_device, dst_device, "T", type),
                EndpointAttrs("", src_device, dst_device, "tensor_type", type)};
    it = endpoints_.emplace(key, std::move(e)).first;
  }
  return it->second;
}

Partitioner::Payload Partitioner::MakePayload(const Node* src, int port, int dst_device,
                                              const std::string& k) {
  const int src_device = device_of_[src->id()];
  Payload p;
  if (port == kControlPort) {
    // The dummy runs after the control source on its device; its arrival
    // on the destination is the control edge.
    ++result_.control_pairs;
    NodeDef c;
    c.name = FreeName(src->name() + "/_ctrl_" + k);
    c.op = "Const";
    c.device = devices_[src_device];
    c.inputs = {"^" + src->name()};
    c.attrs["dtype"] = AttrValue::Type(DT_INT32);
    c.attrs["value"] = AttrValue::FromTensor(Tensor::Scalar<int32_t>(0));
    p.input = c.name;
    p.tensor = "^" + src->name();
    p.suffix = "ctrl_" + k;
    p.type = DT_INT32;
    Append(src_device, std::move(c));
    return p;
  }
  p.input = p.tensor = TensorString(src, port);
  p.suffix = std::to_string(port) + "_" + k;
  p.type = BaseType(src->output_type(port));
  p.lossy = p.type == DT_FLOAT && Lossy(src_device, dst_device);
  if (!p.lossy) return p;
  // One truncation per tensor, shared by every lossy destination.
  ++result_.lossy_pairs;
  const uint64_t key = (static_cast<uint64_t>(src->id()) << 32) | static_cast<uint32_t>(port);
  auto it = truncated_.find(key);
  if (it == truncated_.end()) {
    NodeDef t;
    t.name = FreeName(src->name() + "/_truncate16_" + std::to_string(port));
    t.op = "_TruncateToUpper16";
    t.device = devices_[src_device];
    t.inputs = {p.input};
    it = truncated_.emplace(key, t.name).first;
    Append(src_device, std::move(t));
  }
  p.input = it->second;
  p.type = DT_BFLOAT16;
  return p;
}

Pair& Partitioner::MakePair(const Node* src, int port, int dst_device) {
  const int k = result_.send_recv_pairs++;
  const int src_device = device_of_[src->id()];
  Payload p = MakePayload(src, port, dst_device, std::to_string(k));
  std::string tensor_name = "edge_";
  tensor_name.reserve(tensor_name.size() + 12 + p.tensor.size());
  tensor_name.append(std::to_string(k)).append("_").append(p.tensor);

  NodeDef send;
  send.name = FreeName(Concat(src->name(), "/_send_", p.suffix));
  send.op = "_Send";
  send.device = devices_[src_device];
  send.inputs.push_back(std::move(p.input));
  const Endpoints& endpoints = EndpointPrototype(src_device, dst_device, p.type);
  send.attrs = endpoints.send;
  send.attrs.find("tensor_name")->second = AttrValue::String(tensor_name);
  Append(src_device, std::move(send));

  NodeDef recv;
  recv.name = FreeName(Concat(src->name(), "/_recv_", p.suffix));
  recv.op = "_Recv";
  recv.device = devices_[dst_device];
  recv.attrs = endpoints.recv;
  recv.attrs.find("tensor_name")->second = AttrValue::String(std::move(tensor_name));
  Pair pair;
  pair.key = PairKey{src->id(), port, dst_device};
  pair.recv_index = static_cast<int>(parts_[dst_device].nodes.size());
  pair.input_index = pair.recv_index;
  const NodeDef& appended = Append(dst_device, std::move(recv));
  if (p.lossy) {
    NodeDef x;
    x.name = FreeName(Concat(src->name(), "/_expand16_", p.suffix));
    x.op = "_ExpandFromUpper16";
    x.device = devices_[dst_device];
    x.inputs.push_back(appended.name);
    pair.input_index = static_cast<int>(parts_[dst_device].nodes.size());
    Append(dst_device, std::move(x));
  }
  return pairs_.Add(pair);
}

bool Partitioner::Duplicable(const Node* src, int port, int dst_device) {
  if (port != 0 || !CopiedToReaders(*src, options_.duplicate_const_max_bytes)) return false;
  // A kernel of the source's device type computes it; another type might
  // have none, or keep the value in another memory.
  device_types_.resize(devices_.size());
  for (int d : {device_of_[src->id()], dst_device}) {
    if (!device_types_[d].empty()) continue;
    StatusOr<DeviceName> name = DeviceName::Parse(devices_[d]);
    device_types_[d] = name.ok() && name->has_type ? name->type : "?" + devices_[d];
  }
  return device_types_[device_of_[src->id()]] == device_types_[dst_device];
}

Pair& Partitioner::DuplicateConst(const Node* src, int dst_device) {
  ++result_.duplicated_consts;
  NodeDef c;
  c.name = FreeName(Concat(src->name(), "/_dup_", std::to_string(dst_device)));
  c.op = "Const";
  c.device = devices_[dst_device];
  c.attrs = src->attrs();
  Pair pair;
  pair.key = PairKey{src->id(), 0, dst_device};
  pair.recv_index = pair.input_index = static_cast<int>(parts_[dst_device].nodes.size());
  pair.copy = true;
  Append(dst_device, std::move(c));
  return pairs_.Add(pair);
}

Status Partitioner::CrossInput(const Edge* e, int dst_device, std::string* input) {
  const int port = e->IsControlEdge() ? kControlPort : e->src_output;
  if (port != kControlPort && IsRefType(e->dst->input_type(e->dst_input))) {
    return errors::InvalidArgument(
        e->dst->ErrorPrefix(), "input ", e->dst_input, " takes the reference '",
        TensorString(e->src, port), "' (", DataTypeString(e->src->output_type(port)),
        ") across devices, from ", e->src->assigned_device(), " to ", e->dst->assigned_device(),
        "; a Variable and the ops that update it must be placed together");
  }
  Pair* pair = pairs_.Find(PairKey{e->src->id(), port, dst_device});
  if (pair == nullptr) {
    pair = Duplicable(e->src, port, dst_device) ? &DuplicateConst(e->src, dst_device)
                                                 : &MakePair(e->src, port, dst_device);
  }
  if (options_.schedule_recvs && !pair->copy) {
    consumers_.emplace_back(static_cast<int>(pair - pairs_.pairs().data()), e->dst->id());
  }
  const std::string& name = parts_[dst_device].nodes[pair->input_index].name;
  if (port == kControlPort) {
    input->reserve(name.size() + 1);
    input->push_back('^');
  }
  input->append(name);
  return Status::OK();
}

Status Partitioner::ScheduleRecvs() {
  const int num_devices = static_cast<int>(devices_.size());
  TACT_ASSIGN_OR_RETURN(RecvSchedule schedule,
                        RecvSchedule::Compute(graph_, device_of_, num_devices));
  // need: the earliest ALAP level among each pair's consumers.
  std::vector<Pair>& pairs = pairs_.pairs();
  for (Pair& pair : pairs) pair.need = schedule.depth() + 1;
  for (auto& [pair, consumer] : consumers_) {
    pairs[pair].need = std::min(pairs[pair].need, schedule.alap(consumer));
  }
  for (const Pair& pair : pairs) {
    if (pair.copy) continue;
    const PairKey& key = pair.key;
    const int gate = schedule.Gate(key.dst_device, pair.need, options_.recv_lead_levels,
                                   schedule.asap(key.src));
    if (gate < 0) continue;
    NodeDef& recv = parts_[key.dst_device].nodes[pair.recv_index];
    recv.inputs.push_back("^" + graph_.node(gate)->name());
    ++result_.scheduled_recvs;
  }
  return Status::OK();
}

StatusOr<PartitionResult> Partitioner::Run() {
  TACT_RETURN_IF_ERROR(AssignDeviceIndices());
  for (int id = 0; id < graph_.num_node_ids(); ++id) {
    PrefetchNode(graph_, id + kPrefetchDistance);
    const Node* n = graph_.node(id);
    if (n == nullptr) continue;
    const int d = device_of_[id];
    NodeDef nd;
    nd.name = n->name();
    nd.op = n->op();
    nd.device = devices_[d];
    nd.attrs = n->attrs();
    nd.inputs.reserve(n->in_edges().size());
    nd.inputs.resize(n->num_inputs());
    // Data inputs by port, then control inputs in edge order; pairs are
    // numbered in edge order.
    for (const Edge* e : n->in_edges()) {
      const bool control = e->IsControlEdge();
      std::string* input = control ? &nd.inputs.emplace_back() : &nd.inputs[e->dst_input];
      if (device_of_[e->src->id()] != d) {
        TACT_RETURN_IF_ERROR(CrossInput(e, d, input));
      } else if (control) {
        input->reserve(e->src->name().size() + 1);
        input->push_back('^');
        input->append(e->src->name());
      } else {
        input->reserve(e->src->name().size() + 4);
        AppendTensor(e->src, e->src_output, input);
      }
    }
    Append(d, std::move(nd));
  }
  if (options_.schedule_recvs) TACT_RETURN_IF_ERROR(ScheduleRecvs());
  for (size_t d = 0; d < devices_.size(); ++d) {
    result_.partitions.emplace(devices_[d], std::move(parts_[d]));
  }
  return std::move(result_);
}

}  // namespace

StatusOr<PartitionResult> Partition(const Graph& graph, const PartitionOptions& options) {
  TACT_ASSIGN_OR_RETURN(PartitionResult result, Partitioner(graph, options).Run());
  TACT_RETURN_IF_ERROR(AddLoopControl(graph, options, &result));
  return result;
}

}  // namespace tact
