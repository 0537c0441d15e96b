#include "graph/ops/checkpoint_ops.h"

#include "graph/op_registry.h"

namespace tact {

REGISTER_OP("SaveShard").Input("step: int64").Input("tensors: T").Attr("T: list(type)")
    .Attr("names: list(string)").Attr("dir: string").Attr("shard: int").Attr("num_shards: int")
    .SetIsStateful();
REGISTER_OP("CommitCheckpoint").Input("step: int64").Attr("dir: string").Attr("num_shards: int")
    .Attr("keep: int = 0").SetIsStateful();
REGISTER_OP("RestoreShard").Input("step: int64").Output("tensors: dtypes").Attr("dtypes: list(type)")
    .Attr("names: list(string)").Attr("shapes: list(shape)").Attr("dir: string").SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      std::vector<PartialTensorShape> shapes;
      TACT_RETURN_IF_ERROR(c->GetAttr("shapes", &shapes));
      for (size_t i = 0; i < shapes.size(); ++i) c->set_output(static_cast<int>(i), shapes[i]);
      return Status::OK();
    });

Node* SaveShard(const Scope& scope, Input step, const std::vector<std::string>& names,
                const std::vector<Output>& values, const std::string& dir, int shard, int num_shards) {
  std::vector<Input> inputs(values.begin(), values.end());
  return OpBuilder(scope, "SaveShard")
      .Input(step)
      .InputList(inputs)
      .Attr("names", AttrValue::StringList(names))
      .Attr("dir", dir)
      .Attr("shard", shard)
      .Attr("num_shards", num_shards)
      .Finalize();
}

Node* CommitCheckpoint(const Scope& scope, Input step, const std::string& dir, int num_shards, int keep) {
  return OpBuilder(scope, "CommitCheckpoint")
      .Input(step)
      .Attr("dir", dir)
      .Attr("num_shards", num_shards)
      .Attr("keep", keep)
      .Finalize();
}

std::vector<Output> RestoreShard(const Scope& scope, Input step, const std::vector<std::string>& names,
                                 const std::vector<DataType>& dtypes,
                                 const std::vector<PartialTensorShape>& shapes, const std::string& dir) {
  return OpBuilder(scope, "RestoreShard")
      .Input(step)
      .Attr("dtypes", AttrValue::TypeList(dtypes))
      .Attr("names", AttrValue::StringList(names))
      .Attr("shapes", AttrValue::ShapeList(shapes))
      .Attr("dir", dir)
      .FinalizeOutputs();
}

}  // namespace tact
