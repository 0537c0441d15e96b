// The static cost model: FLOPs from shapes (paper 3.2.1: "a MatMul with
// input shapes [M, K] and [K, N] ... will require approximately 2 x M x N x K
// floating-point operations"), bytes from shapes, link costs by kind of link.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "devices/device_name.h"
#include "graph/attr_value.h"
#include "graph/ops/einsum_equation.h"
#include "placement/cost_model.h"

namespace tact {
namespace {

enum class OpKind {
  kElementwise,  // the default: one operation per element touched
  kNoCompute,    // metadata or a buffer handed on: only the overhead
  kMatMul,
  kBatchMatMul,
  kConv2D,
  kConv2DBackpropInput,
  kConv2DBackpropFilter,
  kEinsum,
  kDepthwiseConv2D,
  kDepthwiseConv2DBackpropInput,
  kDepthwiseConv2DBackpropFilter,
};

OpKind KindOf(const std::string& op) {
  static const auto* const kKinds = new std::unordered_map<std::string, OpKind>{
      {"Const", OpKind::kNoCompute},
      {"Placeholder", OpKind::kNoCompute},
      {"Variable", OpKind::kNoCompute},
      {"Identity", OpKind::kNoCompute},
      {"StopGradient", OpKind::kNoCompute},
      {"NoOp", OpKind::kNoCompute},
      {"Shape", OpKind::kNoCompute},
      {"Size", OpKind::kNoCompute},
      {"Rank", OpKind::kNoCompute},
      {"Reshape", OpKind::kNoCompute},
      {"ExpandDims", OpKind::kNoCompute},
      {"Squeeze", OpKind::kNoCompute},
      {"IsVariableInitialized", OpKind::kNoCompute},
      {"BroadcastGradientArgs", OpKind::kNoCompute},
      {"_Send", OpKind::kNoCompute},
      {"_Recv", OpKind::kNoCompute},
      {"MatMul", OpKind::kMatMul},
      {"BatchMatMul", OpKind::kBatchMatMul},
      {"Conv2D", OpKind::kConv2D},
      {"Conv2DBackpropInput", OpKind::kConv2DBackpropInput},
      {"Conv2DBackpropFilter", OpKind::kConv2DBackpropFilter},
      {"Einsum", OpKind::kEinsum},
      {"DepthwiseConv2dNative", OpKind::kDepthwiseConv2D},
      {"DepthwiseConv2dNativeBackpropInput", OpKind::kDepthwiseConv2DBackpropInput},
      {"DepthwiseConv2dNativeBackpropFilter", OpKind::kDepthwiseConv2DBackpropFilter},
  };
  auto it = kKinds->find(op);
  return it == kKinds->end() ? OpKind::kElementwise : it->second;
}

double Elements(const PartialTensorShape& shape, const StaticCostOptions& o) {
  if (shape.unknown_rank()) return static_cast<double>(o.unknown_rank_elements);
  double n = 1;
  for (int64_t d : shape.dim_sizes()) n *= d < 0 ? static_cast<double>(o.unknown_dim) : d;
  return n;
}

// A dimension, counting from the end when `i` < 0; unknown ones (and those
// of a shape too short) count as the option says.
double Dim(const PartialTensorShape& shape, int i, const StaticCostOptions& o) {
  const int rank = shape.dims();
  if (i < 0) i += rank;
  if (rank < 0 || i < 0 || i >= rank || shape.dim_size(i) < 0) {
    return static_cast<double>(o.unknown_dim);
  }
  return static_cast<double>(shape.dim_size(i));
}

const PartialTensorShape& InputShape(const Node& node, int port) {
  const Edge* e = node.input_edge(port);
  static const PartialTensorShape* const kUnknown = new PartialTensorShape();
  return e == nullptr ? *kUnknown : e->src->output_shape(e->src_output);
}

// The convolutions' backprops take their output's shape as a tensor ("input_sizes",
// "filter_sizes"), which the gradient builder computes with a Shape op, so
// shape inference leaves their outputs unknown. The shape of that Shape op's
// input is the answer.
const PartialTensorShape& OutputShape(const Node& node, int port) {
  const PartialTensorShape& shape = node.output_shape(port);
  if (port != 0 || shape.IsFullyDefined()) return shape;
  int sizes_port = -1;
  if (node.op() == "Conv2DBackpropInput" || node.op() == "DepthwiseConv2dNativeBackpropInput") {
    sizes_port = 0;
  }
  if (node.op() == "Conv2DBackpropFilter" || node.op() == "DepthwiseConv2dNativeBackpropFilter") {
    sizes_port = 1;
  }
  const Edge* e = sizes_port < 0 ? nullptr : node.input_edge(sizes_port);
  if (e != nullptr && e->src->op() == "Shape") return InputShape(*e->src, 0);
  return shape;
}

bool BoolAttr(const Node& node, const char* name) {
  auto it = node.attrs().find(name);
  return it != node.attrs().end() && it->second.kind() == AttrValue::Kind::kBool &&
         it->second.b();
}

// KH * KW * IC of a [KH, KW, IC, OC] filter.
double FilterWindow(const PartialTensorShape& filter, const StaticCostOptions& o) {
  return Dim(filter, 0, o) * Dim(filter, 1, o) * Dim(filter, 2, o);
}

// KH * KW of a filter: a depthwise convolution's window, one channel deep.
double FilterArea(const PartialTensorShape& filter, const StaticCostOptions& o) {
  return Dim(filter, 0, o) * Dim(filter, 1, o);
}

// An Einsum's multiply-adds: the product of every label's size (each
// combination of labels is one product, or one element summed for a
// single operand), twice for two operands. Unknown sizes count as the
// option says; an equation that does not parse counts as element-wise.
double EinsumFlops(const Node& node, const StaticCostOptions& o) {
  std::string equation;
  if (!GetAttr(node.attrs(), "equation", &equation).ok()) return -1;
  const int n = node.num_inputs();
  StatusOr<EinsumEquation> eq = ParseEinsumEquation(equation, n);
  if (!eq.ok()) return -1;
  std::vector<PartialTensorShape> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(InputShape(node, i));
  StatusOr<EinsumDims> dims = ResolveEinsumDims(*eq, shapes);
  if (!dims.ok() || !dims->ellipsis_known) return -1;
  std::vector<bool> seen(52, false);
  double product = 1;
  for (const std::vector<int>& sub : eq->inputs) {
    for (int l : sub) {
      if (l == EinsumEquation::kEllipsis || seen[l]) continue;
      seen[l] = true;
      const int64_t size = dims->letter_size[l];
      product *= size < 0 ? static_cast<double>(o.unknown_dim) : static_cast<double>(size);
    }
  }
  for (int64_t size : dims->ellipsis) {
    product *= size < 0 ? static_cast<double>(o.unknown_dim) : static_cast<double>(size);
  }
  return n == 2 ? 2 * product : product;
}

class StaticCostModel : public CostModel {
 public:
  explicit StaticCostModel(StaticCostOptions options) : options_(std::move(options)) {}

