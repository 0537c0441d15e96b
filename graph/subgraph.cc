#include "graph/subgraph.h"

#include <map>
#include <set>

namespace tact {

StatusOr<TensorId> ParseTensorId(const std::string& name) {
  TACT_ASSIGN_OR_RETURN(InputRef ref, ParseInputRef(name));
  if (ref.is_control()) return errors::InvalidArgument("'", name, "' is not a tensor name");
  return TensorId{ref.node, ref.port};
}

namespace {
// Rendezvous keys reuse the layout of kernels/rendezvous.h's RendezvousKey
// ("send;incarnation;recv;name"); the graph layer cannot include kernels.
std::string Key(const std::string& send, const std::string& recv, const std::string& tensor) {
  return send + ";0;" + recv + ";" + tensor;
}

StatusOr<TensorId> Resolve(const Graph& g, const std::string& name, const char* what) {
  StatusOr<TensorId> id = ParseTensorId(name);
  if (!id.ok()) return id.status().WithPrefix(std::string(what) + " '" + name + "': ");
  Node* n = g.FindNode(id->node);
  if (n == nullptr) {
    return errors::NotFound(what, " '", name, "' names no node in the graph");
  }
  if (id->port >= n->num_outputs()) {
    return errors::InvalidArgument(what, " '", name, "': node '", id->node, "' (op '", n->op(),
                                   "') has ", n->num_outputs(), " outputs");
  }
  return id;
}

// A feed enters, and a fetch leaves, where its node was asked to run: a
// tower's images on its worker, not through another task.
std::string RequestedOr(const Node& node, const std::string& otherwise) {
  return node.requested_device().empty() ? otherwise : node.requested_device();
}
}  // namespace

std::string FeedKey(const std::string& device, const std::string& tensor) {
  return Key(kClientDevice, device, tensor);
}
std::string FetchKey(const std::string& device, const std::string& tensor) {
  return Key(device, kClientDevice, tensor);
}

std::vector<std::string> ClientTensors(const GraphDef& graph, const std::string& op) {
  std::vector<std::string> names;
  for (const NodeDef& n : graph.nodes) {
    bool client = false;
    std::string tensor;
    if (n.op == op && GetAttr(n.attrs, "client_terminated", &client).ok() && client &&
        GetAttr(n.attrs, "tensor_name", &tensor).ok()) {
      names.push_back(std::move(tensor));
    }
  }
  return names;
}

StatusOr<std::unique_ptr<Graph>> BuildSubgraph(const Graph& full, const SubgraphSpec& spec) {
  std::map<std::pair<std::string, int>, std::string> fed;  // tensor -> its _Recv's name
  GraphDef def;
  auto recv_attrs = [&](const std::string& tensor, DataType type) {
    AttrMap a;
    a["tensor_type"] = AttrValue::Type(BaseType(type));
    a["tensor_name"] = AttrValue::String(tensor);
    a["send_device"] = AttrValue::String(kClientDevice);
    a["send_device_incarnation"] = AttrValue::Int(0);
    a["recv_device"] = AttrValue::String(spec.device);
    a["client_terminated"] = AttrValue::Bool(true);
    return a;
  };
  std::vector<NodeDef> recvs;
  for (const std::string& f : spec.feeds) {
    TACT_ASSIGN_OR_RETURN(TensorId id, Resolve(full, f, "feed"));
    const std::string name = "_recv_" + id.node + "_" + std::to_string(id.port);
    if (!fed.emplace(std::make_pair(id.node, id.port), name).second) {
      return errors::InvalidArgument("feed '", f, "' is given twice");
    }
    NodeDef r;
    r.name = name;
    r.op = "_Recv";
    r.device = RequestedOr(*full.FindNode(id.node), spec.device);
    r.attrs = recv_attrs(id.ToString(), full.FindNode(id.node)->output_type(id.port));
    recvs.push_back(std::move(r));
  }
  // Walk back from the fetches and targets; a fed tensor stops the walk.
  std::vector<TensorId> fetch_ids;
  std::vector<Node*> stack;
  for (const std::string& f : spec.fetches) {
    TACT_ASSIGN_OR_RETURN(TensorId id, Resolve(full, f, "fetch"));
    fetch_ids.push_back(id);
    if (!fed.count({id.node, id.port})) stack.push_back(full.FindNode(id.node));
  }
  for (const std::string& t : spec.targets) {
    Node* n = full.FindNode(t);
    if (n == nullptr) return errors::NotFound("target '", t, "' names no node in the graph");
    stack.push_back(n);
  }
  std::set<int> keep;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (!keep.insert(n->id()).second) continue;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && fed.count({e->src->name(), e->src_output})) continue;
      stack.push_back(e->src);
    }
  }
  GraphDef full_def = full.ToGraphDef();
  for (const NodeDef& nd : full_def.nodes) {
    Node* n = full.FindNode(nd.name);
    if (!keep.count(n->id())) continue;
    NodeDef copy = nd;
    for (std::string& in : copy.inputs) {
      StatusOr<InputRef> ref = ParseInputRef(in);
      if (!ref.ok() || ref->is_control()) continue;
      auto it = fed.find({ref->node, ref->port});
      if (it != fed.end()) in = it->second;
    }
    def.nodes.push_back(std::move(copy));
  }
  for (NodeDef& r : recvs) def.nodes.push_back(std::move(r));
  std::set<std::string> fetched;
  for (size_t i = 0; i < fetch_ids.size(); ++i) {
    const TensorId& id = fetch_ids[i];
    if (!fetched.insert(id.ToString()).second) {
      return errors::InvalidArgument("fetch '", spec.fetches[i], "' is given twice");
    }
    auto it = fed.find({id.node, id.port});
    NodeDef s;
    s.name = "_send_" + id.node + "_" + std::to_string(id.port);
    s.op = "_Send";
    s.device = RequestedOr(*full.FindNode(id.node), spec.device);
    s.inputs = {it != fed.end() ? it->second : id.ToString()};
    s.attrs["T"] = AttrValue::Type(BaseType(full.FindNode(id.node)->output_type(id.port)));
    s.attrs["tensor_name"] = AttrValue::String(id.ToString());
    s.attrs["send_device"] = AttrValue::String(spec.device);
    s.attrs["send_device_incarnation"] = AttrValue::Int(0);
    s.attrs["recv_device"] = AttrValue::String(kClientDevice);
    s.attrs["client_terminated"] = AttrValue::Bool(true);
    def.nodes.push_back(std::move(s));
  }
  return Graph::FromGraphDef(def);
}

}  // namespace tact
