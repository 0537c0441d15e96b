// An allocator that tensors may outlive (Allocator::Release): it is deleted
// with the last of its owner and the buffers allocated from it, in any
// order and on any thread, and never before. (A device's allocator was
// leaked instead, one per device ever created.)
#include "graph/allocator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <thread>
#include <vector>

#include "graph/tensor.h"

namespace tact {
namespace {

// Host memory; counts its deletions.
class WatchedAllocator final : public Allocator {
 public:
  explicit WatchedAllocator(std::atomic<int>* deletions) : deletions_(deletions) {}
  ~WatchedAllocator() override { deletions_->fetch_add(1); }
  std::string Name() const override { return "watched"; }

 protected:
  void* AllocateRaw(size_t bytes) override {
    return ::operator new(AllocationSize(bytes), std::align_val_t(kAlignment), std::nothrow);
  }
  void DeallocateRaw(void* ptr, size_t) override { ::operator delete(ptr, std::align_val_t(kAlignment)); }

 private:
  std::atomic<int>* deletions_;
};

using Owned = std::unique_ptr<Allocator, Allocator::Release>;

TEST(AllocatorReleaseTest, WithNoTensorAliveItGoesWithItsOwner) {
  std::atomic<int> deletions{0};
  Owned a(new WatchedAllocator(&deletions));
  { Tensor t(a.get(), DT_FLOAT, {4}); }
  EXPECT_EQ(deletions.load(), 0);
  a.reset();
  EXPECT_EQ(deletions.load(), 1);
}

TEST(AllocatorReleaseTest, ItOutlivesItsOwnerUntilTheLastTensorIsGone) {
  std::atomic<int> deletions{0};
  Owned a(new WatchedAllocator(&deletions));
  Allocator* raw = a.get();
  Tensor values(raw, DT_FLOAT, {1000});
  Tensor empty(raw, DT_FLOAT, {0});  // no bytes, but a buffer to give back all the same
  values.data<float>()[999] = 2.5f;
  a.reset();
  EXPECT_EQ(deletions.load(), 0);
  EXPECT_EQ(values.data<float>()[999], 2.5f);
  EXPECT_EQ(raw->GetStats().bytes_in_use, 4000);
  values = Tensor();
  EXPECT_EQ(deletions.load(), 0);
  std::thread([t = std::move(empty)]() mutable { t = Tensor(); }).join();
  EXPECT_EQ(deletions.load(), 1);
}

TEST(AllocatorReleaseTest, ThreadsDroppingTheLastTensorsTogetherDeleteItOnce) {
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> deletions{0};
    Owned a(new WatchedAllocator(&deletions));
    std::vector<std::vector<Tensor>> held(4);
    for (auto& tensors : held) {
      for (int i = 0; i < 100; ++i) tensors.emplace_back(a.get(), DT_INT32, TensorShape({i}));
    }
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (auto& tensors : held) {
      threads.emplace_back([&go, mine = std::move(tensors)]() mutable {
        while (!go.load()) std::this_thread::yield();
        mine.clear();
      });
    }
    a.reset();
    go.store(true);
    for (std::thread& t : threads) t.join();
    ASSERT_EQ(deletions.load(), 1) << "round " << round;
  }
}

}  // namespace
}  // namespace tact
