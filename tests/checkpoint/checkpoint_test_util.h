// What the checkpoint tests share: a fresh directory per test, tensors of
// every dtype with varied bytes, and the specs a graph would expect.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/checkpoint.h"

// Asserts that a Status is OK, printing it if not.
#define TACT_ASSERT_OK(expr)                          \
  do {                                                \
    const ::tact::Status _s = (expr);                 \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

namespace tact::testing {

using Variables = std::vector<std::pair<std::string, Tensor>>;

class CheckpointDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("tact_ckpt_" + std::to_string(::getpid()) + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

// A tensor of `dtype` and `shape` whose bytes follow from `seed`: random
// bits for numbers (NaNs included), 0/1 for bool, strings of varied length
// (empty ones too).
inline Tensor RandomTensor(DataType dtype, const TensorShape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  if (dtype == DT_STRING) {
    std::string* s = t.data<std::string>();
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      s[i].resize(rng() % 12);
      for (char& c : s[i]) c = static_cast<char>('a' + rng() % 26);
    }
    return t;
  }
  auto* bytes = static_cast<uint8_t*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] = static_cast<uint8_t>(rng());
  if (dtype == DT_BOOL) {
    for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] &= 1;
  }
  return t;
}

inline std::vector<VariableSpec> SpecsOf(const Variables& vars) {
  std::vector<VariableSpec> specs;
  for (const auto& [name, t] : vars) specs.push_back({name, t.dtype(), t.shape()});
  return specs;
}

// A small model's variables: what most tests save.
inline Variables DenseModel(uint32_t seed) {
  return {{"dense_1/kernel", RandomTensor(DT_FLOAT, {4, 3}, seed)},
          {"dense_1/bias", RandomTensor(DT_FLOAT, {3}, seed + 1)},
          {"global_step", Tensor::Scalar<int64_t>(seed)}};
}

// Writes `vars` as one shard and commits it.
inline Status Save(const std::string& dir, int64_t step, const Variables& vars) {
  TACT_RETURN_IF_ERROR(WriteCheckpointShard(dir, step, 0, 1, vars));
  return CommitCheckpoint(dir, step, 1);
}

inline bool Contains(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string::npos;
}

}  // namespace tact::testing
