// The kernels of graph/ops/checkpoint_ops.h: checkpoint/checkpoint.h's
// blocking file I/O, run on the device's threads (they are expensive, so
// the executor never runs them on a CAF thread).
#include "checkpoint/checkpoint.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

StatusOr<int64_t> StepInput(OpKernelContext* ctx) {
  const Tensor& t = ctx->input(0);
  if (t.dtype() != DT_INT64 || t.NumElements() != 1) {
    return errors::InvalidArgument("step must be an int64 scalar, got ", DataTypeString(t.dtype()), " of shape ",
                                   t.shape().DebugString());
  }
  return t.data<int64_t>()[0];
}

class SaveShardOp : public OpKernel {
 public:
  explicit SaveShardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("names", &names_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dir", &dir_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shard", &shard_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_shards", &num_shards_));
    OP_REQUIRES(ctx, names_.size() + 1 == ctx->input_types().size(),
                errors::InvalidArgument("SaveShard has ", names_.size(), " names for ",
                                        ctx->input_types().size() - 1, " tensors"));
  }
  void Compute(OpKernelContext* ctx) override {
    StatusOr<int64_t> step = StepInput(ctx);
    OP_REQUIRES_OK(ctx, step.status());
    std::vector<std::pair<std::string, Tensor>> variables;
    for (size_t i = 0; i < names_.size(); ++i) variables.emplace_back(names_[i], ctx->input(static_cast<int>(i) + 1));
    OP_REQUIRES_OK(ctx, WriteCheckpointShard(dir_, *step, static_cast<int>(shard_),
                                             static_cast<int>(num_shards_), variables));
  }

 private:
  std::vector<std::string> names_;
  std::string dir_;
  int64_t shard_ = 0, num_shards_ = 1;
};

class CommitCheckpointOp : public OpKernel {
 public:
  explicit CommitCheckpointOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dir", &dir_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_shards", &num_shards_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep", &keep_));
  }
  void Compute(OpKernelContext* ctx) override {
    StatusOr<int64_t> step = StepInput(ctx);
    OP_REQUIRES_OK(ctx, step.status());
    OP_REQUIRES_OK(ctx, CommitCheckpoint(dir_, *step, static_cast<int>(num_shards_)));
    if (keep_ > 0) OP_REQUIRES_OK(ctx, PruneCheckpoints(dir_, static_cast<int>(keep_)));
  }

 private:
  std::string dir_;
  int64_t num_shards_ = 1, keep_ = 0;
};

class RestoreShardOp : public OpKernel {
 public:
  explicit RestoreShardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<std::string> names;
    std::vector<DataType> dtypes;
    std::vector<PartialTensorShape> shapes;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("names", &names));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shapes", &shapes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dir", &dir_));
    OP_REQUIRES(ctx, names.size() == dtypes.size() && names.size() == shapes.size(),
                errors::InvalidArgument("RestoreShard needs as many dtypes and shapes as names"));
    for (size_t i = 0; i < names.size(); ++i) {
      StatusOr<TensorShape> shape = shapes[i].AsTensorShape();
      OP_REQUIRES(ctx, shape.ok(),
                  errors::InvalidArgument("RestoreShard: variable '", names[i], "' has shape ",
                                          shapes[i].DebugString(), ", which is not fully defined"));
      expected_.push_back(VariableSpec{names[i], dtypes[i], *shape});
    }
  }
  void Compute(OpKernelContext* ctx) override {
    StatusOr<int64_t> step = StepInput(ctx);
    OP_REQUIRES_OK(ctx, step.status());
    StatusOr<Checkpoint> c = ReadCheckpoint(dir_, *step, expected_, /*allow_other_variables=*/true);
    OP_REQUIRES_OK(ctx, c.status());
    for (size_t i = 0; i < c->variables.size(); ++i) ctx->set_output(static_cast<int>(i), c->variables[i].second);
  }

 private:
  std::string dir_;
  std::vector<VariableSpec> expected_;
};

REGISTER_KERNEL_BUILDER(Name("SaveShard").Device(DEVICE_CPU), SaveShardOp);
REGISTER_KERNEL_BUILDER(Name("CommitCheckpoint").Device(DEVICE_CPU), CommitCheckpointOp);
REGISTER_KERNEL_BUILDER(Name("RestoreShard").Device(DEVICE_CPU), RestoreShardOp);

}  // namespace
}  // namespace tact
