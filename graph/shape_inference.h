// Shape inference: what an op's shape function sees. Shapes may be partly
// unknown; a shape function narrows its outputs as far as its inputs allow
// and returns an error only for inputs that can never be valid.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "graph/attr_value.h"
#include "graph/status.h"
#include "graph/tensor_shape.h"

namespace tact {

class InferenceContext {
 public:
  // `input_tensors[i]` is the value of input i where it is a constant known
  // at graph-construction time (nullptr otherwise); may be shorter than
  // `input_shapes`.
  InferenceContext(const AttrMap* attrs, std::vector<PartialTensorShape> input_shapes,
                   std::vector<const Tensor*> input_tensors, int num_outputs);

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const PartialTensorShape& input(int i) const { return inputs_[i]; }
  const Tensor* input_tensor(int i) const {
    return i < static_cast<int>(input_tensors_.size()) ? input_tensors_[i] : nullptr;
  }
  // The value of input i, a shape vector, as far as it is known where it is
  // not a constant: where input i is a Shape op's output, that op's input's
  // (partial) shape; nullptr otherwise. So Reshape(g, Shape(x)), as the
  // gradient functions write it, takes x's shape.
  const PartialTensorShape* input_shape_value(int i) const {
    return i < static_cast<int>(input_shape_values_.size()) && input_shape_values_[i]
               ? &*input_shape_values_[i]
               : nullptr;
  }
  void set_input_shape_value(int i, PartialTensorShape value);
  const AttrMap& attrs() const { return *attrs_; }
  template <typename T>
  Status GetAttr(const std::string& name, T* out) const {
    return ::tact::GetAttr(*attrs_, name, out);
  }

  void set_output(int i, PartialTensorShape shape) { outputs_[i] = std::move(shape); }
  const PartialTensorShape& output(int i) const { return outputs_[i]; }
  const std::vector<PartialTensorShape>& outputs() const { return outputs_; }

 private:
  const AttrMap* attrs_;
  std::vector<PartialTensorShape> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<std::optional<PartialTensorShape>> input_shape_values_;
  std::vector<PartialTensorShape> outputs_;  // unknown until set
};

using ShapeFn = std::function<Status(InferenceContext*)>;

// Common shape functions.
namespace shape_fn {
Status Unknown(InferenceContext* c);          // every output unknown
Status UnchangedShape(InferenceContext* c);   // output 0 = input 0
Status ScalarShape(InferenceContext* c);      // every output a scalar
// NumPy broadcasting of inputs 0 and 1 into output 0.
Status BroadcastBinary(InferenceContext* c);
// Checks that input `updates` can be the rows of input `ref` picked by
// input `indices` (shape indices.shape + ref.shape[1:], as Scatter* and
// SparseApply* take them), naming the input that does not fit.
Status CheckSlices(InferenceContext* c, int ref, int indices, int updates);
// Output `out` takes the shape held by input `index`, an int32 or int64
// vector (Fill's dims, the random ops' and ScatterNd's shape): its value
// where it is a constant, else its rank where the vector's length is known.
// A constant that is not such a vector, or holds a negative dimension, is
// an InvalidArgument naming `what`.
Status ShapeFromInput(InferenceContext* c, int index, int out, const char* what);
}  // namespace shape_fn

// Broadcasts two partial shapes by NumPy's rules; InvalidArgument if they
// are incompatible.
StatusOr<PartialTensorShape> BroadcastShapes(const PartialTensorShape& a,
                                             const PartialTensorShape& b);

}  // namespace tact
