#include "graph/ops/nn_ops.h"

#include <vector>

#include "graph/op_registry.h"
#include "graph/ops/window_geometry.h"

namespace tact {
namespace {

Status RequireRank(const PartialTensorShape& s, int rank, const char* what) {
  if (!s.unknown_rank() && s.dims() != rank) {
    return errors::InvalidArgument(what, " must be of rank ", rank, ", got shape ",
                                   s.DebugString());
  }
  return Status::OK();
}

int64_t DimOrUnknown(const PartialTensorShape& s, int i) {
  return s.unknown_rank() ? -1 : s.dim_size(i);
}

Status BiasAddShape(InferenceContext* c) {
  const PartialTensorShape& v = c->input(0);
  const PartialTensorShape& b = c->input(1);
  TACT_RETURN_IF_ERROR(RequireRank(b, 1, "bias"));
  if (!v.unknown_rank() && v.dims() < 1) {
    return errors::InvalidArgument("value must be at least rank 1, got shape ", v.DebugString());
  }
  if (!v.unknown_rank() && !b.unknown_rank()) {
    const int64_t c_v = v.dim_size(v.dims() - 1), c_b = b.dim_size(0);
    if (c_v >= 0 && c_b >= 0 && c_v != c_b) {
      return errors::InvalidArgument("bias of shape ", b.DebugString(),
                                     " does not match the last dimension of value ",
                                     v.DebugString());
    }
  }
  c->set_output(0, v);
  return Status::OK();
}

Status BiasAddGradShape(InferenceContext* c) {
  const PartialTensorShape& g = c->input(0);
  if (g.unknown_rank()) {
    c->set_output(0, PartialTensorShape({-1}));
    return Status::OK();
  }
  if (g.dims() < 1) {
    return errors::InvalidArgument("out_backprop must be at least rank 1, got shape ",
                                   g.DebugString());
  }
  c->set_output(0, PartialTensorShape({g.dim_size(g.dims() - 1)}));
  return Status::OK();
}

struct WindowAttrs {
  std::vector<int64_t> window;  // ksize, or {1, KH, KW, 1} taken from the filter
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  Padding padding = Padding::kValid;
};

Status ReadWindowAttrs(InferenceContext* c, bool has_ksize, bool has_dilations,
                       WindowAttrs* w) {
  TACT_RETURN_IF_ERROR(c->GetAttr("strides", &w->strides));
  TACT_RETURN_IF_ERROR(CheckNhwcWindowList(w->strides, "strides"));
  if (has_ksize) {
    TACT_RETURN_IF_ERROR(c->GetAttr("ksize", &w->window));
    TACT_RETURN_IF_ERROR(CheckNhwcWindowList(w->window, "ksize"));
  }
  if (has_dilations) {
    TACT_RETURN_IF_ERROR(c->GetAttr("dilations", &w->dilations));
    TACT_RETURN_IF_ERROR(CheckNhwcWindowList(w->dilations, "dilations"));
  }
  std::string padding;
  TACT_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  TACT_ASSIGN_OR_RETURN(w->padding, PaddingFromString(padding));
  return Status::OK();
}

// One spatial output dim, -1 if the input or window size is unknown.
StatusOr<int64_t> OutDim(int64_t in, int64_t k, const WindowAttrs& w, int i, const char* what) {
  if (in < 0 || k < 0) return int64_t{-1};
  TACT_ASSIGN_OR_RETURN(WindowDim d,
                        ComputeWindowDim(in, k, w.strides[i], w.dilations[i], w.padding, what));
  return d.output;
}

// Conv2D's output, or with `depthwise` DepthwiseConv2dNative's, whose
// filter's last dimension multiplies the input's depth.
Status ConvShape(InferenceContext* c, bool depthwise) {
  const PartialTensorShape& in = c->input(0);
  const PartialTensorShape& f = c->input(1);
  TACT_RETURN_IF_ERROR(RequireRank(in, 4, "input"));
  TACT_RETURN_IF_ERROR(RequireRank(f, 4, "filter"));
  WindowAttrs w;
  TACT_RETURN_IF_ERROR(ReadWindowAttrs(c, false, true, &w));
  const int64_t cin = DimOrUnknown(in, 3), fcin = DimOrUnknown(f, 2);
  if (cin >= 0 && fcin >= 0 && cin != fcin) {
    return errors::InvalidArgument("input depth ", cin, " does not match filter input depth ",
                                   fcin, ": input ", in.DebugString(), ", filter ",
                                   f.DebugString());
  }
  TACT_ASSIGN_OR_RETURN(int64_t oh, OutDim(DimOrUnknown(in, 1), DimOrUnknown(f, 0), w, 1, "rows"));
  TACT_ASSIGN_OR_RETURN(int64_t ow, OutDim(DimOrUnknown(in, 2), DimOrUnknown(f, 1), w, 2, "cols"));
  int64_t depth = DimOrUnknown(f, 3);
  if (depthwise) {
    const int64_t channels = cin >= 0 ? cin : fcin;
    depth = channels >= 0 && depth >= 0 ? channels * depth : -1;
  }
  c->set_output(0, PartialTensorShape({DimOrUnknown(in, 0), oh, ow, depth}));
  return Status::OK();
}

Status PoolShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  TACT_RETURN_IF_ERROR(RequireRank(in, 4, "input"));
  WindowAttrs w;
  TACT_RETURN_IF_ERROR(ReadWindowAttrs(c, true, false, &w));
  TACT_ASSIGN_OR_RETURN(int64_t oh, OutDim(DimOrUnknown(in, 1), w.window[1], w, 1, "rows"));
  TACT_ASSIGN_OR_RETURN(int64_t ow, OutDim(DimOrUnknown(in, 2), w.window[2], w, 2, "cols"));
  c->set_output(0, PartialTensorShape({DimOrUnknown(in, 0), oh, ow, DimOrUnknown(in, 3)}));
  return Status::OK();
}

// Output `out` takes the value of the int shape vector at input `i` when it
// is a graph-construction constant, else a rank-4 shape of unknown dims.
Status ShapeFromSizesInput(InferenceContext* c, int i, int out) {
  TACT_RETURN_IF_ERROR(RequireRank(c->input(i), 1, "the sizes input"));
  const Tensor* t = c->input_tensor(i);
  const PartialTensorShape* value = c->input_shape_value(i);
  if (t == nullptr && value != nullptr && value->dims() == 4) {
    c->set_output(out, *value);  // Shape(x), as the gradient functions write it
    return Status::OK();
  }
  if (t == nullptr || t->dtype() != DT_INT32) {
    c->set_output(out, PartialTensorShape({-1, -1, -1, -1}));
    return Status::OK();
  }
  if (t->NumElements() != 4) {
    return errors::InvalidArgument("the sizes input must have 4 elements, got shape ",
                                   t->shape().DebugString());
  }
  std::vector<int64_t> dims(t->data<int32_t>(), t->data<int32_t>() + 4);
  c->set_output(out, PartialTensorShape(dims));
  return Status::OK();
}

Status SoftmaxShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  if (!x.unknown_rank() && x.dims() < 1) {
    return errors::InvalidArgument("logits must have >= 1 dimension, got shape ", x.DebugString());
  }
  c->set_output(0, x);
  return Status::OK();
}

