// ScalarSummary, HistogramSummary and MergeSummary (graph/ops/summary_ops.h):
// serialized Summary messages, built by kernels/summary_proto.h.
#include <cmath>
#include <set>
#include <string>
#include <type_traits>

#include "graph/printable.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "kernels/summary_proto.h"

namespace tact {
namespace {

const std::vector<DataType> kSummaryTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF,  DT_BFLOAT16, DT_INT8,
                                             DT_INT16, DT_INT32,  DT_INT64, DT_UINT8,    DT_UINT16};

// Calls fn(i, value) for each element of `t` (one of kSummaryTypes) in
// order, the value as a double; stops at the first fn that returns false.
template <typename Fn>
void ForEachValue(const Tensor& t, Fn&& fn) {
  VisitDataType(t.dtype(), [&]<typename T>() {
    if constexpr ((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || kIs16BitFloat<T>) {
      const T* v = t.data<T>();
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        if (!fn(i, static_cast<double>(static_cast<ComputeType<T>>(v[i])))) return;
      }
    }
  });
}

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(ctx, tags.shape() == values.shape(),
                errors::InvalidArgument("tags ", tags.shape().DebugString(), " and values ",
                                        values.shape().DebugString(), " are not of one shape"));
    std::string out;
    ForEachValue(values, [&](int64_t i, double v) {
      out += summary::Scalar(tags.data<std::string>()[i], static_cast<float>(v));
      return true;
    });
    Tensor* summary;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &summary));
    summary->scalar<std::string>() = std::move(out);
  }
};

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(ctx, tag.shape().dims() == 0,
                errors::InvalidArgument("tag must be a scalar, not ", tag.shape().DebugString()));
    const std::string& name = tag.scalar<std::string>();
    summary::Histogram histogram;
    Status bad;
    ForEachValue(values, [&](int64_t i, double v) {
      // A NaN falls in no bucket, and an infinity would make the sum one:
      // both say that training has gone wrong, which the summary should
      // not hide.
      if (!std::isfinite(v)) {
        bad = errors::InvalidArgument(std::isnan(v) ? "NaN" : "infinity", " at element ", i,
                                      " of histogram '", Printable(name), "'");
        return false;
      }
      histogram.Add(v);
      return true;
    });
    OP_REQUIRES_OK(ctx, bad);
    Tensor* summary;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &summary));
    summary->scalar<std::string>() = histogram.Encode(name);
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string out;
    std::set<std::string> tags;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      for (int64_t j = 0; j < in.NumElements(); ++j) {
        const std::string& s = in.data<std::string>()[j];
        StatusOr<std::vector<std::string>> these = summary::Tags(s);
        OP_REQUIRES_OK(ctx, these.status().WithPrefix("input " + std::to_string(i) + ": "));
        for (const std::string& t : *these) {
          OP_REQUIRES(ctx, tags.insert(t).second,
                      errors::InvalidArgument("tag '", Printable(t), "' is in two of the summaries merged"));
        }
        out += s;  // a Summary's repeated values concatenate
      }
    }
    Tensor* summary;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &summary));
    summary->scalar<std::string>() = std::move(out);
  }
};

REGISTER_KERNEL_BUILDER(Name("ScalarSummary").Device(DEVICE_CPU).TypeConstraint("T", kSummaryTypes),
                        ScalarSummaryOp);
REGISTER_KERNEL_BUILDER(Name("HistogramSummary").Device(DEVICE_CPU).TypeConstraint("T", kSummaryTypes),
                        HistogramSummaryOp);
REGISTER_KERNEL_BUILDER(Name("MergeSummary").Device(DEVICE_CPU), MergeSummaryOp);

}  // namespace
}  // namespace tact
