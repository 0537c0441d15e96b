// FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, QueueEnqueue(Many),
// QueueDequeue(Many, UpTo), QueueClose and QueueSize: the kernels over a
// queue in a container (kernels/queue.h). Enqueues and dequeues are async
// kernels: a wait holds no thread (paper 5.3), and the step's abort (its
// operation timeout, Session::Close, a failed kernel) ends it through the
// step's rendezvous.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

#include "kernels/kernel_registry.h"
#include "kernels/cpu/queue_wait.h"
#include "kernels/queue.h"
#include "kernels/rendezvous.h"
#include "kernels/resource_ref.h"

namespace tact {
namespace {

// FIFOQueue, PaddingFIFOQueue and RandomShuffleQueue: the queue of
// (container, shared_name).
class QueueOp : public OpKernel {
 public:
  explicit QueueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("component_types", &options_.types));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shapes", &options_.shapes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("capacity", &options_.capacity));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &options_.name));
    if (options_.name.empty()) options_.name = ctx->def().name;
    options_.padding = ctx->def().op == "PaddingFIFOQueue";
    OP_REQUIRES(ctx, !options_.padding || options_.shapes.size() == options_.types.size(),
                errors::InvalidArgument("a PaddingFIFOQueue needs a shape per component"));
    if (ctx->def().op == "RandomShuffleQueue") {
      options_.shuffle = true;
      int64_t seed = 0;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("min_after_dequeue", &options_.min_after_dequeue));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &seed));
      options_.seed = static_cast<uint64_t>(seed);
    }
    OP_REQUIRES(ctx, !options_.types.empty(),
                errors::InvalidArgument("a queue needs a component type"));
    OP_REQUIRES(ctx, options_.shapes.empty() || options_.shapes.size() == options_.types.size(),
                errors::InvalidArgument(options_.shapes.size(),
                                        " shapes for ", options_.types.size(), " component types"));
  }

  void Compute(OpKernelContext* ctx) override {
    const std::string& container = container_.empty() ? ctx->default_container() : container_;
    auto queue = ResourceMgr::Global()->LookupOrCreate<Queue>(
        container, options_.name, [&] { return std::make_shared<Queue>(options_); });
    OP_REQUIRES_OK(ctx, queue.status());
    const QueueOptions& has = (*queue)->options();
    OP_REQUIRES(ctx, has.types == options_.types && has.shuffle == options_.shuffle &&
                         has.padding == options_.padding,
                errors::InvalidArgument((*queue)->DebugString(), " in container '", container,
                                        "' is not the kind node '", name(), "' asks for"));
    ctx->set_output(0, MakeResourceRef(std::move(queue).value()));
  }
  bool IsExpensive() const override { return false; }

 private:
  QueueOptions options_;
  std::string container_;
};

StatusOr<std::shared_ptr<Queue>> QueueOf(OpKernelContext* ctx) {
  return ResourceFromRefAs<Queue>(ctx->input(0), "a queue");
}

// Row `i` of `t` along its first dimension, as a tensor of its own (a copy).
// ResourceExhausted, as every allocation below, when memory runs out.
StatusOr<Tensor> Row(const Tensor& t, int64_t i) {
  std::vector<int64_t> dims(t.shape().dim_sizes().begin() + 1, t.shape().dim_sizes().end());
  TACT_ASSIGN_OR_RETURN(Tensor row, Tensor::Allocate(CpuAllocator(), t.dtype(), TensorShape(dims)));
  if (t.dtype() == DT_STRING) {  // a filename queue's strings
    const int64_t n = row.NumElements();
    for (int64_t k = 0; k < n; ++k) row.data<std::string>()[k] = t.data<std::string>()[i * n + k];
    return row;
  }
  const size_t bytes = row.TotalBytes();
  std::memcpy(row.raw_data(), static_cast<const char*>(t.raw_data()) + bytes * static_cast<size_t>(i), bytes);
  return row;
}

// The elements' component `c` stacked along a new first dimension; they
// must have one shape.
StatusOr<Tensor> Stack(const std::vector<Queue::Tuple>& elements, size_t c) {
  const Tensor& first = elements[0][c];
  std::vector<int64_t> dims = {static_cast<int64_t>(elements.size())};
  for (int64_t d : first.shape().dim_sizes()) dims.push_back(d);
  TACT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(CpuAllocator(), first.dtype(), TensorShape(dims)));
  const size_t bytes = first.TotalBytes();
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i][c].shape() != first.shape()) {
      return errors::InvalidArgument("component ", c, " of the elements has shapes ",
                                     first.shape().DebugString(), " and ",
                                     elements[i][c].shape().DebugString(), ": they cannot be stacked");
    }
    if (first.dtype() == DT_STRING) {
      const int64_t n = first.NumElements();
      for (int64_t k = 0; k < n; ++k) {
        out.data<std::string>()[static_cast<int64_t>(i) * n + k] = elements[i][c].data<std::string>()[k];
      }
      continue;
    }
    std::memcpy(static_cast<char*>(out.raw_data()) + bytes * i, elements[i][c].raw_data(), bytes);
  }
  return out;
}