Status SparseXentShape(InferenceContext* c) {
  const PartialTensorShape& f = c->input(0);
  const PartialTensorShape& l = c->input(1);
  TACT_RETURN_IF_ERROR(RequireRank(f, 2, "features"));
  TACT_RETURN_IF_ERROR(RequireRank(l, 1, "labels"));
  int64_t batch = DimOrUnknown(f, 0);
  const int64_t lb = DimOrUnknown(l, 0);
  if (batch >= 0 && lb >= 0 && batch != lb) {
    return errors::InvalidArgument("features ", f.DebugString(), " and labels ", l.DebugString(),
                                   " differ in the batch dimension");
  }
  if (batch < 0) batch = lb;
  c->set_output(0, PartialTensorShape({batch}));
  c->set_output(1, PartialTensorShape({batch, DimOrUnknown(f, 1)}));
  return Status::OK();
}

// Features and labels of one shape [batch, classes]: TensorFlow's kernel
// also broadcasts the labels, tact's does not.
Status XentShape(InferenceContext* c) {
  const PartialTensorShape& f = c->input(0);
  const PartialTensorShape& l = c->input(1);
  TACT_RETURN_IF_ERROR(RequireRank(f, 2, "features"));
  TACT_RETURN_IF_ERROR(RequireRank(l, 2, "labels"));
  std::vector<int64_t> dims = {DimOrUnknown(f, 0), DimOrUnknown(f, 1)};
  for (int i = 0; i < 2; ++i) {
    const int64_t d = DimOrUnknown(l, i);
    if (dims[i] >= 0 && d >= 0 && dims[i] != d) {
      return errors::InvalidArgument("features ", f.DebugString(), " and labels ",
                                     l.DebugString(), " must have one shape");
    }
    if (dims[i] < 0) dims[i] = d;
  }
  c->set_output(0, PartialTensorShape({dims[0]}));
  c->set_output(1, PartialTensorShape(dims));
  return Status::OK();
}

