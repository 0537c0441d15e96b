#include "graph/ops/array_ops.h"

#include <optional>

#include "graph/op_registry.h"
#include "graph/strided_slice_spec.h"

namespace tact {
namespace {

// The elements of input i when it is a constant int32/int64 tensor known at
// graph-construction time (flattened), else nullopt.
std::optional<std::vector<int64_t>> ConstInts(InferenceContext* c, int i) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr) return std::nullopt;
  std::vector<int64_t> v(t->NumElements());
  if (t->dtype() == DT_INT32) {
    for (size_t k = 0; k < v.size(); ++k) v[k] = t->data<int32_t>()[k];
  } else if (t->dtype() == DT_INT64) {
    for (size_t k = 0; k < v.size(); ++k) v[k] = t->data<int64_t>()[k];
  } else {
    return std::nullopt;
  }
  return v;
}

// A shape of `rank` unknown dims (unknown rank if rank < 0).
PartialTensorShape UnknownDims(int64_t rank) {
  if (rank < 0) return PartialTensorShape::Unknown();
  return PartialTensorShape(std::vector<int64_t>(rank, -1));
}

// The length of input i if it is a vector of known length, else -1.
int64_t VectorLength(InferenceContext* c, int i) {
  const PartialTensorShape& s = c->input(i);
  return s.dims() == 1 ? s.dim_size(0) : -1;
}

StatusOr<int> ShapeAxis(int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument(what, " ", axis, " is out of range for rank ", rank,
                                   " (expected [", -rank, ", ", rank, "))");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// The most a and b together tell about one shape; an error if they conflict.
StatusOr<PartialTensorShape> Merge(const PartialTensorShape& a, const PartialTensorShape& b) {
  if (a.unknown_rank()) return b;
  if (b.unknown_rank()) return a;
  if (!a.IsCompatibleWith(b)) {
    return errors::InvalidArgument("shapes ", a.DebugString(), " and ", b.DebugString(),
                                   " are incompatible");
  }
  std::vector<int64_t> dims = a.dim_sizes();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) dims[i] = b.dim_size(i);
  }
  return PartialTensorShape(dims);
}

