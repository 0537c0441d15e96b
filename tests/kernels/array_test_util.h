// Helpers for the array-op tests: index arithmetic, random inputs of any
// dtype (strings too), and references built element by element from an
// index map, compared bitwise.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact::test {

// The multi-index of flat offset `flat` in row-major `dims`.
inline std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    idx[d] = flat % dims[d];
    flat /= dims[d];
  }
  return idx;
}

inline int64_t Ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + idx[d];
  return flat;
}

// An int32 (or int64) tensor of `values`, shaped `shape` (default: a vector).
inline Tensor Ints(const std::vector<int64_t>& values, DataType dtype = DT_INT32,
                   TensorShape shape = TensorShape({-1})) {
  if (shape.dims() == 1 && shape.dim_size(0) == -1) {
    shape = TensorShape({static_cast<int64_t>(values.size())});
  }
  Tensor t(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DT_INT32) t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    else t.data<int64_t>()[i] = values[i];
  }
  return t;
}

// Strings of varied lengths, some past the small-string buffer.
inline Tensor RandomStrings(const TensorShape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  Tensor t(DT_STRING, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    std::string s = std::to_string(gen() % 100000);
    if (gen() % 3 == 0) s.append(20 + gen() % 20, static_cast<char>('a' + gen() % 26));
    t.data<std::string>()[i] = s;
  }
  return t;
}

// Random elements of any dtype that the array ops move.
inline Tensor RandomAny(DataType dtype, const TensorShape& shape, uint32_t seed) {
  switch (dtype) {
    case DT_STRING: return RandomStrings(shape, seed);
    case DT_FLOAT: return Random<float>(shape, seed);
    case DT_DOUBLE: return Random<double>(shape, seed);
    case DT_INT32: return Random<int32_t>(shape, seed, -100, 100);
    case DT_INT64: return Random<int64_t>(shape, seed, -1e6, 1e6);
    case DT_INT8: return Random<int8_t>(shape, seed, -100, 100);
    case DT_HALF: return Random<half>(shape, seed);
    case DT_COMPLEX128: return Random<complex128>(shape, seed);
    case DT_BOOL: {
      Tensor t = Random<int32_t>(shape, seed, 0, 1);
      Tensor b(DT_BOOL, shape);
      for (int64_t i = 0; i < t.NumElements(); ++i) b.data<bool>()[i] = t.data<int32_t>()[i] != 0;
      return b;
    }
    default: ADD_FAILURE() << "RandomAny of " << DataTypeString(dtype); return Tensor();
  }
}

// Where output element `idx` comes from: (source number, flat offset), or
// a negative source number for a default element (zero, "", false).
using SourceMap = std::function<std::pair<int, int64_t>(const std::vector<int64_t>& idx)>;

// The expected output, one element at a time.
inline Tensor MapReference(DataType dtype, const TensorShape& shape,
                           const std::vector<const Tensor*>& sources, const SourceMap& map) {
  Tensor want(dtype, shape);
  VisitDataType(dtype, [&]<typename T>() {
    T* out = want.data<T>();
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      auto [s, flat] = map(Unravel(i, shape.dim_sizes()));
      out[i] = s < 0 ? T{} : sources[s]->data<T>()[flat];
    }
  });
  return want;
}

inline void ExpectTensorEq(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.shape(), want.shape()) << got.shape().DebugString() << " vs "
                                       << want.shape().DebugString();
  EXPECT_TRUE(got.BitwiseEqual(want)) << "got  " << got.DebugString(32) << "\nwant "
                                      << want.DebugString(32);
}

// Runs `op` and returns its only output (an empty tensor after a failure).
inline Tensor RunOne(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {}) {
  StatusOr<std::vector<Tensor>> out = RunOp(op, inputs, std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

}  // namespace tact::test