// The elements' component `c` stacked along a new first dimension, each
// padded with zeros to the largest size in every dimension (the elements
// have one rank: the queue's declared shape).
StatusOr<Tensor> PadStack(const std::vector<Queue::Tuple>& elements, size_t c) {
  const Tensor& first = elements[0][c];
  const int rank = first.dims();
  std::vector<int64_t> most(first.shape().dim_sizes());
  for (const Queue::Tuple& e : elements) {
    for (int d = 0; d < rank; ++d) most[d] = std::max(most[d], e[c].dim_size(d));
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(elements.size())};
  dims.insert(dims.end(), most.begin(), most.end());
  TACT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(CpuAllocator(), first.dtype(), TensorShape(dims)));
  std::memset(out.raw_data(), 0, out.TotalBytes());
  const size_t item = static_cast<size_t>(DataTypeSize(first.dtype()));
  int64_t padded = 1;  // elements of one padded element
  for (int64_t m : most) padded *= m;
  for (size_t i = 0; i < elements.size(); ++i) {
    const Tensor& t = elements[i][c];
    const char* src = static_cast<const char*>(t.raw_data());
    char* dst = static_cast<char*>(out.raw_data()) + item * static_cast<size_t>(padded) * i;
    if (rank == 0) {
      std::memcpy(dst, src, item);
      continue;
    }
    // Row by row along the last dimension: row k of `t` sits at the padded
    // position of the same index.
    const int64_t row = t.dim_size(rank - 1);
    const int64_t rows = row == 0 ? 0 : t.NumElements() / row;
    for (int64_t k = 0; k < rows; ++k) {
      int64_t rest = k, at = 0, stride = most[rank - 1];
      for (int d = rank - 2; d >= 0; --d) {
        at += (rest % t.dim_size(d)) * stride;
        rest /= t.dim_size(d);
        stride *= most[d];
      }
      std::memcpy(dst + item * static_cast<size_t>(at), src + item * static_cast<size_t>(k * row),
                  item * static_cast<size_t>(row));
    }
  }
  return out;
}

// Whether every batch of the queue can be stacked, checked before any
// element is taken (as TensorFlow does), so that none is lost to a batch
// that cannot be made: every component's shape declared in full, unless
// the queue pads.
Status Stackable(const QueueOptions& q) {
  bool defined = !q.shapes.empty();
  for (const PartialTensorShape& shape : q.shapes) defined = defined && shape.IsFullyDefined();
  if (defined || q.padding) return Status::OK();
  return errors::InvalidArgument("queue '", q.name, "' does not declare the full shape of ",
                                 "every component, so its elements cannot be batched (declare them, or use a ",
                                 "PaddingFIFOQueue)");
}

// Enqueues and batched dequeues copy tensors by their bytes, or strings
// one by one; a padded batch only by bytes.
Status FixedSize(const std::vector<DataType>& types, bool strings_too) {
  for (DataType t : types) {
    if (DataTypeSize(t) == 0 && !(strings_too && t == DT_STRING)) {
      return errors::Unimplemented("batched queue ops take fixed-size dtypes, not ",
                                   DataTypeString(t));
    }
  }
  return Status::OK();
}

// QueueEnqueue (one element) and QueueEnqueueMany (as many as the
// components' first dimension).
class QueueEnqueueOp : public AsyncOpKernel {
 public:
  explicit QueueEnqueueOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx), many_(ctx->def().op == "QueueEnqueueMany") {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto queue = QueueOf(ctx);
    std::vector<Queue::Tuple> elements;
    Status s = queue.status();
    if (s.ok()) s = Elements(ctx, **queue, &elements);
    if (!s.ok()) {
      ctx->CtxFailure(s);
      done();
      return;
    }
    auto status = std::make_shared<Status>();
    WaitOnQueue(
        ctx, *queue,
        [&](std::function<void()> ended) {
          return (*queue)->TryEnqueueMany(std::move(elements), [status, ended](const Status& s) {
            *status = s;
            ended();
          });
        },
        [ctx, status, done, this] {
          if (!status->ok()) ctx->CtxFailure(*status);
          done();
        });
  }
  bool IsExpensive() const override { return false; }

 private:
  // The inputs as elements, each checked against the queue.
  Status Elements(OpKernelContext* ctx, const Queue& queue, std::vector<Queue::Tuple>* elements) const {
    Queue::Tuple components;
    for (int i = 1; i < ctx->num_inputs(); ++i) components.push_back(ctx->input(i));
    if (!many_) {
      elements->push_back(std::move(components));
    } else {
      TACT_RETURN_IF_ERROR(FixedSize(queue.options().types, /*strings_too=*/true));
      int64_t n = -1;
      for (size_t c = 0; c < components.size(); ++c) {
        const Tensor& t = components[c];
        if (t.dims() < 1 || (n >= 0 && t.dim_size(0) != n)) {
          return errors::InvalidArgument("component ", c, " has shape ", t.shape().DebugString(),
                                         ": every component needs the same first dimension, the "
                                         "number of elements");
        }
        n = t.dim_size(0);
      }
      for (int64_t i = 0; i < n; ++i) {
        Queue::Tuple element;
        for (const Tensor& t : components) {
          TACT_ASSIGN_OR_RETURN(Tensor row, Row(t, i));
          element.push_back(std::move(row));
        }
        elements->push_back(std::move(element));
      }
    }
    for (const Queue::Tuple& e : *elements) TACT_RETURN_IF_ERROR(queue.Check(e));
    return Status::OK();
  }

  const bool many_;
};

