#include "checkpoint/checkpoint_graph.h"

#include <map>

namespace tact {
namespace {

NodeDef MakeNode(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                 const std::string& device) {
  NodeDef n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.device = device;
  return n;
}

// A Variable node as the checkpoint holds it, and the device it asked for.
struct GraphVariable {
  VariableSpec spec;
  std::string device;
};

StatusOr<std::vector<GraphVariable>> GraphVariables(const GraphDef& def) {
  std::vector<GraphVariable> vars;
  for (const NodeDef& n : def.nodes) {
    if (n.op != "Variable") continue;
    GraphVariable v{VariableSpec{n.name, DT_INVALID, {}}, n.device};
    Status s = GetAttr(n.attrs, "dtype", &v.spec.dtype);
    if (s.ok()) s = GetAttr(n.attrs, "shape", &v.spec.shape);
    if (!s.ok()) {
      return errors::InvalidArgument("variable '", n.name, "' cannot be checkpointed: ", s.message());
    }
    vars.push_back(std::move(v));
  }
  if (vars.empty()) return errors::InvalidArgument("the graph has no variables to checkpoint");
  return vars;
}

}  // namespace

StatusOr<CheckpointNodes> AddCheckpointNodes(GraphDef* def, const std::string& dir, int keep) {
  TACT_ASSIGN_OR_RETURN(std::vector<GraphVariable> variables, GraphVariables(*def));
  // Shards by the device the variables requested: a ps task each on a
  // cluster, one in a single process.
  std::map<std::string, std::vector<const VariableSpec*>> shards;
  for (const GraphVariable& v : variables) shards[v.device].push_back(&v.spec);
  CheckpointNodes c;
  c.step = "checkpoint/step";
  c.save = "checkpoint/save";
  c.restore = "checkpoint/restore";
  c.shards = static_cast<int>(shards.size());
  std::vector<NodeDef> add;
  NodeDef step = MakeNode(c.step, "Placeholder", {}, "");
  step.attrs["dtype"] = AttrValue::Type(DT_INT64);
  step.attrs["shape"] = AttrValue::Shape(PartialTensorShape({}));
  add.push_back(step);
  NodeDef commit = MakeNode(c.save, "CommitCheckpoint", {c.step}, shards.begin()->first);
  commit.attrs["dir"] = AttrValue::String(dir);
  commit.attrs["num_shards"] = AttrValue::Int(c.shards);
  commit.attrs["keep"] = AttrValue::Int(keep);
  NodeDef restore = MakeNode(c.restore, "NoOp", {}, "");
  int shard = 0;
  for (const auto& [device, vars] : shards) {
    const std::string prefix = "checkpoint/shard_" + std::to_string(shard);
    NodeDef save = MakeNode(prefix + "/save", "SaveShard", {c.step}, device);
    NodeDef read = MakeNode(prefix + "/restore", "RestoreShard", {c.step}, device);
    std::vector<std::string> names;
    std::vector<DataType> dtypes;
    std::vector<PartialTensorShape> shapes;
    for (size_t k = 0; k < vars.size(); ++k) {
      const VariableSpec& v = *vars[k];
      names.push_back(v.name);
      dtypes.push_back(v.dtype);
      shapes.emplace_back(v.shape);
      c.expected.push_back(v);
      NodeDef value = MakeNode(prefix + "/value_" + std::to_string(k), "Identity", {v.name}, device);
      value.attrs["T"] = AttrValue::Type(v.dtype);
      save.inputs.push_back(value.name);
      add.push_back(std::move(value));
      NodeDef assign = MakeNode(prefix + "/assign_" + std::to_string(k), "Assign",
                                {v.name, read.name + ":" + std::to_string(k)}, "");
      assign.attrs["T"] = AttrValue::Type(v.dtype);
      restore.inputs.push_back("^" + assign.name);
      add.push_back(std::move(assign));
    }
    save.attrs["T"] = AttrValue::TypeList(dtypes);
    save.attrs["names"] = AttrValue::StringList(names);
    save.attrs["dir"] = AttrValue::String(dir);
    save.attrs["shard"] = AttrValue::Int(shard);
    save.attrs["num_shards"] = AttrValue::Int(c.shards);
    read.attrs["dtypes"] = AttrValue::TypeList(dtypes);
    read.attrs["names"] = AttrValue::StringList(names);
    read.attrs["shapes"] = AttrValue::ShapeList(shapes);
    read.attrs["dir"] = AttrValue::String(dir);
    commit.inputs.push_back("^" + save.name);
    add.push_back(std::move(save));
    add.push_back(std::move(read));
    ++shard;
  }
  add.push_back(std::move(commit));
  add.push_back(std::move(restore));
  for (NodeDef& n : add) def->nodes.push_back(std::move(n));
  return c;
}

}  // namespace tact
