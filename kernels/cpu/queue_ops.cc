// FIFOQueue, QueueEnqueue, QueueDequeue, QueueClose and QueueSize: the
// kernels over a queue in a container (kernels/queue.h). Enqueue and
// Dequeue are async kernels: a wait holds no thread (paper 5.3), and the
// step's abort (its operation timeout, Session::Close, a failed kernel)
// ends it through the step's rendezvous.
#include <memory>
#include <mutex>

#include "kernels/kernel_registry.h"
#include "kernels/queue.h"
#include "kernels/rendezvous.h"
#include "kernels/resource_ref.h"

namespace tact {
namespace {

class FIFOQueueOp : public OpKernel {
 public:
  explicit FIFOQueueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("component_types", &types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shapes", &shapes_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("capacity", &capacity_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = ctx->def().name;
    OP_REQUIRES(ctx, !types_.empty(),
                errors::InvalidArgument("node '", ctx->def().name, "': a queue needs a component type"));
    OP_REQUIRES(ctx, shapes_.empty() || shapes_.size() == types_.size(),
                errors::InvalidArgument("node '", ctx->def().name, "': ", shapes_.size(), " shapes for ",
                                        types_.size(), " component types"));
  }

  void Compute(OpKernelContext* ctx) override {
    const std::string& container = container_.empty() ? ctx->default_container() : container_;
    auto queue = ResourceMgr::Global()->LookupOrCreate<FIFOQueue>(container, shared_name_, [&] {
      return std::make_shared<FIFOQueue>(shared_name_, types_, shapes_, capacity_);
    });
    OP_REQUIRES_OK(ctx, queue.status());
    OP_REQUIRES(ctx, (*queue)->component_types() == types_,
                errors::InvalidArgument("queue '", shared_name_, "' in container '", container,
                                        "' has other component types than node '", name(), "' asks for"));
    ctx->set_output(0, MakeResourceRef(std::move(queue).value()));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<DataType> types_;
  std::vector<PartialTensorShape> shapes_;
  int64_t capacity_ = -1;
  std::string container_;
  std::string shared_name_;
};

StatusOr<std::shared_ptr<FIFOQueue>> QueueOf(OpKernelContext* ctx) {
  return ResourceFromRefAs<FIFOQueue>(ctx->input(0), "a queue");
}

// Starts a wait on `queue` with `start` (TryEnqueue or TryDequeue, given
// the callback that ends it) and ends it with the step's abort status if
// the step is aborted first. `finish` runs once, when the wait ends.
void WaitOnQueue(OpKernelContext* ctx, const std::shared_ptr<FIFOQueue>& queue,
                 const std::function<FIFOQueue::Token(std::function<void()> ended)>& start,
                 std::function<void()> finish) {
  struct State {
    std::mutex mu;
    bool ended = false;
    uint64_t abort_token = 0;
  };
  auto state = std::make_shared<State>();
  Rendezvous* rendezvous = ctx->rendezvous();
  const FIFOQueue::Token token = start([state, rendezvous, finish = std::move(finish)] {
    uint64_t abort_token = 0;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      state->ended = true;
      abort_token = state->abort_token;
    }
    if (abort_token != 0) rendezvous->RemoveAbortCallback(abort_token);
    finish();
  });
  if (token == 0 || rendezvous == nullptr) return;  // ended already, or no step to abort it
  const uint64_t abort_token =
      rendezvous->AddAbortCallback([queue, token](const Status& why) { queue->Cancel(token, why); });
  std::lock_guard<std::mutex> lock(state->mu);
  if (state->ended) {
    rendezvous->RemoveAbortCallback(abort_token);
  } else {
    state->abort_token = abort_token;
  }
}

class QueueEnqueueOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto queue = QueueOf(ctx);
    FIFOQueue::Tuple tuple;
    for (int i = 1; i < ctx->num_inputs(); ++i) tuple.push_back(ctx->input(i));
    Status s = queue.status();
    if (s.ok()) s = (*queue)->Check(tuple);
    if (!s.ok()) {
      ctx->CtxFailure(s.WithPrefix("node '" + name() + "': "));
      done();
      return;
    }
    auto status = std::make_shared<Status>();
    WaitOnQueue(
        ctx, *queue,
        [&](std::function<void()> ended) {
          return (*queue)->TryEnqueue(std::move(tuple), [status, ended](const Status& s) {
            *status = s;
            ended();
          });
        },
        [ctx, status, done, this] {
          if (!status->ok()) ctx->CtxFailure(status->WithPrefix("node '" + name() + "': "));
          done();
        });
  }
  bool IsExpensive() const override { return false; }
};

class QueueDequeueOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto queue = QueueOf(ctx);
    if (!queue.ok()) {
      ctx->CtxFailure(queue.status());
      done();
      return;
    }
    struct Result {
      Status status;
      FIFOQueue::Tuple tuple;
    };
    auto result = std::make_shared<Result>();
    WaitOnQueue(
        ctx, *queue,
        [&](std::function<void()> ended) {
          return (*queue)->TryDequeue([result, ended](const Status& s, FIFOQueue::Tuple t) {
            result->status = s;
            result->tuple = std::move(t);
            ended();
          });
        },
        [ctx, result, done, this] {
          if (!result->status.ok()) {
            ctx->CtxFailure(result->status.WithPrefix("node '" + name() + "': "));
          } else {
            for (size_t i = 0; i < result->tuple.size(); ++i) {
              ctx->set_output(static_cast<int>(i), std::move(result->tuple[i]));
            }
          }
          done();
        });
  }
  bool IsExpensive() const override { return false; }
};

class QueueCloseOp : public OpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("cancel_pending_enqueues", &cancel_pending_enqueues_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto queue = QueueOf(ctx);
    OP_REQUIRES_OK(ctx, queue.status());
    (*queue)->Close(cancel_pending_enqueues_);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool cancel_pending_enqueues_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto queue = QueueOf(ctx);
    OP_REQUIRES_OK(ctx, queue.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>((*queue)->Size())));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("FIFOQueue").Device(DEVICE_CPU), FIFOQueueOp);
REGISTER_KERNEL_BUILDER(Name("QueueEnqueue").Device(DEVICE_CPU), QueueEnqueueOp);
REGISTER_KERNEL_BUILDER(Name("QueueDequeue").Device(DEVICE_CPU), QueueDequeueOp);
REGISTER_KERNEL_BUILDER(Name("QueueClose").Device(DEVICE_CPU), QueueCloseOp);
REGISTER_KERNEL_BUILDER(Name("QueueSize").Device(DEVICE_CPU), QueueSizeOp);

}  // namespace
}  // namespace tact
