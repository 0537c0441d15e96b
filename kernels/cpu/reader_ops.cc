// FixedLengthRecordReader, TextLineReader, TFRecordReader, ReaderRead,
// ReaderReadUpTo (kernels/reader.h) and DecodeRaw. A read is an async
// kernel: when it needs the next file it waits on the filename queue
// without a thread, and the step's abort ends the wait.
#include <algorithm>
#include <cstring>
#include <memory>

#include "kernels/cpu/queue_wait.h"
#include "kernels/kernel_registry.h"
#include "kernels/reader.h"
#include "kernels/resource_ref.h"

namespace tact {
namespace {

// The reader of (container, shared_name), made on first use.
class ReaderOp : public OpKernel {
 public:
  explicit ReaderOp(OpKernelConstruction* ctx) : OpKernel(ctx), op_(ctx->def().op) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &name_));
    if (name_.empty()) name_ = ctx->def().name;
    if (op_ == "FixedLengthRecordReader") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("header_bytes", &fixed_.header_bytes));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("record_bytes", &fixed_.record_bytes));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("footer_bytes", &fixed_.footer_bytes));
      OP_REQUIRES(ctx, fixed_.record_bytes > 0 && fixed_.header_bytes >= 0 && fixed_.footer_bytes >= 0,
                  errors::InvalidArgument("record_bytes must be positive and header_bytes, footer_bytes "
                                          "not negative"));
    } else if (op_ == "TextLineReader") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("skip_header_lines", &skip_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const std::string& container = container_.empty() ? ctx->default_container() : container_;
    auto reader = ResourceMgr::Global()->LookupOrCreate<Reader>(container, name_, [&] {
      if (op_ == "FixedLengthRecordReader") return NewFixedLengthRecordReader(fixed_);
      if (op_ == "TextLineReader") return NewTextLineReader(skip_);
      return NewTFRecordReader();
    });
    OP_REQUIRES_OK(ctx, reader.status());
    OP_REQUIRES(ctx, (*reader)->kind() == op_,
                errors::InvalidArgument((*reader)->DebugString(), " named '", name_, "' in container '",
                                        container, "' is not the kind node '", name(), "' asks for"));
    ctx->set_output(0, MakeResourceRef(std::move(reader).value()));
  }
  bool IsExpensive() const override { return false; }

 private:
  const std::string op_;
  std::string container_, name_;
  FixedLengthOptions fixed_;
  int64_t skip_ = 0;
};

Tensor Strings(std::vector<std::string> values, bool scalar) {
  Tensor t(DT_STRING, scalar ? TensorShape() : TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = std::move(values[i]);
  return t;
}

// ReaderRead (one record) and ReaderReadUpTo.
class ReaderReadOp : public AsyncOpKernel {
 public:
  explicit ReaderReadOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx), up_to_(ctx->def().op == "ReaderReadUpTo") {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto reader = ResourceFromRefAs<Reader>(ctx->input(0), "a reader");
    auto queue = ResourceFromRefAs<Queue>(ctx->input(1), "a queue");
    Status s = reader.ok() ? queue.status() : reader.status();
    int64_t n = 1;
    if (s.ok() && up_to_) {
      n = ctx->input(2).scalar<int64_t>();
      if (n < 1) s = errors::InvalidArgument("num_records must be at least 1, not ", n);
    }
    if (s.ok() && (*queue)->options().types != std::vector<DataType>{DT_STRING}) {
      s = errors::InvalidArgument("the filename queue must hold one string per element, but ",
                                  (*queue)->DebugString(), " does not");
    }
    if (!s.ok()) {
      ctx->CtxFailure(s);
      done();
      return;
    }
    std::shared_ptr<Queue> files = std::move(queue).value();
    auto next_file = [ctx, files](Reader::FileDone got) {
      auto result = std::make_shared<std::pair<Status, std::string>>();
      WaitOnQueue(
          ctx, files,
          [files, result](std::function<void()> ended) {
            return files->TryDequeue([result, ended](const Status& st, Queue::Tuple t) {
              result->first = st;
              if (st.ok()) result->second = t[0].scalar<std::string>();
              ended();
            });
          },
          [result, got] { got(result->first, result->second); });
    };
    const bool up_to = up_to_;
    (*reader)->ReadUpTo(n, next_file, [ctx, done, up_to](const Status& st, std::vector<std::string> keys,
                                                           std::vector<std::string> values) {
      if (!st.ok()) {
        ctx->CtxFailure(st.code() == Code::kOutOfRange
                            ? errors::OutOfRange("the reader's filename queue is closed and empty: ",
                                                 st.message())
                            : st);
      } else {
        ctx->set_output(0, Strings(std::move(keys), !up_to));
        ctx->set_output(1, Strings(std::move(values), !up_to));
      }
      done();
    });
  }
  // It reads (and unzips) files: never on a thread that must not compute.
  bool IsExpensive() const override { return true; }

 private:
  const bool up_to_;
};

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("little_endian", &little_endian_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int64_t count = in.NumElements();
    const size_t size = DataTypeSize(type_);
    const std::string* strings = in.data<std::string>();
    const size_t bytes = count > 0 ? strings[0].size() : 0;
    OP_REQUIRES(ctx, bytes % size == 0,
                errors::InvalidArgument("a string of ", bytes, " bytes is not a whole number of ",
                                        DataTypeString(type_), " (", size, " bytes each)"));
    std::vector<int64_t> dims = in.shape().dim_sizes();
    dims.push_back(static_cast<int64_t>(bytes / size));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t i = 0; i < count; ++i) {
      OP_REQUIRES(ctx, strings[i].size() == bytes,
                  errors::InvalidArgument("string ", i, " holds ", strings[i].size(), " bytes but string 0 ",
                                          bytes, ": DecodeRaw needs strings of one length"));
      std::memcpy(dst + i * bytes, strings[i].data(), bytes);
    }
    // This machine is little-endian: a big-endian input swaps each value.
    if (!little_endian_ && size > 1) {
      const size_t total = static_cast<size_t>(count) * bytes;
      for (size_t v = 0; v < total; v += size) std::reverse(dst + v, dst + v + size);
    }
  }

 private:
  DataType type_;
  bool little_endian_ = true;
};

REGISTER_KERNEL_BUILDER(Name("FixedLengthRecordReader").Device(DEVICE_CPU), ReaderOp);
REGISTER_KERNEL_BUILDER(Name("TextLineReader").Device(DEVICE_CPU), ReaderOp);
REGISTER_KERNEL_BUILDER(Name("TFRecordReader").Device(DEVICE_CPU), ReaderOp);
REGISTER_KERNEL_BUILDER(Name("ReaderRead").Device(DEVICE_CPU), ReaderReadOp);
REGISTER_KERNEL_BUILDER(Name("ReaderReadUpTo").Device(DEVICE_CPU), ReaderReadOp);
REGISTER_KERNEL_BUILDER(Name("DecodeRaw").Device(DEVICE_CPU), DecodeRawOp);

}  // namespace
}  // namespace tact