// input [..., n] -> values and indices [..., k], where k is known.
Status TopKShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (c->input(1).dims() > 0) {
    return errors::InvalidArgument("k must be a scalar, got shape ", c->input(1).DebugString());
  }
  if (!in.unknown_rank() && in.dims() < 1) {
    return errors::InvalidArgument("input must have at least one dimension, got shape []");
  }
  int64_t k = -1;
  if (const Tensor* t = c->input_tensor(1); t != nullptr && t->dtype() == DT_INT32) {
    k = t->data<int32_t>()[0];
    if (k < 0) return errors::InvalidArgument("k must be >= 0, got ", k);
    const int64_t n = in.unknown_rank() ? -1 : in.dim_size(in.dims() - 1);
    if (n >= 0 && k > n) {
      return errors::InvalidArgument("k = ", k, " is more than the last dimension of input ",
                                     in.DebugString());
    }
  }
  PartialTensorShape out = in;
  if (!in.unknown_rank()) {
    std::vector<int64_t> dims = in.dim_sizes();
    dims.back() = k;
    out = PartialTensorShape(dims);
  }
  c->set_output(0, out);
  c->set_output(1, out);
  return Status::OK();
}

Status InTopKShape(InferenceContext* c) {
  TACT_RETURN_IF_ERROR(RequireRank(c->input(0), 2, "predictions"));
  TACT_RETURN_IF_ERROR(RequireRank(c->input(1), 1, "targets"));
  if (c->input(2).dims() > 0) {
    return errors::InvalidArgument("k must be a scalar, got shape ", c->input(2).DebugString());
  }
  int64_t batch = DimOrUnknown(c->input(0), 0);
  if (batch < 0) batch = DimOrUnknown(c->input(1), 0);
  c->set_output(0, PartialTensorShape({batch}));
  return Status::OK();
}

}  // namespace

// TF's attrs; data_format allows NCHW so that TF graphs load, but the CPU
// kernels run NHWC only and say so.
#define TACT_CONV_ATTRS                                                       \
  Attr("T: {float, double}").Attr("strides: list(int)")                       \
      .Attr("use_cudnn_on_gpu: bool = true").Attr("padding: {'SAME', 'VALID'}") \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")                          \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")
#define TACT_POOL_ATTRS                                                          \
  Attr("ksize: list(int) >= 4").Attr("strides: list(int) >= 4")                  \
      .Attr("padding: {'SAME', 'VALID'}").Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")

REGISTER_OP("BiasAdd").Input("value: T").Input("bias: T").Output("output: T")
    .Attr("T: {float, double}").Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddShape);
REGISTER_OP("BiasAddGrad").Input("out_backprop: T").Output("output: T")
    .Attr("T: {float, double}").Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddGradShape);
REGISTER_OP("Conv2D").Input("input: T").Input("filter: T").Output("output: T")
    .TACT_CONV_ATTRS.SetShapeFn([](InferenceContext* c) { return ConvShape(c, false); });
REGISTER_OP("Conv2DBackpropInput").Input("input_sizes: int32").Input("filter: T")
    .Input("out_backprop: T").Output("output: T").TACT_CONV_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 0, 0); });
REGISTER_OP("Conv2DBackpropFilter").Input("input: T").Input("filter_sizes: int32")
    .Input("out_backprop: T").Output("output: T").TACT_CONV_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 1, 0); });
REGISTER_OP("DepthwiseConv2dNative").Input("input: T").Input("filter: T").Output("output: T")
    .TACT_CONV_ATTRS.SetShapeFn([](InferenceContext* c) { return ConvShape(c, true); });
REGISTER_OP("DepthwiseConv2dNativeBackpropInput").Input("input_sizes: int32").Input("filter: T")
    .Input("out_backprop: T").Output("output: T").TACT_CONV_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 0, 0); });
REGISTER_OP("DepthwiseConv2dNativeBackpropFilter").Input("input: T").Input("filter_sizes: int32")
    .Input("out_backprop: T").Output("output: T").TACT_CONV_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 1, 0); });
REGISTER_OP("MaxPool").Input("input: T").Output("output: T")
    .Attr("T: {float, double} = DT_FLOAT").TACT_POOL_ATTRS.SetShapeFn(PoolShape);
