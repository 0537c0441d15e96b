// Helpers for kernel tests: run one op's CPU kernel on given inputs, make
// seeded random inputs, and compare outputs with a double-precision
// reference computed by plain loops.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "devices/device.h"
#include "graph/attr_value.h"
#include "graph/tensor.h"

namespace tact::test {

// A process-wide CPU device with `threads` compute threads (1, 2 or 4 are
// kept alive).
Device* CpuTestDevice(int threads = 2);

// Runs `op` once: builds the node (type attrs inferred from the inputs'
// dtypes; an op with one list input takes every input not claimed by its
// other args), creates its CPU kernel and computes. Errors from the node,
// the kernel lookup or the kernel come back as a Status.
StatusOr<std::vector<Tensor>> RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                                    AttrMap attrs = {}, int threads = 2);
// The same on `device`, whose kernel for the op is used; `inputs` must be
// where that device's kernel reads them (tests/gpu/gpu_test_util.h moves
// them for a GPU).
StatusOr<std::vector<Tensor>> RunOpOn(Device* device, const std::string& op,
                                      const std::vector<Tensor>& inputs, AttrMap attrs = {});

// Uniform in [lo, hi) from `seed`, with values in (-0.05, 0.05) pushed
// away from zero so that no input is accidentally trivial.
template <typename T>
Tensor Random(const TensorShape& shape, uint32_t seed, double lo = -2.0, double hi = 2.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(DataTypeToEnum<T>::value, shape);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    double v = dist(gen);
    if (v > -0.05 && v < 0.05 && lo < -0.05 && hi > 0.05) v = v < 0 ? v - 0.1 : v + 0.1;
    if constexpr (std::is_integral_v<T>) {
      p[i] = static_cast<T>(std::llround(v));
    } else {
      p[i] = static_cast<T>(v);
    }
  }
  return t;
}

// The elements of a numeric tensor as doubles.
std::vector<double> ToDoubles(const Tensor& t);

// Expects `got` to have `shape` and every element within atol + rtol*|want|.
void ExpectClose(const Tensor& got, const TensorShape& shape, const std::vector<double>& want,
                 double rtol = 1e-5, double atol = 1e-6);
// Expects an error of `code` whose message contains `substring`.
void ExpectError(const Status& s, Code code, const std::string& substring);

}  // namespace tact::test
