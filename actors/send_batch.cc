#include "actors/send_batch.h"

#include <utility>
#include <vector>

namespace tact {
namespace {

struct ThreadBatch {
  int depth = 0;
  std::vector<std::function<void()>> flushes;
};

thread_local ThreadBatch batch;

}  // namespace

SendBatch::SendBatch() { ++batch.depth; }

SendBatch::~SendBatch() {
  if (--batch.depth == 0) Flush();
}

bool SendBatch::Open() { return batch.depth > 0; }

void SendBatch::AtFlush(std::function<void()> flush) { batch.flushes.push_back(std::move(flush)); }

void SendBatch::Flush() {
  // A flush may send, and a send may register again: take the list first.
  while (!batch.flushes.empty()) {
    std::vector<std::function<void()>> flushes = std::move(batch.flushes);
    batch.flushes.clear();
    for (auto& f : flushes) f();
  }
}

}  // namespace tact
