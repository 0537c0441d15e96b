#include "placement/loop_control.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "graph/control_flow_info.h"
#include "graph/ops/control_flow_ops.h"

namespace tact {
namespace {

// The node whose tensor a partitioner-made _Recv carries: its tensor_name
// is "edge_<k>_<src>", "edge_<k>_<src>:<port>" or "edge_<k>_^<src>".
const Node* SourceOf(const Graph& graph, const NodeDef& recv) {
  std::string name;
  if (!GetAttr(recv.attrs, "tensor_name", &name).ok() || name.rfind("edge_", 0) != 0) return nullptr;
  const size_t sep = name.find('_', 5);
  if (sep == std::string::npos) return nullptr;
  std::string src = name.substr(sep + 1);
  if (!src.empty() && src[0] == '^') src.erase(0, 1);
  if (const Node* n = graph.FindNode(src)) return n;
  const size_t colon = src.rfind(':');
  return colon == std::string::npos ? nullptr : graph.FindNode(src.substr(0, colon));
}

NodeDef Def(std::string name, const char* op, const std::string& device,
            std::vector<std::string> inputs, AttrMap attrs) {
  NodeDef d;
  d.name = std::move(name);
  d.op = op;
  d.device = device;
  d.inputs = std::move(inputs);
  d.attrs = std::move(attrs);
  return d;
}

class LoopControl {
 public:
  LoopControl(const Graph& graph, const PartitionOptions& options, PartitionResult* result,
              const ControlFlowInfo& cf)
      : graph_(graph), options_(options), result_(result), cf_(cf) {}

  // What a _Recv of `frame` on `device` waits on, in the device's control
  // loop of the frame (made on first use): its Merge (every iteration); for
  // a back edge (a NextIteration's value) its NextIteration, which comes
  // only when the loop goes on, in the iteration the value is for; for a
  // loop variable's first value (a non-constant Enter's) its Enter, which
  // comes in the first iteration only.
  StatusOr<std::string> Pivot(int frame, const std::string& device, const char* gate = "/merge");

 private:
  uint64_t Incarnation(const std::string& device) const {
    auto it = options_.incarnations.find(device);
    return it == options_.incarnations.end() ? 0 : it->second;
  }

