// Allocator: where tensor buffers come from. Each device owns one; the
// counters let tests and the executor check that memory is released as soon
// as the last consumer of a buffer is done (paper 3.1).
//
// Thread-safe: allocations may come from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tact {

struct AllocatorStats {
  int64_t num_allocs = 0;       // allocations ever made
  int64_t bytes_in_use = 0;     // currently allocated
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
};

class Allocator {
 public:
  // Every buffer is aligned to this and padded to a multiple of it, so that
  // Eigen's aligned loads and Cap'n Proto's word-granular zero-copy reads of
  // a tensor's bytes never touch memory past the end of the allocation.
  static constexpr size_t kAlignment = 64;

  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;

  // Returns nullptr if the memory cannot be had. `bytes` may be 0.
  void* Allocate(size_t bytes);
  // `bytes` must be the size given to the Allocate that returned `ptr`.
  void Deallocate(void* ptr, size_t bytes);

  AllocatorStats GetStats() const;
  // Makes the peak equal to the bytes in use now, so a test can measure the
  // peak of one step.
  void ResetPeak();

  // The deleter of an allocator that tensors may outlive (a device's own: a
  // tensor fetched from a session outlives the session's devices). It gives
  // up the owner's hold; the allocator deletes itself once the last buffer
  // allocated from it is deallocated, at once if none is alive.
  struct Release {
    void operator()(Allocator* allocator) const;
  };

 protected:
  virtual void* AllocateRaw(size_t bytes) = 0;
  virtual void DeallocateRaw(void* ptr, size_t bytes) = 0;

 private:
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> largest_{0};
  // The owner's hold (until Release) plus one per buffer not yet given back.
  std::atomic<int64_t> holds_{1};

  void DropHold();
};

// The process-wide host-memory allocator (aligned operator new). Never null,
// never destroyed.
Allocator* CpuAllocator();
// A new host-memory allocator with counters of its own (one per device, so
// each device's bytes in use can be read apart). It lives on after its
// owner lets go, until the last tensor allocated from it is gone.
std::unique_ptr<Allocator, Allocator::Release> NewCpuAllocator();

// Rounds up to a multiple of Allocator::kAlignment (at least one unit).
size_t AllocationSize(size_t bytes);

}  // namespace tact