// QueueDequeue (one element, its components as they are), QueueDequeueMany
// and QueueDequeueUpTo (n elements, each component stacked).
class QueueDequeueOp : public AsyncOpKernel {
 public:
  explicit QueueDequeueOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx),
        many_(ctx->def().op != "QueueDequeue"),
        up_to_(ctx->def().op == "QueueDequeueUpTo") {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto queue = QueueOf(ctx);
    Status s = queue.status();
    int64_t n = 1;
    if (s.ok() && many_) {
      s = FixedSize((*queue)->options().types, !(*queue)->options().padding);
      if (s.ok() && ctx->input(1).NumElements() != 1) {
        s = errors::InvalidArgument("n must be a scalar, not of shape ",
                                    ctx->input(1).shape().DebugString());
      }
      if (s.ok()) n = ctx->input(1).scalar<int32_t>();
      if (s.ok() && n < 1) s = errors::InvalidArgument("n is ", n, ", not >= 1");
      if (s.ok()) s = Stackable((*queue)->options());
    }
    if (!s.ok()) {
      ctx->CtxFailure(s);
      done();
      return;
    }
    struct Result {
      Status status;
      std::vector<Queue::Tuple> elements;
    };
    auto result = std::make_shared<Result>();
    WaitOnQueue(
        ctx, *queue,
        [&](std::function<void()> ended) {
          return (*queue)->TryDequeueMany(n, up_to_,
                                          [result, ended](const Status& s, std::vector<Queue::Tuple> got) {
                                            result->status = s;
                                            result->elements = std::move(got);
                                            ended();
                                          });
        },
        [ctx, result, done, this, padding = (*queue)->options().padding] {
          if (!result->status.ok()) {
            ctx->CtxFailure(result->status);
          } else {
            SetOutputs(ctx, result->elements, padding);
          }
          done();
        });
  }
  bool IsExpensive() const override { return false; }

 private:
  // `padding`: a PaddingFIFOQueue's batch, padded to its largest element.
  void SetOutputs(OpKernelContext* ctx, std::vector<Queue::Tuple>& elements, bool padding) const {
    for (size_t c = 0; c < elements[0].size(); ++c) {
      if (!many_) {
        ctx->set_output(static_cast<int>(c), std::move(elements[0][c]));
        continue;
      }
      StatusOr<Tensor> stacked = padding ? PadStack(elements, c) : Stack(elements, c);
      OP_REQUIRES_OK(ctx, stacked.status());
      ctx->set_output(static_cast<int>(c), std::move(stacked).value());
    }
  }

  const bool many_;
  const bool up_to_;
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

REGISTER_KERNEL_BUILDER(Name("FIFOQueue").Device(DEVICE_CPU), QueueOp);
REGISTER_KERNEL_BUILDER(Name("PaddingFIFOQueue").Device(DEVICE_CPU), QueueOp);
REGISTER_KERNEL_BUILDER(Name("RandomShuffleQueue").Device(DEVICE_CPU), QueueOp);
REGISTER_KERNEL_BUILDER(Name("QueueEnqueue").Device(DEVICE_CPU), QueueEnqueueOp);
REGISTER_KERNEL_BUILDER(Name("QueueEnqueueMany").Device(DEVICE_CPU), QueueEnqueueOp);
REGISTER_KERNEL_BUILDER(Name("QueueDequeue").Device(DEVICE_CPU), QueueDequeueOp);
REGISTER_KERNEL_BUILDER(Name("QueueDequeueMany").Device(DEVICE_CPU), QueueDequeueOp);
REGISTER_KERNEL_BUILDER(Name("QueueDequeueUpTo").Device(DEVICE_CPU), QueueDequeueOp);
REGISTER_KERNEL_BUILDER(Name("QueueClose").Device(DEVICE_CPU), QueueCloseOp);
REGISTER_KERNEL_BUILDER(Name("QueueSize").Device(DEVICE_CPU), QueueSizeOp);

}  // namespace
}  // namespace tact
