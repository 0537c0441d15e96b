// Helpers shared by the graph-layer tests: error expectations and tensors
// of every dtype filled with seeded, non-trivial contents.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "graph/status.h"
#include "graph/tensor.h"

namespace tact::graph_test {

// Expects an error of `code` whose message contains `substring`.
inline void ExpectError(const Status& s, Code code, const std::string& substring) {
  EXPECT_FALSE(s.ok()) << "expected " << CodeName(code) << " containing '" << substring << "'";
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_NE(s.message().find(substring), std::string::npos)
      << "message '" << s.message() << "' lacks '" << substring << "'";
}

// A tensor of `dtype` and `shape` whose bytes come from `seed`: every bit
// pattern for numbers (the codec must keep NaN payloads and half/bfloat16
// bits exactly), 0/1 for bools, strings of varied length with NUL bytes.
inline Tensor PatternTensor(DataType dtype, const TensorShape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 gen(seed);
  const int64_t n = t.NumElements();
  if (dtype == DT_STRING) {
    std::string* s = t.data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      s[i] = std::string(gen() % 12, 'a');
      for (char& c : s[i]) c = static_cast<char>(gen());  // includes '\0'
    }
  } else if (dtype == DT_BOOL) {
    bool* b = t.data<bool>();
    for (int64_t i = 0; i < n; ++i) b[i] = (gen() & 1) != 0;
  } else {
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (size_t i = 0; i < t.TotalBytes(); ++i) p[i] = static_cast<unsigned char>(gen());
  }
  return t;
}

}  // namespace tact::graph_test
