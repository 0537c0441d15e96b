// Reference helpers for the element-wise kernel tests: NumPy broadcasting
// computed the plain way (a multi-index per output element), in double.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact::test {

// The flat index into an input of shape `in` of the output element at
// `flat` of shape `out` under broadcasting (in is right-aligned to out).
inline int64_t BroadcastSource(const TensorShape& in, const TensorShape& out, int64_t flat) {
  int64_t src = 0, stride = 1;
  for (int d = out.dims() - 1; d >= 0; --d) {
    const int64_t i = flat % out.dim_size(d);
    flat /= out.dim_size(d);
    const int din = d - (out.dims() - in.dims());
    if (din < 0) continue;
    if (in.dim_size(din) != 1) src += i * stride;
    stride *= in.dim_size(din);
  }
  return src;
}

// f(x[...], y[...]) for every element of a broadcast result of shape `out`.
inline std::vector<double> RefBroadcast(const Tensor& x, const Tensor& y, const TensorShape& out,
                                        const std::function<double(double, double)>& f) {
  const std::vector<double> xd = ToDoubles(x), yd = ToDoubles(y);
  std::vector<double> want(out.num_elements());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    want[i] = f(xd[BroadcastSource(x.shape(), out, i)], yd[BroadcastSource(y.shape(), out, i)]);
  }
  return want;
}

inline std::vector<double> RefUnary(const Tensor& x, const std::function<double(double)>& f) {
  std::vector<double> want = ToDoubles(x);
  for (double& v : want) v = f(v);
  return want;
}

// Runs `op` on `inputs`, expecting success and exactly one output.
inline Tensor RunOne(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {},
                     int threads = 2) {
  auto out = RunOp(op, inputs, std::move(attrs), threads);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

// `op` on random T in [lo, hi) against `ref` applied in double, over
// shapes that take every path of a kernel: a scalar, empty tensors, odd
// sizes.
template <typename T>
void CheckUnary(const std::string& op, const std::function<double(double)>& ref, double lo = -3,
                double hi = 3, AttrMap attrs = {}) {
  uint32_t seed = 100;
  for (const TensorShape& shape : {TensorShape({}), TensorShape({0}), TensorShape({7}),
                                   TensorShape({3, 4, 5}), TensorShape({2, 0, 3})}) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeToEnum<T>::value) + " " + shape.DebugString());
    Tensor x = Random<T>(shape, seed++, lo, hi);
    Tensor y = RunOne(op, {x}, attrs);
    ASSERT_TRUE(y.IsInitialized());
    EXPECT_EQ(y.dtype(), x.dtype());
    ExpectClose(y, shape, RefUnary(x, ref), 2e-6, 1e-6);
  }
}

// Output 0 of `op`'s shape function on the given input shapes.
inline StatusOr<PartialTensorShape> InferShape(const std::string& op,
                                               std::vector<PartialTensorShape> inputs,
                                               const AttrMap& attrs = {}, int num_outputs = 1) {
  TACT_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  InferenceContext c(&attrs, std::move(inputs), {}, num_outputs);
  TACT_RETURN_IF_ERROR(def->shape_fn(&c));
  return c.output(0);
}

}  // namespace tact::test
