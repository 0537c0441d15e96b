// The GPU device's allocator, run over host memory: best fit, splitting,
// coalescing, growth by regions, the memory limit, and the shared counters.
#include "devices/bfc_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <thread>

#include "graph/tensor.h"

namespace tact {
namespace {

constexpr size_t kKiB = 1024;

std::unique_ptr<BfcAllocator> MakeBfc(size_t limit, size_t first_region) {
  BfcAllocator::Options o;
  o.memory_limit = limit;
  o.initial_region_bytes = first_region;
  return std::make_unique<BfcAllocator>("bfc_test", NewHostSubAllocator(), o);
}

TEST(BfcAllocatorTest, AFreedChunkIsReusedForTheSameSize) {
  auto a = MakeBfc(1 << 20, 64 * kKiB);
  void* p = a->Allocate(1000);
  ASSERT_NE(p, nullptr);
  a->Deallocate(p, 1000);
  EXPECT_EQ(a->Allocate(1000), p);
  EXPECT_EQ(a->GetLayout().regions, 1);
}

TEST(BfcAllocatorTest, ChunksAreAlignedAndDisjoint) {
  auto a = MakeBfc(1 << 20, 64 * kKiB);
  char* x = static_cast<char*>(a->Allocate(1));
  char* y = static_cast<char*>(a->Allocate(300));
  char* z = static_cast<char*>(a->Allocate(0));
  for (char* p : {x, y, z}) EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Allocator::kAlignment, 0u);
  // Rounded to 256 bytes and carved in order from one region.
  EXPECT_EQ(y - x, 256);
  EXPECT_EQ(z - y, 512);
}

TEST(BfcAllocatorTest, TheSmallestFreeChunkThatFitsIsChosen) {
  auto a = MakeBfc(1 << 20, 64 * kKiB);
  // Free chunks of 4, 1 and 2 KiB, kept apart by chunks in use.
  void* big = a->Allocate(4 * kKiB);
  void* sep1 = a->Allocate(256);
  void* small = a->Allocate(1 * kKiB);
  void* sep2 = a->Allocate(256);
  void* mid = a->Allocate(2 * kKiB);
  void* sep3 = a->Allocate(256);
  a->Deallocate(big, 4 * kKiB);
  a->Deallocate(small, 1 * kKiB);
  a->Deallocate(mid, 2 * kKiB);
  EXPECT_EQ(a->Allocate(1536), mid);
  EXPECT_EQ(a->Allocate(1 * kKiB), small);
  EXPECT_EQ(a->Allocate(3 * kKiB), big);  // and the 1 KiB left of it stays free
  EXPECT_EQ(a->Allocate(1 * kKiB), static_cast<char*>(big) + 3 * kKiB);
  for (void* p : {sep1, sep2, sep3}) EXPECT_NE(p, nullptr);
}

TEST(BfcAllocatorTest, FreedNeighboursCoalesceIntoOneChunk) {
  auto a = MakeBfc(1 << 20, 64 * kKiB);
  void* x = a->Allocate(8 * kKiB);
  void* y = a->Allocate(8 * kKiB);
  void* z = a->Allocate(8 * kKiB);
  a->Deallocate(y, 8 * kKiB);
  a->Deallocate(x, 8 * kKiB);  // merges right into y's chunk
  EXPECT_EQ(a->GetLayout().free_chunks, 2);  // x+y, and the region's tail
  a->Deallocate(z, 8 * kKiB);  // merges both ways: the whole region again
  BfcAllocator::Layout l = a->GetLayout();
  EXPECT_EQ(l.free_chunks, 1);
  EXPECT_EQ(l.chunks, 1);
  EXPECT_EQ(l.largest_free, l.region_bytes);
  // So a request of the whole region fits without a new one.
  EXPECT_EQ(a->Allocate(64 * kKiB), x);
  EXPECT_EQ(a->GetLayout().regions, 1);
}

TEST(BfcAllocatorTest, GrowsByDoublingRegionsUpToTheLimit) {
  auto a = MakeBfc(448 * kKiB, 64 * kKiB);
  void* p1 = a->Allocate(64 * kKiB);   // fills region 1 (64 KiB)
  void* p2 = a->Allocate(100 * kKiB);  // region 2: 128 KiB
  ASSERT_NE(p1, nullptr);
  ASSERT_NE(p2, nullptr);
  EXPECT_EQ(a->GetLayout().regions, 2);
  EXPECT_EQ(a->GetLayout().region_bytes, static_cast<int64_t>(192 * kKiB));
  // Region 3 would be 256 KiB: exactly what is left under the limit.
  void* p3 = a->Allocate(200 * kKiB);
  ASSERT_NE(p3, nullptr);
  EXPECT_EQ(a->GetLayout().region_bytes, static_cast<int64_t>(448 * kKiB));
  // Nothing more fits: nullptr, not a crash, and the allocator still works.
  EXPECT_EQ(a->Allocate(100 * kKiB), nullptr);
  a->Deallocate(p3, 200 * kKiB);
  EXPECT_EQ(a->Allocate(100 * kKiB), p3);
}

TEST(BfcAllocatorTest, ARequestAboveTheLimitGetsNullptr) {
  auto a = MakeBfc(256 * kKiB, 64 * kKiB);
  EXPECT_EQ(a->Allocate(512 * kKiB), nullptr);
  EXPECT_EQ(a->GetLayout().regions, 0);
  StatusOr<Tensor> big = Tensor::Allocate(a.get(), DT_FLOAT, TensorShape({1 << 20}));
  EXPECT_FALSE(big.ok());
}

// A size within the rounding of SIZE_MAX must not wrap to a small chunk
// (two tensors sharing one buffer): nullptr, and no region taken.
TEST(BfcAllocatorTest, ASizeNearTheTopOfTheAddressSpaceGetsNullptr) {
  auto a = MakeBfc(SIZE_MAX, 64 * kKiB);
  EXPECT_EQ(a->Allocate(SIZE_MAX - 10), nullptr);
  EXPECT_EQ(a->Allocate(SIZE_MAX / 2 + 1), nullptr);
  EXPECT_EQ(a->GetLayout().regions, 0);
}

// When the doubled region cannot be had, a region of just the request can.
class FailsAbove final : public SubAllocator {
 public:
  explicit FailsAbove(size_t max) : max_(max), host_(NewHostSubAllocator()) {}
  void* Alloc(size_t bytes) override { return bytes > max_ ? nullptr : host_->Alloc(bytes); }
  void Free(void* ptr, size_t bytes) override { host_->Free(ptr, bytes); }

