// The step Softmax, LogSoftmax and the softmax cross-entropy share: one row
// exponentiated after subtracting its maximum, so large logits neither
// overflow nor lose the small terms.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tact {

template <typename T>
struct ShiftedExp {
  T max;  // of the row
  T sum;  // of exp(x - max)
};

// y[j] = exp(x[j] - max(x)) for the n > 0 entries of the row.
template <typename T>
ShiftedExp<T> ExpShiftedByMax(const T* x, T* y, int64_t n) {
  const T mx = *std::max_element(x, x + n);
  T sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    y[j] = std::exp(x[j] - mx);
    sum += y[j];
  }
  return {mx, sum};
}

}  // namespace tact