Status ReshapeShape(InferenceContext* c) {
  std::optional<std::vector<int64_t>> shape = ConstInts(c, 1);
  if (!shape && c->input_shape_value(1) != nullptr) {
    // Another tensor's shape (Shape(x)): its dimensions, -1 where unknown,
    // and never "infer this one".
    const PartialTensorShape& to = *c->input_shape_value(1);
    const PartialTensorShape& in = c->input(0);
    if (to.IsFullyDefined() && in.IsFullyDefined() &&
        to.AsTensorShape()->num_elements() != in.AsTensorShape()->num_elements()) {
      return errors::InvalidArgument("cannot reshape ", in.DebugString(), " to the shape ",
                                     to.DebugString(), " of another tensor");
    }
    c->set_output(0, to);
    return Status::OK();
  }
  if (!shape) {
    c->set_output(0, UnknownDims(VectorLength(c, 1)));
    return Status::OK();
  }
  std::vector<int64_t> dims = *shape;
  int unknown = -1;
  int64_t product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1 && unknown < 0) {
      unknown = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return errors::InvalidArgument("shape has more than one -1 or a size < -1 at ", i);
    } else if (__builtin_mul_overflow(product, dims[i], &product)) {
      return errors::InvalidArgument("shape ", PartialTensorShape(dims).DebugString(),
                                     " has too many elements");
    }
  }
  const PartialTensorShape& in = c->input(0);
  if (in.IsFullyDefined()) {
    const int64_t n = in.AsTensorShape()->num_elements();
    if (unknown >= 0 && product > 0) {
      if (n % product != 0) {
        return errors::InvalidArgument("cannot reshape ", in.DebugString(), " (", n,
                                       " elements) to a multiple of ", product);
      }
      dims[unknown] = n / product;
    } else if (unknown < 0 && product != n) {
      return errors::InvalidArgument("cannot reshape ", in.DebugString(), " (", n,
                                     " elements) to ", PartialTensorShape(dims).DebugString(),
                                     " (", product, " elements)");
    }
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  std::optional<std::vector<int64_t>> dim = ConstInts(c, 1);
  if (in.unknown_rank() || !dim || dim->size() != 1) {
    c->set_output(0, UnknownDims(in.unknown_rank() ? -1 : in.dims() + 1));
    return Status::OK();
  }
  TACT_ASSIGN_OR_RETURN(int axis, ShapeAxis((*dim)[0], in.dims() + 1, "dim"));
  std::vector<int64_t> dims = in.dim_sizes();
  dims.insert(dims.begin() + axis, 1);
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  std::vector<int64_t> squeeze;
  TACT_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze));
  if (in.unknown_rank()) return Status::OK();
  std::vector<bool> remove(in.dims(), false);
  for (int64_t d : squeeze) {
    TACT_ASSIGN_OR_RETURN(int axis, ShapeAxis(d, in.dims(), "squeeze dimension"));
    if (in.dim_size(axis) > 1 || in.dim_size(axis) == 0) {
      return errors::InvalidArgument("cannot squeeze dimension ", d, " of shape ",
                                     in.DebugString(), ": its size is not 1");
    }
    remove[axis] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in.dims(); ++i) {
    // With no list, an unknown dim may or may not go: the rank is unknown.
    if (squeeze.empty() && in.dim_size(i) < 0) return Status::OK();
    const bool drop = squeeze.empty() ? in.dim_size(i) == 1 : remove[i];
    if (!drop) dims.push_back(in.dim_size(i));
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status TransposeShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  std::optional<std::vector<int64_t>> perm = ConstInts(c, 1);
  if (!perm) {
    if (in.dims() == 0 || in.dims() == 1) {
      c->set_output(0, in);  // the only permutation is the identity
    } else {
      c->set_output(0, UnknownDims(in.unknown_rank() ? VectorLength(c, 1) : in.dims()));
    }
    return Status::OK();
  }
  const int rank = static_cast<int>(perm->size());
  if (!in.unknown_rank() && in.dims() != rank) {
    return errors::InvalidArgument("perm has ", rank, " entries but x has shape ",
                                   in.DebugString());
  }
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> dims(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t p = (*perm)[d];
    if (p < 0 || p >= rank || seen[p]) {
      return errors::InvalidArgument("perm is not a permutation of [0, ", rank, ")");
    }
    seen[p] = true;
    dims[d] = in.unknown_rank() ? -1 : in.dim_size(p);
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

// The values are inputs [first, first + n), the axis is input `axis_input`:
// ConcatV2 (values, then axis) and the original Concat (concat_dim first).
Status ConcatShapeOf(InferenceContext* c, int first, int n, int axis_input) {
  int rank = -1;
  for (int i = 0; i < n; ++i) {
    const int r = c->input(first + i).dims();
    if (r < 0) continue;
    if (rank >= 0 && r != rank) {
      return errors::InvalidArgument("values[", i, "] has shape ", c->input(first + i).DebugString(),
                                     " but another value has rank ", rank);
    }
    rank = r;
  }
  if (rank == 0) return errors::InvalidArgument("cannot concatenate scalars (use Pack)");
  std::optional<std::vector<int64_t>> axis_v = ConstInts(c, axis_input);
  if (rank < 0 || !axis_v || axis_v->size() != 1) {
    c->set_output(0, UnknownDims(rank));
    return Status::OK();
  }
  TACT_ASSIGN_OR_RETURN(int axis, ShapeAxis((*axis_v)[0], rank, "axis"));
  PartialTensorShape rest = UnknownDims(rank);  // every dim but axis, merged
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const PartialTensorShape& s = c->input(first + i);
    if (s.unknown_rank()) {
      total = -1;
      continue;
    }
    std::vector<int64_t> dims = s.dim_sizes();
    const int64_t d = dims[axis];
    total = (total < 0 || d < 0) ? -1 : total + d;
    dims[axis] = -1;
    StatusOr<PartialTensorShape> merged = Merge(rest, PartialTensorShape(dims));
    if (!merged.ok()) {
      return errors::InvalidArgument("values[", i, "] has shape ", s.DebugString(),
                                     ", which does not match the others outside axis ", axis);
    }
    rest = *merged;
  }
  std::vector<int64_t> out = rest.dim_sizes();
  out[axis] = total;
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status ConcatV2Shape(InferenceContext* c) {
  return ConcatShapeOf(c, 0, c->num_inputs() - 1, c->num_inputs() - 1);
}

Status ConcatShape(InferenceContext* c) { return ConcatShapeOf(c, 1, c->num_inputs() - 1, 0); }

// As precise as the inputs allow: with a constant spec and a known rank,
// every dimension whose input size is known, and every new or shrunk one.
Status StridedSliceShape(InferenceContext* c) {
  SliceMasks m;
  TACT_RETURN_IF_ERROR(c->GetAttr("begin_mask", &m.begin));
  TACT_RETURN_IF_ERROR(c->GetAttr("end_mask", &m.end));
  TACT_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &m.ellipsis));
  TACT_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &m.new_axis));
  TACT_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &m.shrink));
  const PartialTensorShape& in = c->input(0);
  std::optional<std::vector<int64_t>> begin = ConstInts(c, 1), end = ConstInts(c, 2),
                                      strides = ConstInts(c, 3);
  if (in.unknown_rank() || !begin || !end || !strides) return shape_fn::Unknown(c);
  if (begin->size() != end->size() || begin->size() != strides->size()) {
    return errors::InvalidArgument("begin, end and strides have ", begin->size(), ", ", end->size(), " and ",
                                   strides->size(), " entries");
  }
  std::vector<DenseDim> dense;
  std::vector<int> gather;
  TACT_RETURN_IF_ERROR(BuildDenseSlice(in.dims(), *begin, *end, *strides, m, &dense, &gather));
  // Every known dimension is resolved, a shrunk one too (its index must be
  // inside it).
  std::vector<int64_t> sizes(in.dims(), -1);
  for (int d = 0; d < in.dims(); ++d) {
    int64_t first = 0;
    if (in.dim_size(d) < 0) continue;
    TACT_RETURN_IF_ERROR(ResolveSliceDim(dense[d], d, in.dim_size(d), &first, &sizes[d]));
  }
  std::vector<int64_t> dims;
  for (int g : gather) {
    if (g == kNewSliceAxis) dims.push_back(1);
    if (g >= 0) dims.push_back(sizes[g]);
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

Status StridedSliceGradShape(InferenceContext* c) {
  std::optional<std::vector<int64_t>> shape = ConstInts(c, 0);
  c->set_output(0, shape ? PartialTensorShape(*shape) : UnknownDims(VectorLength(c, 0)));
  return Status::OK();
}

Status SplitShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(1);
  int64_t num_split;
  TACT_RETURN_IF_ERROR(c->GetAttr("num_split", &num_split));
  std::optional<std::vector<int64_t>> axis_v = ConstInts(c, 0);
  PartialTensorShape piece = UnknownDims(in.dims());
  if (!in.unknown_rank() && axis_v && axis_v->size() == 1) {
    TACT_ASSIGN_OR_RETURN(int axis, ShapeAxis((*axis_v)[0], in.dims(), "split_dim"));
    std::vector<int64_t> dims = in.dim_sizes();
    if (dims[axis] >= 0 && dims[axis] % num_split != 0) {
      return errors::InvalidArgument("num_split ", num_split, " does not evenly divide dimension ",
                                     axis, " of ", in.DebugString());
    }
    if (dims[axis] >= 0) dims[axis] /= num_split;
    piece = PartialTensorShape(dims);
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, piece);
  return Status::OK();
}