  const Graph& graph_;
  const PartitionOptions& options_;
  PartitionResult* result_;
  const ControlFlowInfo& cf_;
  std::map<std::pair<int, std::string>, std::string> pivots_;
};

StatusOr<std::string> LoopControl::Pivot(int frame, const std::string& device, const char* gate) {
  auto found = pivots_.find({frame, device});
  if (found != pivots_.end()) return found->second + gate;
  const FrameDesc& f = cf_.frames[frame];
  if (f.parent != 0) {
    return errors::Unimplemented("loop frame '", f.name, "' is inside another loop and spans devices; "
                                 "a loop in a loop must be placed on one device");
  }
  if (f.loop_cond == nullptr) {
    return errors::InvalidArgument("loop frame '", f.name, "' spans devices but has no LoopCond");
  }
  const std::string& cond_device = f.loop_cond->assigned_device();
  const std::string base = "_loop_control/" + f.name + "/" + std::to_string(pivots_.size());
  const std::string tensor = "loop_cond/" + f.name + "/" + std::to_string(pivots_.size());
  auto attr_t = [](DataType t) { return AttrMap{{"T", AttrValue::Type(t)}}; };
  const int64_t send_incarnation = static_cast<int64_t>(Incarnation(cond_device));

  std::vector<NodeDef>& nodes = result_->partitions[device].nodes;
  nodes.push_back(Def(base + "/zero", "Const", device, {},
                      {{"dtype", AttrValue::Type(DT_INT32)},
                       {"value", AttrValue::FromTensor(Tensor::Scalar<int32_t>(0))}}));
  nodes.push_back(Def(base + "/enter", "Enter", device, {base + "/zero"},
                      {{"T", AttrValue::Type(DT_INT32)},
                       {"frame_name", AttrValue::String(f.name)},
                       {"is_constant", AttrValue::Bool(false)},
                       {"parallel_iterations", AttrValue::Int(f.parallel_iterations)}}));
  nodes.push_back(Def(base + "/merge", "Merge", device, {base + "/enter", base + "/next"},
                      {{"T", AttrValue::Type(DT_INT32)}, {"N", AttrValue::Int(2)}}));
  nodes.push_back(Def(base + "/pred", "_Recv", device, {"^" + base + "/merge"},
                      {{"tensor_type", AttrValue::Type(DT_BOOL)},
                       {"tensor_name", AttrValue::String(tensor)},
                       {"send_device", AttrValue::String(cond_device)},
                       {"send_device_incarnation", AttrValue::Int(send_incarnation)},
                       {"recv_device", AttrValue::String(device)},
                       {"client_terminated", AttrValue::Bool(false)},
                       {"may_be_dead", AttrValue::Bool(true)}}));
  nodes.push_back(Def(base + "/switch", "Switch", device, {base + "/merge", base + "/pred"},
                      attr_t(DT_INT32)));
  nodes.push_back(Def(base + "/pivot", "Identity", device, {base + "/switch:1"}, attr_t(DT_INT32)));
  nodes.push_back(Def(base + "/next", "NextIteration", device, {base + "/pivot"}, attr_t(DT_INT32)));
  // The LoopCond's value goes to this control loop every iteration.
  result_->partitions[cond_device].nodes.push_back(
      Def(base + "/send_pred", "_Send", cond_device, {f.loop_cond->name()},
          {{"T", AttrValue::Type(DT_BOOL)},
           {"tensor_name", AttrValue::String(tensor)},
           {"send_device", AttrValue::String(cond_device)},
           {"send_device_incarnation", AttrValue::Int(send_incarnation)},
           {"recv_device", AttrValue::String(device)},
           {"client_terminated", AttrValue::Bool(false)}}));
  ++result_->send_recv_pairs;
  pivots_[{frame, device}] = base;
  return base + gate;
}

}  // namespace

Status AddLoopControl(const Graph& graph, const PartitionOptions& options, PartitionResult* result) {
  bool control_flow = false;
  for (Node* n : graph.nodes()) control_flow = control_flow || IsControlFlowOp(n->op());
  if (!control_flow) return Status::OK();
  TACT_ASSIGN_OR_RETURN(const ControlFlowInfo cf, BuildControlFlowInfo(graph));

  // The partitioner's _Recvs and the frame each receives into.
  struct Recv {
    std::string device;
    size_t index;
    int frame;
    const char* gate;  // which node of the control loop it waits on
  };
  std::vector<Recv> recvs;
  for (auto& [device, def] : result->partitions) {
    for (size_t i = 0; i < def.nodes.size(); ++i) {
      NodeDef& nd = def.nodes[i];
      bool client = false;
      if (nd.op != "_Recv" || (GetAttr(nd.attrs, "client_terminated", &client).ok() && client)) continue;
      nd.attrs["may_be_dead"] = AttrValue::Bool(true);
      const Node* src = SourceOf(graph, nd);
      if (src == nullptr) {
        return errors::Internal("partition of ", device, ": _Recv '", nd.name,
                                "' names no node of the graph");
      }
      const int frame = cf.OutputFrame(src);
      bool constant = false;
      const bool first_value = IsEnterOp(src->op()) &&
                               !(GetAttr(src->attrs(), "is_constant", &constant).ok() && constant);
      const char* gate = src->op() == "NextIteration" ? "/next" : first_value ? "/enter" : "/merge";
      if (frame != 0) recvs.push_back({device, i, frame, gate});
    }
  }

  LoopControl control(graph, options, result, cf);
  for (const Recv& r : recvs) {
    TACT_ASSIGN_OR_RETURN(const std::string pivot, control.Pivot(r.frame, r.device, r.gate));
    result->partitions[r.device].nodes[r.index].inputs.push_back("^" + pivot);
  }
  // A device with nodes of a frame that spans devices but no _Recv in it
  // (its nodes read only loop invariants) still needs the frame's
  // iterations.
  std::vector<std::set<std::string>> devices(cf.frames.size());
  for (Node* n : graph.nodes()) devices[cf.frame_of[n->id()]].insert(n->assigned_device());
  for (size_t f = 1; f < cf.frames.size(); ++f) {
    if (devices[f].size() < 2) continue;
    for (const std::string& device : devices[f]) {
      TACT_RETURN_IF_ERROR(control.Pivot(static_cast<int>(f), device).status());
    }
  }
  return Status::OK();
}

}  // namespace tact
