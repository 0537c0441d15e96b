// A burst of sends from one thread leaves together: while a SendBatch is
// open on a thread, the tensor links (actors/tensor_link.h) hold the frames
// that thread sends and write each link's share with one gathered write
// when the outermost batch closes (or Flush is called).
//
// Why: a parameter server's step begins with a burst of Sends, each
// variable to each worker (12 for the mlp on two workers). Written one by
// one, every frame woke its receiver's reader, which on a machine with as
// many busy threads as cores took the sender's core, so the sender's next
// frame waited behind the receiver's copy and its compute: measured with a
// step trace, the second worker got its first-layer variables 450 us after
// the first, and the whole step waited for it. Written together, a
// receiver wakes once per burst and the sender is done before it is
// preempted.
//
// Scope it around work that does not wait on the frames it sends: the
// executor's loop of cheap kernels, the master's sending of a step. Before
// anything long on the same thread (an expensive kernel), call Flush.
//
// Not thread-safe, and need not be: everything here is the calling
// thread's own.
#pragma once

#include <functional>

namespace tact {

class SendBatch {
 public:
  SendBatch();
  ~SendBatch();  // the outermost one flushes
  SendBatch(const SendBatch&) = delete;
  SendBatch& operator=(const SendBatch&) = delete;

  // Whether a batch is open on this thread.
  static bool Open();

  // Runs `flush` when this thread's batch flushes. Only while Open(); the
  // caller registers once per batch for what it holds (it learns that the
  // batch flushed when `flush` runs).
  static void AtFlush(std::function<void()> flush);

  // Sends what this thread's batch holds now; the batch stays open.
  static void Flush();
};

}  // namespace tact