Status SliceShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  std::optional<std::vector<int64_t>> begin = ConstInts(c, 1), size = ConstInts(c, 2);
  int64_t rank = in.dims() >= 0 ? in.dims() : VectorLength(c, 1);
  if (!size) {
    c->set_output(0, UnknownDims(rank >= 0 ? rank : VectorLength(c, 2)));
    return Status::OK();
  }
  if ((rank >= 0 && static_cast<int64_t>(size->size()) != rank) ||
      (begin && begin->size() != size->size())) {
    return errors::InvalidArgument("begin and size must have one entry per dimension of ",
                                   in.DebugString());
  }
  std::vector<int64_t> dims(size->size());
  for (size_t d = 0; d < dims.size(); ++d) {
    dims[d] = (*size)[d];
    if (dims[d] >= 0) continue;
    if (dims[d] < -1) return errors::InvalidArgument("size ", dims[d], " is < -1");
    const bool known = begin && !in.unknown_rank() && in.dim_size(d) >= 0;
    if (known && ((*begin)[d] < 0 || (*begin)[d] > in.dim_size(d))) {
      return errors::InvalidArgument("begin ", (*begin)[d], " is out of range for dimension ", d,
                                     " of ", in.DebugString());
    }
    dims[d] = known ? in.dim_size(d) - (*begin)[d] : -1;
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status PadShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  const PartialTensorShape& p = c->input(1);
  const int64_t rank = in.dims() >= 0 ? in.dims() : (p.dims() == 2 ? p.dim_size(0) : -1);
  if (p.dims() >= 0 && (p.dims() != 2 || (p.dim_size(1) >= 0 && p.dim_size(1) != 2) ||
                        (rank >= 0 && p.dim_size(0) >= 0 && p.dim_size(0) != rank))) {
    return errors::InvalidArgument("paddings must have shape [rank,2], got ", p.DebugString(),
                                   " for input ", in.DebugString());
  }
  std::optional<std::vector<int64_t>> pads = ConstInts(c, 1);
  if (!pads || rank < 0) {
    c->set_output(0, UnknownDims(rank));
    return Status::OK();
  }
  std::vector<int64_t> dims(rank, -1);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t b = (*pads)[2 * d], a = (*pads)[2 * d + 1];
    if (b < 0 || a < 0) return errors::InvalidArgument("paddings must be >= 0");
    if (in.unknown_rank() || in.dim_size(d) < 0) continue;
    if (__builtin_add_overflow(in.dim_size(d), a, &dims[d]) ||
        __builtin_add_overflow(dims[d], b, &dims[d])) {
      return errors::InvalidArgument("padding dimension ", d, " overflows");
    }
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status TileShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  std::optional<std::vector<int64_t>> m = ConstInts(c, 1);
  const int64_t rank = in.dims() >= 0 ? in.dims() : (m ? m->size() : VectorLength(c, 1));
  if (!m) {
    c->set_output(0, UnknownDims(rank));
    return Status::OK();
  }
  if (static_cast<int64_t>(m->size()) != rank) {
    return errors::InvalidArgument("multiples has ", m->size(), " entries for input ",
                                   in.DebugString());
  }
  std::vector<int64_t> dims(rank, -1);
  for (int64_t d = 0; d < rank; ++d) {
    if ((*m)[d] < 0) return errors::InvalidArgument("multiples must be >= 0");
    if ((*m)[d] == 0) {
      dims[d] = 0;
    } else if (!in.unknown_rank() && in.dim_size(d) >= 0 &&
               __builtin_mul_overflow(in.dim_size(d), (*m)[d], &dims[d])) {
      return errors::InvalidArgument("tiling dimension ", d, " overflows");
    }
  }
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

// The shape input's value, where it is known; the input must broadcast to it.
Status BroadcastToShape(InferenceContext* c) {
  std::optional<std::vector<int64_t>> target = ConstInts(c, 1);
  if (!target) {
    c->set_output(0, UnknownDims(VectorLength(c, 1)));
    return Status::OK();
  }
  for (int64_t d : *target) {
    if (d < 0) return errors::InvalidArgument("shape has a negative dimension: ", d);
  }
  const PartialTensorShape to(*target);
  TACT_ASSIGN_OR_RETURN(PartialTensorShape both, BroadcastShapes(c->input(0), to));
  if (!both.unknown_rank() && both.dims() != to.dims()) {
    return errors::InvalidArgument("input of shape ", c->input(0).DebugString(),
                                   " cannot broadcast to ", to.DebugString());
  }
  c->set_output(0, to);
  return Status::OK();
}

Status GatherShape(InferenceContext* c) {
  const PartialTensorShape& params = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  if (params.dims() == 0) return errors::InvalidArgument("params must be at least a vector");
  if (params.unknown_rank() || indices.unknown_rank()) return Status::OK();
  std::vector<int64_t> dims = indices.dim_sizes();
  dims.insert(dims.end(), params.dim_sizes().begin() + 1, params.dim_sizes().end());
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

// params.shape[:axis] + indices.shape + params.shape[axis + 1:], where the
// axis is a constant; else only the rank, where both ranks are known.
Status GatherV2Shape(InferenceContext* c) {
  int64_t batch_dims;
  TACT_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  if (batch_dims != 0) {
    return errors::Unimplemented("batch_dims ", batch_dims, ": only batch_dims 0 is supported");
  }
  const PartialTensorShape& params = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  if (params.dims() == 0) return errors::InvalidArgument("params must be at least a vector");
  if (!c->input(2).unknown_rank() && c->input(2).dims() != 0) {
    return errors::InvalidArgument("axis must be a scalar, got shape ", c->input(2).DebugString());
  }
  if (params.unknown_rank() || indices.unknown_rank()) return Status::OK();
  const std::optional<std::vector<int64_t>> axis = ConstInts(c, 2);
  if (!axis) {
    c->set_output(0, UnknownDims(params.dims() + indices.dims() - 1));
    return Status::OK();
  }
  TACT_ASSIGN_OR_RETURN(int a, ShapeAxis((*axis)[0], params.dims(), "axis"));
  std::vector<int64_t> dims(params.dim_sizes().begin(), params.dim_sizes().begin() + a);
  dims.insert(dims.end(), indices.dim_sizes().begin(), indices.dim_sizes().end());
  dims.insert(dims.end(), params.dim_sizes().begin() + a + 1, params.dim_sizes().end());
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status UniqueShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  if (!x.unknown_rank() && x.dims() != 1) {
    return errors::InvalidArgument("x must be a vector, got shape ", x.DebugString());
  }
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, x.unknown_rank() ? PartialTensorShape({-1}) : x);
  return Status::OK();
}

Status PackShape(InferenceContext* c) {
  PartialTensorShape merged;
  for (int i = 0; i < c->num_inputs(); ++i) {
    StatusOr<PartialTensorShape> m = Merge(merged, c->input(i));
    if (!m.ok()) {
      return errors::InvalidArgument("values[", i, "] has shape ", c->input(i).DebugString(),
                                     ", which does not match ", merged.DebugString());
    }
    merged = *m;
  }
  if (merged.unknown_rank()) return Status::OK();
  int64_t axis;
  TACT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  TACT_ASSIGN_OR_RETURN(int a, ShapeAxis(axis, merged.dims() + 1, "axis"));
  std::vector<int64_t> dims = merged.dim_sizes();
  dims.insert(dims.begin() + a, c->num_inputs());
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status UnpackShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) return Status::OK();
  int64_t axis;
  TACT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  TACT_ASSIGN_OR_RETURN(int a, ShapeAxis(axis, in.dims(), "axis"));
  if (in.dim_size(a) >= 0 && in.dim_size(a) != c->num_outputs()) {
    return errors::InvalidArgument("num ", c->num_outputs(), " does not match dimension ", a,
                                   " of ", in.DebugString());
  }
  std::vector<int64_t> dims = in.dim_sizes();
  dims.erase(dims.begin() + a);
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape(dims));
  return Status::OK();
}

