#include "apps/bench/fma_peak.h"

#include <immintrin.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tact::apps {
namespace {

// Ten independent chains of 8-float FMAs: more than latency (4 cycles) times
// units (2 a cycle), so no chain waits for its own last result.
constexpr int kChains = 10;
constexpr int64_t kRounds = 1 << 16;  // FMAs per chain between clock reads

__attribute__((target("avx2,fma"))) float Spin(int64_t rounds) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float out[8];
  _mm256_store_ps(out, sum);
  return out[0];  // used, so the loop is not optimised away
}

}  // namespace

double FmaPeakGflops(int threads, double seconds) {
  std::atomic<int64_t> blocks{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  volatile float sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      float s = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        s += Spin(kRounds);
        blocks.fetch_add(1, std::memory_order_relaxed);
      }
      sink = s;
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (std::thread& w : workers) w.join();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  (void)sink;
  const double flops = static_cast<double>(blocks.load()) * kRounds * kChains * 8 * 2;
  return flops / elapsed / 1e9;
}

}  // namespace tact::apps