 private:
  size_t max_;
  std::unique_ptr<SubAllocator> host_;
};

TEST(BfcAllocatorTest, WhenADoubledRegionFailsARegionOfTheRequestIsTried) {
  BfcAllocator::Options o;
  o.memory_limit = 1024 * kKiB;
  o.initial_region_bytes = 64 * kKiB;
  BfcAllocator a("bfc_test", std::make_unique<FailsAbove>(96 * kKiB), o);
  void* p1 = a.Allocate(64 * kKiB);  // region 1: 64 KiB
  ASSERT_NE(p1, nullptr);
  void* p2 = a.Allocate(80 * kKiB);  // region 2 would be 128 KiB: refused; 80 KiB is not
  ASSERT_NE(p2, nullptr);
  EXPECT_EQ(a.GetLayout().regions, 2);
  EXPECT_EQ(a.GetLayout().region_bytes, static_cast<int64_t>(144 * kKiB));
  EXPECT_EQ(a.Allocate(100 * kKiB), nullptr);  // above what the sub-allocator gives
  a.Deallocate(p2, 80 * kKiB);
  a.Deallocate(p1, 64 * kKiB);
}

TEST(BfcAllocatorTest, CountersAreTheAllocatorsOwn) {
  auto a = MakeBfc(1 << 20, 64 * kKiB);
  {
    Tensor t1(a.get(), DT_FLOAT, TensorShape({1000}));
    Tensor t2(a.get(), DT_FLOAT, TensorShape({500}));
    EXPECT_EQ(a->GetStats().bytes_in_use, 6000);
  }
  AllocatorStats s = a->GetStats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.peak_bytes_in_use, 6000);
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(a->GetLayout().free_chunks, 1);
}

// Random sizes, random frees: no two live chunks overlap, every chunk keeps
// the bytes written into it, and once all is freed each region is one chunk.
void Churn(BfcAllocator* a, uint32_t seed, int ops) {
  std::mt19937 rng(seed);
  std::map<char*, size_t> live;
  for (int i = 0; i < ops; ++i) {
    if (live.empty() || rng() % 3 != 0) {
      const size_t bytes = 1 + rng() % (rng() % 8 == 0 ? 200000 : 3000);
      char* p = static_cast<char*>(a->Allocate(bytes));
      if (p == nullptr) continue;
      std::memset(p, static_cast<int>(reinterpret_cast<uintptr_t>(p) & 0xff), bytes);
      live.emplace(p, bytes);
    } else {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      const char want = static_cast<char>(reinterpret_cast<uintptr_t>(it->first) & 0xff);
      ASSERT_TRUE(std::all_of(it->first, it->first + it->second, [&](char c) { return c == want; }));
      a->Deallocate(it->first, it->second);
      live.erase(it);
    }
  }
  char* end = nullptr;
  for (const auto& [p, bytes] : live) {
    ASSERT_GE(p, end) << "chunks overlap";
    end = p + bytes;
  }
  for (const auto& [p, bytes] : live) a->Deallocate(p, bytes);
}

TEST(BfcAllocatorTest, RandomChurnKeepsChunksApartAndCoalescesFully) {
  auto a = MakeBfc(64 << 20, 256 * kKiB);
  Churn(a.get(), 7, 20000);
  BfcAllocator::Layout l = a->GetLayout();
  EXPECT_EQ(l.free_chunks, l.regions);
  EXPECT_EQ(l.chunks, l.regions);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
}

TEST(BfcAllocatorTest, TwoThreadsChurnAtOnce) {
  auto a = MakeBfc(128 << 20, 256 * kKiB);
  std::thread t1([&] { Churn(a.get(), 1, 10000); });
  std::thread t2([&] { Churn(a.get(), 2, 10000); });
  t1.join();
  t2.join();
  BfcAllocator::Layout l = a->GetLayout();
  EXPECT_EQ(l.free_chunks, l.regions);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
}

TEST(BfcAllocatorDeathTest, AFreeOfAForeignPointerAbortsNamingTheAllocator) {
  auto a = MakeBfc(1 << 20, 64 * kKiB);
  int x = 0;
  EXPECT_DEATH(a->Deallocate(&x, 4), "bfc_test");
}

}  // namespace
}  // namespace tact