Status ShapeShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({c->input(0).dims()}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Reshape").Input("tensor: T").Input("shape: Tshape").Output("output: T")
    .Attr("T: type").Attr("Tshape: {int32, int64} = int32").SetShapeFn(ReshapeShape);
REGISTER_OP("ExpandDims").Input("input: T").Input("dim: Tdim").Output("output: T")
    .Attr("T: type").Attr("Tdim: {int32, int64} = int32").SetShapeFn(ExpandDimsShape);
REGISTER_OP("Squeeze").Input("input: T").Output("output: T").Attr("T: type")
    .Attr("squeeze_dims: list(int) = []").SetShapeFn(SqueezeShape);
REGISTER_OP("Transpose").Input("x: T").Input("perm: Tperm").Output("y: T").Attr("T: type")
    .Attr("Tperm: {int32, int64} = int32").SetShapeFn(TransposeShape);
// TensorFlow's original Concat, concat_dim first, for GraphDefs that use it.
REGISTER_OP("Concat").Input("concat_dim: int32").Input("values: N * T").Output("output: T")
    .Attr("N: int >= 2").Attr("T: type").SetShapeFn(ConcatShape);
REGISTER_OP("ConcatV2").Input("values: N * T").Input("axis: Tidx").Output("output: T")
    .Attr("N: int >= 2").Attr("T: type").Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn(ConcatV2Shape);
REGISTER_OP("Split").Input("split_dim: int32").Input("value: T").Output("output: num_split * T")
    .Attr("num_split: int >= 1").Attr("T: type").SetShapeFn(SplitShape);
REGISTER_OP("Slice").Input("input: T").Input("begin: Index").Input("size: Index")
    .Output("output: T").Attr("T: type").Attr("Index: {int32, int64}").SetShapeFn(SliceShape);
REGISTER_OP("StridedSlice").Input("input: T").Input("begin: Index").Input("end: Index")
    .Input("strides: Index").Output("output: T").Attr("T: type").Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0").Attr("end_mask: int = 0").Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0").Attr("shrink_axis_mask: int = 0").SetShapeFn(StridedSliceShape);
