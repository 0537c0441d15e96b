#include "apps/train/checkpoint_graph.h"

#include <map>

namespace tact::apps {
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

}  // namespace

StatusOr<CheckpointNodes> AddCheckpointNodes(
    GraphDef* def, const std::vector<std::pair<VariableInfo, std::string>>& variables,
    const std::string& dir, int keep) {
  if (variables.empty()) return errors::InvalidArgument("the graph has no variables to checkpoint");
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : def->nodes) by_name[n.name] = &n;
  // Shards by the device the variables requested: a ps task each on a
  // cluster, one in a single process.
  std::map<std::string, std::vector<const VariableInfo*>> shards;
  for (const auto& [v, read] : variables) {
    auto it = by_name.find(v.name);
    if (it == by_name.end()) return errors::NotFound("variable '", v.name, "' is not in the graph");
    shards[it->second->device].push_back(&v);
  }
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
      const VariableInfo& v = *vars[k];
      names.push_back(v.name);
      dtypes.push_back(v.dtype);
      shapes.emplace_back(v.shape);
      c.expected.push_back(VariableSpec{v.name, v.dtype, v.shape});
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

}  // namespace tact::apps
