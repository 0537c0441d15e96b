#include "placement/partitioner.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

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
};
struct PairKeyHash {
  size_t operator()(const PairKey& k) const {
    return (static_cast<size_t>(k.src) * 1000003u + static_cast<size_t>(k.port + 1)) * 8191u +
           static_cast<size_t>(k.dst_device);
  }
};

// The receiving end of one pair: what consumers name as their input, and
// where the _Recv's NodeDef is, for the scheduling pass.
struct RecvEnd {
  std::string input;  // "<recv>" or "<expand>" (its output 0)
  int recv_index;     // in the destination partition's nodes
  int need = 0;       // earliest ALAP level among its consumers
};

std::string TensorString(const Node* src, int port) {
  return port == 0 ? src->name() : src->name() + ":" + std::to_string(port);
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
  // The input string a consumer on `dst_device` uses for src:port
  // (kControlPort: the "^..." control input), creating the pair on first use.
  StatusOr<std::string> CrossInput(const Edge* e, int dst_device);
  RecvEnd& MakePair(const Node* src, int port, int dst_device);
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
  // The attrs a pair's _Send and _Recv share.
  AttrMap EndpointAttrs(int k, const std::string& tensor, int src_device, int dst_device) const;
  Status ScheduleRecvs();

  const Graph& graph_;
  const PartitionOptions& options_;
  std::vector<std::string> devices_;  // index -> full name
  std::vector<int> device_of_;        // node id -> index
  std::vector<GraphDef> parts_;       // by device index
  bool names_may_collide_ = false;    // some node name contains "/_"
  std::unordered_map<PairKey, RecvEnd, PairKeyHash> pairs_;
  std::vector<std::pair<PairKey, RecvEnd*>> pair_list_;  // in creation order
  // Every crossing edge as (its pair, the consumer's id), for the
  // scheduling pass: no second walk over the graph's edges.
  std::vector<std::pair<RecvEnd*, int>> consumers_;
  // (src id << 32 | port) -> its _TruncateToUpper16 node's name.
  std::unordered_map<uint64_t, std::string> truncated_;
  PartitionResult result_;
};