// StridedSlice's gradient: zeros of `shape` with dy where the slice took
// its elements.
REGISTER_OP("StridedSliceGrad").Input("shape: Index").Input("begin: Index").Input("end: Index")
    .Input("strides: Index").Input("dy: T").Output("output: T").Attr("T: type")
    .Attr("Index: {int32, int64}").Attr("begin_mask: int = 0").Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0").Attr("new_axis_mask: int = 0").Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceGradShape);
REGISTER_OP("Pad").Input("input: T").Input("paddings: Tpaddings").Output("output: T")
    .Attr("T: type").Attr("Tpaddings: {int32, int64} = int32").SetShapeFn(PadShape);
REGISTER_OP("Tile").Input("input: T").Input("multiples: Tmultiples").Output("output: T")
    .Attr("T: type").Attr("Tmultiples: {int32, int64} = int32").SetShapeFn(TileShape);
REGISTER_OP("ReverseV2").Input("tensor: T").Input("axis: Tidx").Output("output: T")
    .Attr("T: type").Attr("Tidx: {int32, int64} = int32").SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("BroadcastTo").Input("input: T").Input("shape: Tidx").Output("output: T")
    .Attr("T: type").Attr("Tidx: {int32, int64} = int32").SetShapeFn(BroadcastToShape);
