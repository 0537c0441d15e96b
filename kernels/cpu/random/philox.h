// Philox4x32-10: the counter-based generator of Salmon, Moraes, Dror and
// Shaw, "Parallel Random Numbers: As Easy as 1, 2, 3" (SC 2011), written
// from the paper's definition. Its output is a pure function of a 64-bit key
// and a 128-bit counter, so element i of a random tensor can be computed
// from (key, i) alone: any thread may fill any range, and the result never
// depends on the thread count or on what was drawn before.
//
//   PhiloxKey key = MakePhiloxKey(seed, seed2);
//   PhiloxBlock r = Philox4x32(key, MakePhiloxCounter(group, stream));
//
// Header-only and dependency-free on purpose: the kernels and their tests
// both use it, and it is a few dozen lines.
#pragma once

#include <array>
#include <cstdint>

namespace tact::random {

using PhiloxKey = std::array<uint32_t, 2>;
using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxBlock = std::array<uint32_t, 4>;

namespace philox_internal {
// The round multipliers and the Weyl key increments (golden ratio and
// sqrt(3) - 1) from the paper.
constexpr uint32_t kM0 = 0xD2511F53u;
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;
constexpr uint32_t kW1 = 0xBB67AE85u;

inline PhiloxCounter Round(const PhiloxCounter& c, const PhiloxKey& k) {
  const uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
  const uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}
}  // namespace philox_internal

// Ten rounds, the key bumped between consecutive rounds.
inline PhiloxBlock Philox4x32(PhiloxKey key, PhiloxCounter ctr) {
  using namespace philox_internal;
  ctr = Round(ctr, key);
  for (int r = 1; r < 10; ++r) {
    key[0] += kW0;
    key[1] += kW1;
    ctr = Round(ctr, key);
  }
  return ctr;
}

// SplitMix64's finaliser: a bijective 64-bit mix, so distinct seeds stay
// distinct and nearby seeds give unrelated keys.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Folds both 64-bit seeds into Philox's 64-bit key.
inline PhiloxKey MakePhiloxKey(uint64_t seed, uint64_t seed2) {
  const uint64_t k = Mix64(seed ^ Mix64(seed2));
  return {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)};
}

// Counter words 0-1 hold the block index inside a tensor, words 2-3 a
// stream number (the step, and for re-drawn values the attempt).
inline PhiloxCounter MakePhiloxCounter(uint64_t group, uint64_t stream) {
  return {static_cast<uint32_t>(group), static_cast<uint32_t>(group >> 32),
          static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
}

// [0, 1) from the top 23 bits (every value a multiple of 2^-23, exactly
// representable as a float).
inline float Uint32ToUnitFloat(uint32_t x) {
  return static_cast<float>(x >> 9) * (1.0f / 8388608.0f);
}
// [0, 1) from the top 52 bits of hi:lo.
inline double Uint64ToUnitDouble(uint32_t hi, uint32_t lo) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(x >> 12) * (1.0 / 4503599627370496.0);
}

}  // namespace tact::random