Status Partitioner::AssignDeviceIndices() {
  std::unordered_map<std::string, int> index;
  device_of_.assign(graph_.num_node_ids(), -1);
  for (int id = 0; id < graph_.num_node_ids(); ++id) {
    const Node* n = graph_.node(id);
    if (n == nullptr) continue;
    if (n->assigned_device().empty()) {
      return errors::InvalidArgument(n->ErrorPrefix(),
                                     "has no assigned device; place the graph before "
                                     "partitioning it");
    }
    // A lookup before any insert: emplace would build (allocate) a map node
    // for every one of the graph's nodes, to throw all but a few away.
    auto it = index.find(n->assigned_device());
    if (it == index.end()) {
      it = index.emplace(n->assigned_device(), static_cast<int>(devices_.size())).first;
      devices_.push_back(n->assigned_device());
    }
    device_of_[id] = it->second;
    names_may_collide_ = names_may_collide_ || n->name().find("/_") != std::string::npos;
  }
  // Each crossing edge adds at most a Send (and a truncation or a dummy)
  // to its source's partition and a Recv (and an expansion) to its
  // destination's.
  std::vector<size_t> size(devices_.size(), 0);
  size_t crossing = 0;
  for (int id = 0; id < graph_.num_node_ids(); ++id) {
    const Node* n = graph_.node(id);
    if (n == nullptr) continue;
    ++size[device_of_[id]];
    for (const Edge* e : n->in_edges()) {
      const int src = device_of_[e->src->id()];
      if (src == device_of_[id]) continue;
      ++crossing;
      size[src] += 2;
      size[device_of_[id]] += 2;
    }
  }
  parts_.resize(devices_.size());
  for (size_t d = 0; d < parts_.size(); ++d) parts_[d].nodes.reserve(size[d]);
  pairs_.reserve(crossing);
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

AttrMap Partitioner::EndpointAttrs(int k, const std::string& tensor, int src_device,
                                   int dst_device) const {
  AttrMap a;
  auto inc = options_.incarnations.find(devices_[src_device]);
  const uint64_t incarnation = inc == options_.incarnations.end() ? 0 : inc->second;
  a["tensor_name"] = AttrValue::String("edge_" + std::to_string(k) + "_" + tensor);
  a["send_device"] = AttrValue::String(devices_[src_device]);
  a["send_device_incarnation"] = AttrValue::Int(static_cast<int64_t>(incarnation));
  a["recv_device"] = AttrValue::String(devices_[dst_device]);
  a["client_terminated"] = AttrValue::Bool(false);
  return a;
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

RecvEnd& Partitioner::MakePair(const Node* src, int port, int dst_device) {
  const int k = result_.send_recv_pairs++;
  const int src_device = device_of_[src->id()];
  const Payload p = MakePayload(src, port, dst_device, std::to_string(k));
  AttrMap attrs = EndpointAttrs(k, p.tensor, src_device, dst_device);

  NodeDef send;
  send.name = FreeName(src->name() + "/_send_" + p.suffix);
  send.op = "_Send";
  send.device = devices_[src_device];
  send.inputs = {p.input};
  send.attrs = attrs;
  send.attrs["T"] = AttrValue::Type(p.type);
  Append(src_device, std::move(send));

  NodeDef recv;
  recv.name = FreeName(src->name() + "/_recv_" + p.suffix);
  recv.op = "_Recv";
  recv.device = devices_[dst_device];
  recv.attrs = std::move(attrs);
  recv.attrs["tensor_type"] = AttrValue::Type(p.type);
  RecvEnd end;
  end.input = recv.name;
  end.recv_index = static_cast<int>(parts_[dst_device].nodes.size());
  Append(dst_device, std::move(recv));
  if (p.lossy) {
    NodeDef x;
    x.name = FreeName(src->name() + "/_expand16_" + p.suffix);
    x.op = "_ExpandFromUpper16";
    x.device = devices_[dst_device];
    x.inputs = {end.input};
    end.input = x.name;
    Append(dst_device, std::move(x));
  }
  if (port == kControlPort) end.input = "^" + end.input;
  const PairKey key{src->id(), port, dst_device};
  RecvEnd& stored = pairs_.emplace(key, std::move(end)).first->second;
  pair_list_.emplace_back(key, &stored);
  return stored;
}

StatusOr<std::string> Partitioner::CrossInput(const Edge* e, int dst_device) {
  const int port = e->IsControlEdge() ? kControlPort : e->src_output;
  if (port != kControlPort && IsRefType(e->dst->input_type(e->dst_input))) {
    return errors::InvalidArgument(
        e->dst->ErrorPrefix(), "input ", e->dst_input, " takes the reference '",
        TensorString(e->src, port), "' (", DataTypeString(e->src->output_type(port)),
        ") across devices, from ", e->src->assigned_device(), " to ", e->dst->assigned_device(),
        "; a Variable and the ops that update it must be placed together");
  }
  auto it = pairs_.find(PairKey{e->src->id(), port, dst_device});
  RecvEnd& end = it != pairs_.end() ? it->second : MakePair(e->src, port, dst_device);
  if (options_.schedule_recvs) consumers_.emplace_back(&end, e->dst->id());
  return end.input;
}

Status Partitioner::ScheduleRecvs() {
  const int num_devices = static_cast<int>(devices_.size());
  TACT_ASSIGN_OR_RETURN(RecvSchedule schedule,
                        RecvSchedule::Compute(graph_, device_of_, num_devices));
  // need: the earliest ALAP level among each pair's consumers.
  for (auto& [key, end] : pair_list_) end->need = schedule.depth() + 1;
  for (auto& [end, consumer] : consumers_) {
    end->need = std::min(end->need, schedule.alap(consumer));
  }
  for (auto& [key, end] : pair_list_) {
    const int gate = schedule.Gate(key.dst_device, end->need, options_.recv_lead_levels,
                                   schedule.asap(key.src));
    if (gate < 0) continue;
    NodeDef& recv = parts_[key.dst_device].nodes[end->recv_index];
    recv.inputs.push_back("^" + graph_.node(gate)->name());
    ++result_.scheduled_recvs;
  }
  return Status::OK();
}

StatusOr<PartitionResult> Partitioner::Run() {
  TACT_RETURN_IF_ERROR(AssignDeviceIndices());
  for (int id = 0; id < graph_.num_node_ids(); ++id) {
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
    std::vector<std::string> control;
    for (const Edge* e : n->in_edges()) {
      std::string input;
      if (device_of_[e->src->id()] != d) {
        TACT_ASSIGN_OR_RETURN(input, CrossInput(e, d));
      } else if (e->IsControlEdge()) {
        input = "^" + e->src->name();
      } else {
        input = TensorString(e->src, e->src_output);
      }
      if (e->IsControlEdge()) {
        control.push_back(std::move(input));
      } else {
        nd.inputs[e->dst_input] = std::move(input);
      }
    }
    for (std::string& c : control) nd.inputs.push_back(std::move(c));
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
  return Partitioner(graph, options).Run();
}

}  // namespace tact