REGISTER_OP("Gather").Input("params: Tparams").Input("indices: Tindices").Output("output: Tparams")
    .Attr("validate_indices: bool = true").Attr("Tparams: type").Attr("Tindices: {int32, int64}")
    .SetShapeFn(GatherShape);
REGISTER_OP("GatherV2").Input("params: Tparams").Input("indices: Tindices").Input("axis: Taxis")
    .Output("output: Tparams").Attr("batch_dims: int = 0").Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}").Attr("Taxis: {int32, int64}").SetShapeFn(GatherV2Shape);
REGISTER_OP("Unique").Input("x: T").Output("y: T").Output("idx: out_idx").Attr("T: type")
    .Attr("out_idx: {int32, int64} = int32").SetShapeFn(UniqueShape);
REGISTER_OP("Pack").Input("values: N * T").Output("output: T").Attr("N: int >= 1")
    .Attr("T: type").Attr("axis: int = 0").SetShapeFn(PackShape);
REGISTER_OP("Unpack").Input("value: T").Output("output: num * T").Attr("num: int >= 0")
    .Attr("T: type").Attr("axis: int = 0").SetShapeFn(UnpackShape);
REGISTER_OP("Shape").Input("input: T").Output("output: out_type").Attr("T: type")
    .Attr("out_type: {int32, int64} = int32").SetShapeFn(ShapeShape);
REGISTER_OP("Size").Input("input: T").Output("output: out_type").Attr("T: type")
    .Attr("out_type: {int32, int64} = int32").SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("Rank").Input("input: T").Output("output: int32").Attr("T: type")
    .SetShapeFn(shape_fn::ScalarShape);

