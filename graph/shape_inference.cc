#include "graph/shape_inference.h"

#include <algorithm>

#include "graph/tensor.h"

namespace tact {

InferenceContext::InferenceContext(const AttrMap* attrs, std::vector<PartialTensorShape> inputs,
                                   std::vector<const Tensor*> input_tensors, int num_outputs)
    : attrs_(attrs),
      inputs_(std::move(inputs)),
      input_tensors_(std::move(input_tensors)),
      outputs_(num_outputs) {}

void InferenceContext::set_input_shape_value(int i, PartialTensorShape value) {
  if (i >= static_cast<int>(input_shape_values_.size())) input_shape_values_.resize(i + 1);
  input_shape_values_[i] = std::move(value);
}

namespace shape_fn {
Status Unknown(InferenceContext*) { return Status::OK(); }

Status UnchangedShape(InferenceContext* c) {
  if (c->num_inputs() > 0 && c->num_outputs() > 0) c->set_output(0, c->input(0));
  return Status::OK();
}

Status CheckSlices(InferenceContext* c, int ref, int indices, int updates) {
  const PartialTensorShape& r = c->input(ref);
  const PartialTensorShape& ids = c->input(indices);
  if (r.dims() == 0) {
    return errors::InvalidArgument("input ", ref, " must be at least a vector to pick rows from");
  }
  if (r.unknown_rank() || ids.unknown_rank()) return Status::OK();
  std::vector<int64_t> dims = ids.dim_sizes();
  dims.insert(dims.end(), r.dim_sizes().begin() + 1, r.dim_sizes().end());
  const PartialTensorShape want(dims);
  if (!want.IsCompatibleWith(c->input(updates))) {
    return errors::InvalidArgument("input ", updates, " has shape ", c->input(updates).DebugString(),
                                   " but rows of input ", ref, " (", r.DebugString(),
                                   ") picked by input ", indices, " (", ids.DebugString(),
                                   ") have shape ", want.DebugString());
  }
  return Status::OK();
}

Status ShapeFromInput(InferenceContext* c, int index, int out, const char* what) {
  const Tensor* t = c->input_tensor(index);
  if (t == nullptr && c->input_shape_value(index) != nullptr) {
    c->set_output(out, *c->input_shape_value(index));
    return Status::OK();
  }
  if (t == nullptr) {
    const PartialTensorShape& s = c->input(index);
    if (s.dims() == 1 && s.dim_size(0) >= 0) {
      c->set_output(out, PartialTensorShape(std::vector<int64_t>(s.dim_size(0), -1)));
    }
    return Status::OK();
  }
  if (t->dims() != 1 || (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)) {
    return errors::InvalidArgument(what, " must be an int32 or int64 vector, got ",
                                   DataTypeString(t->dtype()), " ", t->shape().DebugString());
  }
  std::vector<int64_t> dims(t->NumElements());
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    dims[i] = t->dtype() == DT_INT32 ? t->data<int32_t>()[i] : t->data<int64_t>()[i];
  }
  StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) return shape.status().WithPrefix(std::string(what) + ": ");
  c->set_output(out, *shape);
  return Status::OK();
}

Status ScalarShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape({}));
  return Status::OK();
}

Status BroadcastBinary(InferenceContext* c) {
  TACT_ASSIGN_OR_RETURN(PartialTensorShape out, BroadcastShapes(c->input(0), c->input(1)));
  c->set_output(0, std::move(out));
  return Status::OK();
}
}  // namespace shape_fn

StatusOr<PartialTensorShape> BroadcastShapes(const PartialTensorShape& a,
                                             const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return PartialTensorShape::Unknown();
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> out(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.dims() - rank + i;
    const int ib = b.dims() - rank + i;
    const int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da == 1) {
      out[i] = db;
    } else if (db == 1) {
      out[i] = da;
    } else if (da < 0) {
      out[i] = db;
    } else if (db < 0 || da == db) {
      out[i] = da;
    } else {
      return errors::InvalidArgument("incompatible shapes for broadcasting: ", a.DebugString(),
                                     " and ", b.DebugString());
    }
  }
  return PartialTensorShape(out);
}

}  // namespace tact