  double ExecutionSeconds(const Node& node, const std::string& device_type) const override {
    auto it = options_.device_types.find(device_type);
    const DeviceTypeCost& c =
        it == options_.device_types.end() ? options_.other_device_type : it->second;
    if (KindOf(node.op()) == OpKind::kNoCompute) return options_.no_compute_seconds;
    return c.op_overhead_seconds + EstimatedFlops(node, options_) / c.flops_per_second;
  }

  int64_t OutputBytes(const Node& node, int port) const override {
    if (port < 0 || port >= node.num_outputs()) return 0;
    return EstimatedElements(node, port, options_) *
           static_cast<int64_t>(DataTypeSize(BaseType(node.output_type(port))));
  }

  LinkCost Link(const std::string& src, const std::string& dst) const override {
    // Names that do not parse are treated as far apart: the safe guess.
    auto a = DeviceName::Parse(src);
    auto b = DeviceName::Parse(dst);
    if (a.ok() && b.ok() && a->job == b->job && a->replica == b->replica && a->task == b->task) {
      return options_.same_task;
    }
    return options_.across_tasks;
  }

 private:
  StaticCostOptions options_;
};

}  // namespace

double CostModel::TransferSeconds(int64_t bytes, const std::string& src,
                                  const std::string& dst) const {
  if (src == dst) return 0;
  const LinkCost l = Link(src, dst);
  return l.latency_seconds + static_cast<double>(bytes) / l.bytes_per_second;
}

int64_t EstimatedElements(const Node& node, int port, const StaticCostOptions& options) {
  return static_cast<int64_t>(Elements(OutputShape(node, port), options));
}

double EstimatedFlops(const Node& node, const StaticCostOptions& o) {
  switch (KindOf(node.op())) {
    case OpKind::kNoCompute:
      return 0;
    case OpKind::kMatMul: {
      // 2 * M * N * K: output [M, N], K from a's shape.
      const int k_dim = BoolAttr(node, "transpose_a") ? 0 : 1;
      return 2 * Elements(node.output_shape(0), o) * Dim(InputShape(node, 0), k_dim, o);
    }
    case OpKind::kBatchMatMul: {
      const int k_dim = BoolAttr(node, "adj_x") ? -2 : -1;
      return 2 * Elements(node.output_shape(0), o) * Dim(InputShape(node, 0), k_dim, o);
    }
    case OpKind::kConv2D:
      // Every output element is a dot product over the filter's window.
      return 2 * Elements(node.output_shape(0), o) * FilterWindow(InputShape(node, 1), o);
    case OpKind::kConv2DBackpropInput:
      // The forward convolution's work, run backwards: one window per
      // element of out_backprop.
      return 2 * Elements(InputShape(node, 2), o) * FilterWindow(InputShape(node, 1), o);
    case OpKind::kConv2DBackpropFilter:
      // The same count; the filter's shape is this node's output.
      return 2 * Elements(InputShape(node, 2), o) * FilterWindow(OutputShape(node, 0), o);
    case OpKind::kEinsum: {
      const double flops = EinsumFlops(node, o);
      if (flops >= 0) return flops;
      break;
    }
    case OpKind::kDepthwiseConv2D:
      // Every output element is a dot product over one channel's window.
      return 2 * Elements(node.output_shape(0), o) * FilterArea(InputShape(node, 1), o);
    case OpKind::kDepthwiseConv2DBackpropInput:
      return 2 * Elements(InputShape(node, 2), o) * FilterArea(InputShape(node, 1), o);
    case OpKind::kDepthwiseConv2DBackpropFilter:
      return 2 * Elements(InputShape(node, 2), o) * FilterArea(OutputShape(node, 0), o);
    case OpKind::kElementwise:
      break;
  }
  // Element-wise (and everything without a formula of its own, reductions
  // and data movement included): one operation per element of the largest
  // tensor it reads or writes.
  double n = 0;
  for (int i = 0; i < node.num_outputs(); ++i) n = std::max(n, Elements(OutputShape(node, i), o));
  for (const Edge* e : node.in_edges()) {
    if (!e->IsControlEdge()) n = std::max(n, Elements(e->src->output_shape(e->src_output), o));
  }
  return n;
}

std::unique_ptr<CostModel> NewStaticCostModel(const Graph& /*graph*/, StaticCostOptions options) {
  return std::make_unique<StaticCostModel>(std::move(options));
}

}  // namespace tact