Output ReverseV2(const Scope& scope, Input tensor, Input axis) {
  return OpBuilder(scope, "ReverseV2").Input(tensor).Input(axis).FinalizeOutput();
}
Output BroadcastTo(const Scope& scope, Input input, Input shape) {
  return OpBuilder(scope, "BroadcastTo").Input(input).Input(shape).FinalizeOutput();
}

Output Reshape(const Scope& scope, Input tensor, Input shape) {
  return OpBuilder(scope, "Reshape").Input(tensor).Input(shape).FinalizeOutput();
}

Output ExpandDims(const Scope& scope, Input input, Input dim) {
  return OpBuilder(scope, "ExpandDims").Input(input).Input(dim).FinalizeOutput();
}

Output Squeeze(const Scope& scope, Input input, std::vector<int64_t> squeeze_dims) {
  return OpBuilder(scope, "Squeeze").Input(input).Attr("squeeze_dims", std::move(squeeze_dims))
      .FinalizeOutput();
}

Output Transpose(const Scope& scope, Input x, Input perm) {
  return OpBuilder(scope, "Transpose").Input(x).Input(perm).FinalizeOutput();
}

Output Concat(const Scope& scope, const std::vector<Input>& values, Input axis) {
  return OpBuilder(scope, "ConcatV2").InputList(values).Input(axis).FinalizeOutput();
}

std::vector<Output> Split(const Scope& scope, Input axis, Input value, int64_t num_split) {
  return OpBuilder(scope, "Split").Input(axis).Input(value).Attr("num_split", num_split)
      .FinalizeOutputs();
}

Output Slice(const Scope& scope, Input input, Input begin, Input size) {
  return OpBuilder(scope, "Slice").Input(input).Input(begin).Input(size).FinalizeOutput();
}

Output StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides,
                    int64_t begin_mask, int64_t end_mask, int64_t ellipsis_mask,
                    int64_t new_axis_mask, int64_t shrink_axis_mask) {
  return OpBuilder(scope, "StridedSlice").Input(input).Input(begin).Input(end).Input(strides)
      .Attr("begin_mask", begin_mask).Attr("end_mask", end_mask)
      .Attr("ellipsis_mask", ellipsis_mask).Attr("new_axis_mask", new_axis_mask)
      .Attr("shrink_axis_mask", shrink_axis_mask).FinalizeOutput();
}

Output Pad(const Scope& scope, Input input, Input paddings) {
  return OpBuilder(scope, "Pad").Input(input).Input(paddings).FinalizeOutput();
}

Output Tile(const Scope& scope, Input input, Input multiples) {
  return OpBuilder(scope, "Tile").Input(input).Input(multiples).FinalizeOutput();
}

Output Gather(const Scope& scope, Input params, Input indices, bool validate_indices) {
  return OpBuilder(scope, "Gather").Input(params).Input(indices)
      .Attr("validate_indices", validate_indices).FinalizeOutput();
}

Output Pack(const Scope& scope, const std::vector<Input>& values, int64_t axis) {
  return OpBuilder(scope, "Pack").InputList(values).Attr("axis", axis).FinalizeOutput();
}

Output GatherV2(const Scope& scope, Input params, Input indices, Input axis) {
  return OpBuilder(scope, "GatherV2").Input(params).Input(indices).Input(axis).FinalizeOutput();
}

std::vector<Output> Unique(const Scope& scope, Input x, DataType out_idx) {
  return OpBuilder(scope, "Unique").Input(x).Attr("out_idx", out_idx).FinalizeOutputs();
}

std::vector<Output> Unpack(const Scope& scope, Input value, int64_t num, int64_t axis) {
  return OpBuilder(scope, "Unpack").Input(value).Attr("num", num).Attr("axis", axis)
      .FinalizeOutputs();
}

Output Shape(const Scope& scope, Input input, DataType out_type) {
  return OpBuilder(scope, "Shape").Input(input).Attr("out_type", out_type).FinalizeOutput();
}

Output Size(const Scope& scope, Input input, DataType out_type) {
  return OpBuilder(scope, "Size").Input(input).Attr("out_type", out_type).FinalizeOutput();
}

Output Rank(const Scope& scope, Input input) {
  return OpBuilder(scope, "Rank").Input(input).FinalizeOutput();
}

}  // namespace tact
