#include "devices/bfc_allocator.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace tact {
namespace {

class HostSubAllocator final : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    return ::operator new(bytes, std::align_val_t(Allocator::kAlignment), std::nothrow);
  }
  void Free(void* ptr, size_t) override { ::operator delete(ptr, std::align_val_t(Allocator::kAlignment)); }
};

size_t RoundUp(size_t bytes) {
  const size_t m = BfcAllocator::kMinChunk;
  return bytes == 0 ? m : (bytes + m - 1) / m * m;
}

}  // namespace

std::unique_ptr<SubAllocator> NewHostSubAllocator() { return std::make_unique<HostSubAllocator>(); }

bool BfcAllocator::BySizeThenAddress::operator()(ChunkId a, ChunkId b) const {
  const Chunk& x = (*chunks)[a];
  const Chunk& y = (*chunks)[b];
  if (x.size != y.size) return x.size < y.size;
  return x.ptr < y.ptr;
}

BfcAllocator::BfcAllocator(std::string name, std::unique_ptr<SubAllocator> sub, Options options)
    : name_(std::move(name)),
      sub_(std::move(sub)),
      options_(options),
      next_region_bytes_(RoundUp(std::max<size_t>(options.initial_region_bytes, kMinChunk))) {
  bins_.reserve(kBins);
  for (int i = 0; i < kBins; ++i) bins_.emplace_back(BySizeThenAddress{&chunks_});
}

BfcAllocator::~BfcAllocator() {
  for (const Region& r : regions_) sub_->Free(r.ptr, r.bytes);
}

// Bin b holds free chunks of [256 << b, 256 << (b + 1)) bytes; the last
// bin holds everything larger.
int BfcAllocator::BinFor(size_t size) {
  int b = 0;
  size_t top = kMinChunk * 2;
  while (b + 1 < kBins && size >= top) {
    ++b;
    top <<= 1;
  }
  return b;
}

BfcAllocator::ChunkId BfcAllocator::NewChunk(char* ptr, size_t size) {
  ChunkId id;
  if (!recycled_ids_.empty()) {
    id = recycled_ids_.back();
    recycled_ids_.pop_back();
    chunks_[id] = Chunk();
  } else {
    id = static_cast<ChunkId>(chunks_.size());
    chunks_.emplace_back();
  }
  chunks_[id].ptr = ptr;
  chunks_[id].size = size;
  return id;
}

void BfcAllocator::InsertFree(ChunkId id) { bins_[BinFor(chunks_[id].size)].insert(id); }

void BfcAllocator::RemoveFree(ChunkId id) { bins_[BinFor(chunks_[id].size)].erase(id); }

// The smallest free chunk of at least `size` bytes (the lowest address
// among equals), or kNone. Bins below the request's cannot fit it; in its
// own and every later bin the first chunk that fits is that bin's best.
BfcAllocator::ChunkId BfcAllocator::FindFit(size_t size) {
  for (int b = BinFor(size); b < kBins; ++b) {
    for (ChunkId id : bins_[b]) {
      if (chunks_[id].size >= size) return id;
    }
  }
  return kNone;
}

bool BfcAllocator::Extend(size_t size) {
  size_t bytes = std::max(next_region_bytes_, size);
  if (held_bytes_ + bytes > options_.memory_limit) {
    // A smaller region than planned may still fit under the limit.
    if (held_bytes_ + size > options_.memory_limit) return false;
    bytes = RoundUp(options_.memory_limit - held_bytes_);
    if (held_bytes_ + bytes > options_.memory_limit) bytes -= kMinChunk;
    bytes = std::max(bytes, size);
  }
  void* p = sub_->Alloc(bytes);
  // The device may have less free than the limit allowed for (another
  // process, fragmentation): a region of just the request may still fit.
  if (p == nullptr && bytes > size) p = sub_->Alloc(bytes = size);
  if (p == nullptr) return false;
  regions_.push_back({p, bytes});
  held_bytes_ += bytes;
  next_region_bytes_ = std::max(next_region_bytes_, bytes) * 2;
  InsertFree(NewChunk(static_cast<char*>(p), bytes));
  return true;
}

void BfcAllocator::Split(ChunkId id, size_t size) {
  const ChunkId rest = NewChunk(chunks_[id].ptr + size, chunks_[id].size - size);
  // NewChunk may have grown chunks_: take references only after it.
  Chunk& c = chunks_[id];
  Chunk& r = chunks_[rest];
  c.size = size;
  r.prev = id;
  r.next = c.next;
  if (c.next != kNone) chunks_[c.next].prev = rest;
  c.next = rest;
  InsertFree(rest);
}

void BfcAllocator::Merge(ChunkId id, ChunkId next) {
  Chunk& c = chunks_[id];
  Chunk& n = chunks_[next];
  c.size += n.size;
  c.next = n.next;
  if (n.next != kNone) chunks_[n.next].prev = id;
  n = Chunk();
  recycled_ids_.push_back(next);
}

void* BfcAllocator::AllocateRaw(size_t bytes) {
  // Past the limit nothing can fit; near SIZE_MAX RoundUp would wrap to a
  // small chunk, and two tensors would share it.
  if (bytes > options_.memory_limit || bytes > SIZE_MAX - kMinChunk) return nullptr;
  const size_t size = RoundUp(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  ChunkId id = FindFit(size);
  if (id == kNone) {
    if (!Extend(size)) return nullptr;
    id = FindFit(size);
    if (id == kNone) return nullptr;
  }
  RemoveFree(id);
  // Keep the remainder as its own chunk unless it is too small to be worth
  // the bookkeeping; a best fit seldom leaves much.
  if (chunks_[id].size - size >= kMinChunk) Split(id, size);
  chunks_[id].in_use = true;
  in_use_.emplace(chunks_[id].ptr, id);
  return chunks_[id].ptr;
}

void BfcAllocator::DeallocateRaw(void* ptr, size_t) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) {
    // A double free or a foreign pointer: going on would corrupt the chunk
    // lists and hand one buffer to two tensors later.
    std::fprintf(stderr, "BfcAllocator '%s': freeing %p, which it did not allocate\n", name_.c_str(), ptr);
    std::abort();
  }
  ChunkId id = it->second;
  in_use_.erase(it);
  chunks_[id].in_use = false;
  const ChunkId next = chunks_[id].next;
  if (next != kNone && !chunks_[next].in_use) {
    RemoveFree(next);
    Merge(id, next);
  }
  const ChunkId prev = chunks_[id].prev;
  if (prev != kNone && !chunks_[prev].in_use) {
    RemoveFree(prev);
    Merge(prev, id);
    id = prev;
  }
  InsertFree(id);
}

BfcAllocator::Layout BfcAllocator::GetLayout() const {
  std::lock_guard<std::mutex> lock(mu_);
  Layout l;
  l.regions = static_cast<int64_t>(regions_.size());
  l.region_bytes = static_cast<int64_t>(held_bytes_);
  l.chunks = static_cast<int64_t>(chunks_.size() - recycled_ids_.size());
  for (const auto& bin : bins_) {
    for (ChunkId id : bin) {
      ++l.free_chunks;
      l.largest_free = std::max<int64_t>(l.largest_free, static_cast<int64_t>(chunks_[id].size));
    }
  }
  return l;
}

}  // namespace tact