REGISTER_OP("AvgPool").Input("value: T").Output("output: T")
    .Attr("T: {float, double}").TACT_POOL_ATTRS.SetShapeFn(PoolShape);
REGISTER_OP("MaxPoolGrad").Input("orig_input: T").Input("orig_output: T").Input("grad: T")
    .Output("output: T").Attr("T: {float, double} = DT_FLOAT").TACT_POOL_ATTRS
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("MaxPoolGradGrad").Input("orig_input: T").Input("orig_output: T").Input("grad: T")
    .Output("output: T").Attr("T: {float, double} = DT_FLOAT").TACT_POOL_ATTRS
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(1));
      return Status::OK();
    });
REGISTER_OP("AvgPoolGrad").Input("orig_input_shape: int32").Input("grad: T").Output("output: T")
    .Attr("T: {float, double}").TACT_POOL_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 0, 0); });
REGISTER_OP("Softmax").Input("logits: T").Output("softmax: T").Attr("T: {float, double}")
    .SetShapeFn(SoftmaxShape);
REGISTER_OP("LogSoftmax").Input("logits: T").Output("logsoftmax: T").Attr("T: {float, double}")
    .SetShapeFn(SoftmaxShape);
REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits").Input("features: T").Input("labels: Tlabels")
    .Output("loss: T").Output("backprop: T").Attr("T: {float, double}")
    .Attr("Tlabels: {int32, int64} = DT_INT64").SetShapeFn(SparseXentShape);

REGISTER_OP("SoftmaxCrossEntropyWithLogits").Input("features: T").Input("labels: T")
    .Output("loss: T").Output("backprop: T").Attr("T: {float, double}").SetShapeFn(XentShape);
REGISTER_OP("TopKV2").Input("input: T").Input("k: int32").Output("values: T")
    .Output("indices: int32").Attr("sorted: bool = true")
    .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int8, int16}")
    .SetShapeFn(TopKShape);
REGISTER_OP("InTopKV2").Input("predictions: float").Input("targets: T").Input("k: T")
    .Output("precision: bool").Attr("T: {int32, int64} = DT_INT32").SetShapeFn(InTopKShape);
REGISTER_OP("L2Loss").Input("t: T").Output("output: T")
    .Attr("T: {half, bfloat16, float, double}").SetShapeFn(shape_fn::ScalarShape);

#undef TACT_CONV_ATTRS
#undef TACT_POOL_ATTRS

Output BiasAdd(const Scope& s, Input value, Input bias, const std::string& data_format) {
  return OpBuilder(s, "BiasAdd").Input(value).Input(bias).Attr("data_format", data_format)
      .FinalizeOutput();
}

Output BiasAddGrad(const Scope& s, Input out_backprop, const std::string& data_format) {
  return OpBuilder(s, "BiasAddGrad").Input(out_backprop).Attr("data_format", data_format)
      .FinalizeOutput();
}

Output Conv2D(const Scope& s, Input input, Input filter, std::vector<int64_t> strides,
              const std::string& padding, std::vector<int64_t> dilations) {
  return OpBuilder(s, "Conv2D").Input(input).Input(filter).Attr("strides", std::move(strides))
      .Attr("padding", padding).Attr("dilations", std::move(dilations)).FinalizeOutput();
}

Output Conv2DBackpropInput(const Scope& s, Input input_sizes, Input filter, Input out_backprop,
                           std::vector<int64_t> strides, const std::string& padding,
                           std::vector<int64_t> dilations) {
  return OpBuilder(s, "Conv2DBackpropInput").Input(input_sizes).Input(filter).Input(out_backprop)
      .Attr("strides", std::move(strides)).Attr("padding", padding)
      .Attr("dilations", std::move(dilations)).FinalizeOutput();
}

Output Conv2DBackpropFilter(const Scope& s, Input input, Input filter_sizes, Input out_backprop,
                            std::vector<int64_t> strides, const std::string& padding,
                            std::vector<int64_t> dilations) {
  return OpBuilder(s, "Conv2DBackpropFilter").Input(input).Input(filter_sizes)
      .Input(out_backprop).Attr("strides", std::move(strides)).Attr("padding", padding)
      .Attr("dilations", std::move(dilations)).FinalizeOutput();
}

Output DepthwiseConv2dNative(const Scope& s, Input input, Input filter,
                             std::vector<int64_t> strides, const std::string& padding,
                             std::vector<int64_t> dilations) {
  return OpBuilder(s, "DepthwiseConv2dNative").Input(input).Input(filter)
      .Attr("strides", std::move(strides)).Attr("padding", padding)
      .Attr("dilations", std::move(dilations)).FinalizeOutput();
}

