#include "graph/ops/batch_norm_ops.h"

#include <string>

#include "graph/op_registry.h"

namespace tact {
namespace {

// x's channel dimension (-1 if unknown) from data_format; x must be of rank 4.
StatusOr<int64_t> Channels(InferenceContext* c, const PartialTensorShape& x) {
  std::string format;
  TACT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (x.unknown_rank()) return int64_t{-1};
  if (x.dims() != 4) {
    return errors::InvalidArgument("x must be of rank 4, got shape ", x.DebugString());
  }
  return x.dim_size(format == "NCHW" ? 1 : 3);
}

// Merges the length of the vector input `i` into `channels`.
Status MergeChannels(InferenceContext* c, int i, const char* what, int64_t* channels) {
  const PartialTensorShape& v = c->input(i);
  if (v.unknown_rank()) return Status::OK();
  if (v.dims() != 1) {
    return errors::InvalidArgument(what, " must be a vector, got shape ", v.DebugString());
  }
  const int64_t n = v.dim_size(0);
  if (n >= 0 && *channels >= 0 && n != *channels) {
    return errors::InvalidArgument(what, " has ", n, " elements where x has ", *channels,
                                   " channels");
  }
  if (*channels < 0) *channels = n;
  return Status::OK();
}

Status FusedBatchNormShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  TACT_ASSIGN_OR_RETURN(int64_t channels, Channels(c, x));
  TACT_RETURN_IF_ERROR(MergeChannels(c, 1, "scale", &channels));
  TACT_RETURN_IF_ERROR(MergeChannels(c, 2, "offset", &channels));
  bool is_training = true;
  TACT_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  if (!is_training) {  // in training they may be empty
    TACT_RETURN_IF_ERROR(MergeChannels(c, 3, "mean", &channels));
    TACT_RETURN_IF_ERROR(MergeChannels(c, 4, "variance", &channels));
  }
  c->set_output(0, x);
  for (int i = 1; i < 5; ++i) c->set_output(i, PartialTensorShape({channels}));
  c->set_output(5, PartialTensorShape({-1}));  // a device's own scratch: empty on the CPU
  return Status::OK();
}

Status FusedBatchNormGradShape(InferenceContext* c) {
  const PartialTensorShape& dy = c->input(0);
  const PartialTensorShape& x = c->input(1);
  TACT_ASSIGN_OR_RETURN(int64_t channels, Channels(c, x));
  TACT_RETURN_IF_ERROR(Channels(c, dy).status());
  if (!dy.IsCompatibleWith(x)) {
    return errors::InvalidArgument("y_backprop ", dy.DebugString(), " and x ", x.DebugString(),
                                   " must have one shape");
  }
  TACT_RETURN_IF_ERROR(MergeChannels(c, 2, "scale", &channels));
  TACT_RETURN_IF_ERROR(MergeChannels(c, 3, "reserve_space_1", &channels));
  TACT_RETURN_IF_ERROR(MergeChannels(c, 4, "reserve_space_2", &channels));
  c->set_output(0, x.unknown_rank() ? dy : x);
  c->set_output(1, PartialTensorShape({channels}));
  c->set_output(2, PartialTensorShape({channels}));
  c->set_output(3, PartialTensorShape({0}));
  c->set_output(4, PartialTensorShape({0}));
  return Status::OK();
}

}  // namespace

// TensorFlow's declaration, with double added (T double, U double) so that
// gradients can be checked against central differences in double.
REGISTER_OP("FusedBatchNormV3").Input("x: T").Input("scale: U").Input("offset: U")
    .Input("mean: U").Input("variance: U").Output("y: T").Output("batch_mean: U")
    .Output("batch_variance: U").Output("reserve_space_1: U").Output("reserve_space_2: U")
    .Output("reserve_space_3: U").Attr("T: {half, bfloat16, float, double}")
    .Attr("U: {float, double}").Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0").Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true").SetShapeFn(FusedBatchNormShape);
REGISTER_OP("FusedBatchNormGradV3").Input("y_backprop: T").Input("x: T").Input("scale: U")
    .Input("reserve_space_1: U").Input("reserve_space_2: U").Input("reserve_space_3: U")
    .Output("x_backprop: T").Output("scale_backprop: U").Output("offset_backprop: U")
    .Output("reserve_space_4: U").Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float, double}").Attr("U: {float, double}")
    .Attr("epsilon: float = 0.0001").Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true").SetShapeFn(FusedBatchNormGradShape);

FusedBatchNormOutputs FusedBatchNorm(const Scope& s, Input x, Input scale, Input offset,
                                     Input mean, Input variance, const FusedBatchNormAttrs& attrs) {
  std::vector<Output> o = OpBuilder(s, "FusedBatchNormV3").Input(x).Input(scale).Input(offset)
                              .Input(mean).Input(variance).Attr("epsilon", attrs.epsilon)
                              .Attr("exponential_avg_factor", attrs.exponential_avg_factor)
                              .Attr("is_training", attrs.is_training)
                              .Attr("data_format", attrs.data_format).FinalizeOutputs();
  if (o.size() != 6) return {};
  return {o[0], o[1], o[2], o[3], o[4], o[5]};
}

FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& s, Input y_backprop, Input x,
                                             Input scale, Input reserve_space_1,
                                             Input reserve_space_2, Input reserve_space_3,
                                             const FusedBatchNormAttrs& attrs) {
  std::vector<Output> o = OpBuilder(s, "FusedBatchNormGradV3").Input(y_backprop).Input(x)
                              .Input(scale).Input(reserve_space_1).Input(reserve_space_2)
                              .Input(reserve_space_3).Attr("epsilon", attrs.epsilon)
                              .Attr("is_training", attrs.is_training)
                              .Attr("data_format", attrs.data_format).FinalizeOutputs();
  if (o.size() != 5) return {};
  return {o[0], o[1], o[2]};
}

}  // namespace tact
