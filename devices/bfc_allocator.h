// BfcAllocator: best-fit with coalescing, the GPU device's allocator (in the
// spirit of TensorFlow's BFC allocator). cudaMalloc and cudaFree are slow
// and synchronise the whole device, so a GPU device asks its SubAllocator
// for a few large regions and carves every tensor out of them:
//
// - a request is rounded up to 256 bytes and served from the smallest free
//   chunk that fits (bins by power of two, each ordered by size then
//   address), split when the rest is worth keeping;
// - a freed chunk merges with its free neighbours in the same region;
// - when nothing fits, a new region is taken (each twice the last, at least
//   the request), until `memory_limit` bytes are held; then nullptr.
//
// Regions go back to the SubAllocator only when the allocator is destroyed.
// The logic knows nothing of CUDA: tests run it over host memory.
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/allocator.h"

namespace tact {

// Where a BfcAllocator's regions come from (cudaMalloc on a GPU; the heap
// in tests).
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // nullptr when the memory cannot be had.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* ptr, size_t bytes) = 0;
};

// A SubAllocator over aligned host memory, for tests and CPU-side use.
std::unique_ptr<SubAllocator> NewHostSubAllocator();

class BfcAllocator final : public Allocator {
 public:
  static constexpr size_t kMinChunk = 256;

  struct Options {
    // The most bytes of regions held at once.
    size_t memory_limit = size_t{1} << 30;
    // The first region's size; each later one doubles it.
    size_t initial_region_bytes = size_t{2} << 20;
  };

  BfcAllocator(std::string name, std::unique_ptr<SubAllocator> sub, Options options);
  ~BfcAllocator() override;

  std::string Name() const override { return name_; }

  // What the allocator holds, for tests and for the device's statistics.
  struct Layout {
    int64_t regions = 0;
    int64_t region_bytes = 0;   // sum of region sizes
    int64_t chunks = 0;         // free and in use
    int64_t free_chunks = 0;
    int64_t largest_free = 0;   // bytes of the largest free chunk
  };
  Layout GetLayout() const;

 protected:
  void* AllocateRaw(size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;

 private:
  static constexpr int kBins = 40;
  using ChunkId = int64_t;
  static constexpr ChunkId kNone = -1;

  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;
    bool in_use = false;
    ChunkId prev = kNone;  // neighbours in the same region, by address
    ChunkId next = kNone;
  };
  struct BySizeThenAddress {
    const std::vector<Chunk>* chunks;
    bool operator()(ChunkId a, ChunkId b) const;
  };

  static int BinFor(size_t size);
  ChunkId NewChunk(char* ptr, size_t size);
  void InsertFree(ChunkId id);
  void RemoveFree(ChunkId id);
  ChunkId FindFit(size_t size);
  bool Extend(size_t size);
  // Splits `id` so that it holds `size` bytes; the rest becomes a free chunk.
  void Split(ChunkId id, size_t size);
  // Merges `id` (free) with `next` (free, its right neighbour).
  void Merge(ChunkId id, ChunkId next);

  const std::string name_;
  const std::unique_ptr<SubAllocator> sub_;
  const Options options_;

  mutable std::mutex mu_;
  std::vector<Chunk> chunks_;
  std::vector<ChunkId> recycled_ids_;
  std::vector<std::set<ChunkId, BySizeThenAddress>> bins_;
  std::unordered_map<const void*, ChunkId> in_use_;
  struct Region {
    void* ptr;
    size_t bytes;
  };
  std::vector<Region> regions_;
  size_t held_bytes_ = 0;
  size_t next_region_bytes_;
};

}  // namespace tact
