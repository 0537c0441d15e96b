#include "graph/allocator.h"

#include <new>

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
class HostAllocator final : public Allocator {
 public:
  std::string Name() const override { return "cpu"; }

 protected:
  void* AllocateRaw(size_t bytes) override {
    return ::operator new(AllocationSize(bytes), std::align_val_t(kAlignment), std::nothrow);
  }
  void DeallocateRaw(void* ptr, size_t) override {
    ::operator delete(ptr, std::align_val_t(kAlignment));
  }
};
}  // namespace

Allocator* CpuAllocator() {
  static Allocator* const kAllocator = new HostAllocator();  // never destroyed: used at exit
  return kAllocator;
}

std::unique_ptr<Allocator> NewCpuAllocator() { return std::make_unique<HostAllocator>(); }

}  // namespace tact
