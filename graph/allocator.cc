#include "graph/allocator.h"

#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace tact {

size_t AllocationSize(size_t bytes) {
  const size_t a = Allocator::kAlignment;
  return bytes == 0 ? a : (bytes + a - 1) / a * a;
}

namespace {
void RaiseTo(std::atomic<int64_t>& target, int64_t value) {
  int64_t cur = target.load(std::memory_order_relaxed);
  while (value > cur && !target.compare_exchange_weak(cur, value, std::memory_order_relaxed)) {
  }
}
}  // namespace

void* Allocator::Allocate(size_t bytes) {
  void* p = AllocateRaw(bytes);
  if (p == nullptr) return nullptr;
  holds_.fetch_add(1, std::memory_order_relaxed);
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  const int64_t b = static_cast<int64_t>(bytes);
  const int64_t now = bytes_in_use_.fetch_add(b, std::memory_order_relaxed) + b;
  RaiseTo(peak_, now);
  RaiseTo(largest_, b);
  return p;
}

void Allocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  DeallocateRaw(ptr, bytes);
  bytes_in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  DropHold();  // the last use of `this`: it may delete the allocator
}

// Release ordering makes each buffer's last use of the allocator happen
// before the deletion by whoever drops the last hold.
void Allocator::DropHold() {
  if (holds_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void Allocator::Release::operator()(Allocator* allocator) const {
  if (allocator != nullptr) allocator->DropHold();
}

AllocatorStats Allocator::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  s.largest_alloc_size = largest_.load(std::memory_order_relaxed);
  return s;
}

void Allocator::ResetPeak() { peak_.store(bytes_in_use_.load(std::memory_order_relaxed)); }

namespace {

// Large host blocks are kept for reuse instead of going back to glibc,
// which maps blocks of this size fresh and unmaps them on free: every
// training step would then page-fault its activations and gradients anew
// (measured: a few hundred faults per 4 MiB MatMul output, 14% of the
// kernel's time). Blocks are cached by size class (a multiple of 1/8 of the
// next power of two, so at most 12.5% is wasted) and shared by every host
// allocator of the process; the counters of each allocator stay its own.
class HostBlockCache {
 public:
  static constexpr size_t kMinCachedBytes = 256 << 10;
  static constexpr size_t kCapacityBytes = size_t{1} << 30;

  static HostBlockCache& Get() {
    static HostBlockCache* const kCache = new HostBlockCache();  // used until exit
    return *kCache;
  }

  static size_t SizeClass(size_t bytes) {
    size_t pow2 = kMinCachedBytes;
    while (pow2 < bytes) pow2 <<= 1;
    const size_t step = pow2 / 8;
    return (bytes + step - 1) / step * step;
  }

  void* Allocate(size_t size_class) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(size_class);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_bytes_ -= size_class;
        return p;
      }
    }
    return ::operator new(size_class, std::align_val_t(Allocator::kAlignment), std::nothrow);
  }

  void Free(void* p, size_t size_class) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_bytes_ + size_class <= kCapacityBytes) {
        free_[size_class].push_back(p);
        cached_bytes_ += size_class;
        return;
      }
    }
    ::operator delete(p, std::align_val_t(Allocator::kAlignment));
  }

 private:
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_bytes_ = 0;
};

// Small blocks (scalars, short vectors: most tensors of a step of small
// ops) are kept per thread, by power-of-two size class, so a node's output
// costs a pop from a list instead of glibc's aligned-allocation path
// (measured: allocation was the largest cost per node of a chain of scalar
// Adds). Each class holds at most kMaxPerClass blocks; a block freed on
// another thread than the one that allocated it joins the freeing thread's
// lists, which the bound keeps harmless.
class SmallBlockCache {
 public:
  static constexpr size_t kMaxBytes = 4096;
  static constexpr int kClasses = 7;  // 64, 128, ..., 4096
  static constexpr size_t kMaxPerClass = 64;

  static int ClassOf(size_t size) {
    int c = 0;
    size_t s = Allocator::kAlignment;
    while (s < size) {
      s <<= 1;
      ++c;
    }
    return c;
  }
  static size_t ClassBytes(int c) { return Allocator::kAlignment << c; }

  void* Allocate(int c) {
    std::vector<void*>& list = free_[c];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
    return ::operator new(ClassBytes(c), std::align_val_t(Allocator::kAlignment), std::nothrow);
  }
  void Free(void* p, int c) {
    std::vector<void*>& list = free_[c];
    if (list.size() < kMaxPerClass) {
      list.push_back(p);
      return;
    }
    ::operator delete(p, std::align_val_t(Allocator::kAlignment));
  }
  ~SmallBlockCache() {
    alive_ = false;
    for (auto& list : free_) {
      for (void* p : list) ::operator delete(p, std::align_val_t(Allocator::kAlignment));
    }
  }

  // This thread's cache, or nullptr once the thread is tearing down its
  // thread_locals (a tensor freed that late goes straight to the heap).
  static SmallBlockCache* ForThisThread() {
    if (!alive_) return nullptr;
    thread_local SmallBlockCache cache;
    return alive_ ? &cache : nullptr;
  }

 private:
  std::vector<void*> free_[kClasses];
  static thread_local bool alive_;
};
thread_local bool SmallBlockCache::alive_ = true;

class HostAllocator final : public Allocator {
 public:
  std::string Name() const override { return "cpu"; }

 protected:
  void* AllocateRaw(size_t bytes) override {
    const size_t size = AllocationSize(bytes);
    if (size >= HostBlockCache::kMinCachedBytes) {
      return HostBlockCache::Get().Allocate(HostBlockCache::SizeClass(size));
    }
    if (size <= SmallBlockCache::kMaxBytes) {
      if (SmallBlockCache* cache = SmallBlockCache::ForThisThread()) {
        return cache->Allocate(SmallBlockCache::ClassOf(size));
      }
      return ::operator new(SmallBlockCache::ClassBytes(SmallBlockCache::ClassOf(size)),
                            std::align_val_t(kAlignment), std::nothrow);
    }
    return ::operator new(size, std::align_val_t(kAlignment), std::nothrow);
  }
  void DeallocateRaw(void* ptr, size_t bytes) override {
    const size_t size = AllocationSize(bytes);
    if (size >= HostBlockCache::kMinCachedBytes) {
      HostBlockCache::Get().Free(ptr, HostBlockCache::SizeClass(size));
      return;
    }
    if (size <= SmallBlockCache::kMaxBytes) {
      if (SmallBlockCache* cache = SmallBlockCache::ForThisThread()) {
        cache->Free(ptr, SmallBlockCache::ClassOf(size));
        return;
      }
    }
    ::operator delete(ptr, std::align_val_t(kAlignment));
  }
};
}  // namespace

Allocator* CpuAllocator() {
  static Allocator* const kAllocator = new HostAllocator();  // never destroyed: used at exit
  return kAllocator;
}

std::unique_ptr<Allocator, Allocator::Release> NewCpuAllocator() {
  return std::unique_ptr<Allocator, Allocator::Release>(new HostAllocator());
}

}  // namespace tact