Output DepthwiseConv2dNativeBackpropInput(const Scope& s, Input input_sizes, Input filter,
                                          Input out_backprop, std::vector<int64_t> strides,
                                          const std::string& padding,
                                          std::vector<int64_t> dilations) {
  return OpBuilder(s, "DepthwiseConv2dNativeBackpropInput").Input(input_sizes).Input(filter)
      .Input(out_backprop).Attr("strides", std::move(strides)).Attr("padding", padding)
      .Attr("dilations", std::move(dilations)).FinalizeOutput();
}

Output DepthwiseConv2dNativeBackpropFilter(const Scope& s, Input input, Input filter_sizes,
                                           Input out_backprop, std::vector<int64_t> strides,
                                           const std::string& padding,
                                           std::vector<int64_t> dilations) {
  return OpBuilder(s, "DepthwiseConv2dNativeBackpropFilter").Input(input).Input(filter_sizes)
      .Input(out_backprop).Attr("strides", std::move(strides)).Attr("padding", padding)
      .Attr("dilations", std::move(dilations)).FinalizeOutput();
}

Output MaxPool(const Scope& s, Input input, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, const std::string& padding) {
  return OpBuilder(s, "MaxPool").Input(input).Attr("ksize", std::move(ksize))
      .Attr("strides", std::move(strides)).Attr("padding", padding).FinalizeOutput();
}

Output AvgPool(const Scope& s, Input value, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, const std::string& padding) {
  return OpBuilder(s, "AvgPool").Input(value).Attr("ksize", std::move(ksize))
      .Attr("strides", std::move(strides)).Attr("padding", padding).FinalizeOutput();
}

Output MaxPoolGrad(const Scope& s, Input orig_input, Input orig_output, Input grad,
                   std::vector<int64_t> ksize, std::vector<int64_t> strides,
                   const std::string& padding) {
  return OpBuilder(s, "MaxPoolGrad").Input(orig_input).Input(orig_output).Input(grad)
      .Attr("ksize", std::move(ksize)).Attr("strides", std::move(strides))
      .Attr("padding", padding).FinalizeOutput();
}
Output MaxPoolGradGrad(const Scope& s, Input orig_input, Input orig_output, Input grad,
                       std::vector<int64_t> ksize, std::vector<int64_t> strides,
                       const std::string& padding) {
  return OpBuilder(s, "MaxPoolGradGrad").Input(orig_input).Input(orig_output).Input(grad)
      .Attr("ksize", std::move(ksize)).Attr("strides", std::move(strides))
      .Attr("padding", padding).FinalizeOutput();
}

Output AvgPoolGrad(const Scope& s, Input orig_input_shape, Input grad, std::vector<int64_t> ksize,
                   std::vector<int64_t> strides, const std::string& padding) {
  return OpBuilder(s, "AvgPoolGrad").Input(orig_input_shape).Input(grad)
      .Attr("ksize", std::move(ksize)).Attr("strides", std::move(strides))
      .Attr("padding", padding).FinalizeOutput();
}

Output Softmax(const Scope& s, Input logits) {
  return OpBuilder(s, "Softmax").Input(logits).FinalizeOutput();
}

Output LogSoftmax(const Scope& s, Input logits) {
  return OpBuilder(s, "LogSoftmax").Input(logits).FinalizeOutput();
}

std::vector<Output> SoftmaxCrossEntropyWithLogits(const Scope& s, Input features, Input labels) {
  return OpBuilder(s, "SoftmaxCrossEntropyWithLogits").Input(features).Input(labels)
      .FinalizeOutputs();
}

std::vector<Output> TopK(const Scope& s, Input input, Input k, bool sorted) {
  return OpBuilder(s, "TopKV2").Input(input).Input(k).Attr("sorted", sorted).FinalizeOutputs();
}

Output InTopK(const Scope& s, Input predictions, Input targets, Input k) {
  return OpBuilder(s, "InTopKV2").Input(predictions).Input(targets).Input(k).FinalizeOutput();
}

Output L2Loss(const Scope& s, Input t) { return OpBuilder(s, "L2Loss").Input(t).FinalizeOutput(); }

std::vector<Output> SparseSoftmaxCrossEntropyWithLogits(const Scope& s, Input features,
                                                        Input labels) {
  return OpBuilder(s, "SparseSoftmaxCrossEntropyWithLogits").Input(features).Input(labels)
      .FinalizeOutputs();
}

}  // namespace tact
