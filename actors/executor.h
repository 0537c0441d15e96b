// Executor: runs one partition's graph on one device, a step at a time
// (paper 3.1). The partition actor drives it; it knows nothing of actors.
//
// Per step it keeps a pending count per node and a ready queue; a node runs
// when all its data and control inputs have arrived. Cheap kernels and the
// last ready expensive kernel run inline on the current thread (so a chain
// of small ops costs no thread hand-offs); other expensive kernels go to the
// device's inter-op threads. Async kernels (Recv) finish through their
// continuation, so no thread waits on them. Each input buffer is released as
// soon as its consumer has run, so memory follows the live tensors only.
// The first error aborts the step (and its rendezvous) and is returned with
// the node and op named.
//
//   auto ex = Executor::Create(graph, device);
//   Executor::Args args;
//   args.rendezvous = rendezvous.get();
//   Status s = (*ex)->Run(args);
//
// Thread-safe: concurrent steps on one Executor are independent.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/step_stats.h"
#include "graph/graph.h"
#include "kernels/op_kernel.h"

namespace tact {

class Rendezvous;

// While one lives on a thread, an async kernel that completes on that
// thread (a Recv whose tensor it delivered) runs the cheap kernels it made
// ready right there instead of waking a device thread; expensive ones still
// go to the device. For threads whose only job is delivering tensors (the
// readers of actors/tensor_link.h): a round trip between tasks then costs
// one thread wake-up per hop, not two.
class InlineContinuations {
 public:
  InlineContinuations();
  ~InlineContinuations();
  InlineContinuations(const InlineContinuations&) = delete;
  InlineContinuations& operator=(const InlineContinuations&) = delete;
  static bool Allowed();
};

class Executor {
 public:
  struct Args {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;  // for _Send/_Recv; must outlive the step
    StepStats* stats = nullptr;        // optional; must outlive the step
    // Container of Variables that name none (the session's); null: "".
    const std::string* default_container = nullptr;
    // False when RunAsync is called from a thread that must not compute (a
    // CAF scheduler thread): it then runs only cheap kernels (Const,
    // Identity, _Recv, ..., and those learned cheap: actors/kernel_costs.h)
    // and hands every expensive one to the device.
    bool caller_may_compute = true;
  };
  using DoneCallback = std::function<void(const Status&)>;

  // Builds a kernel for every node of `graph` on `device` (which must
  // outlive the executor). The graph must be valid (Graph::Validate); the
  // error of a node without a kernel names it.
  static StatusOr<std::unique_ptr<Executor>> Create(std::shared_ptr<const Graph> graph,
                                                    Device* device);
  virtual ~Executor() = default;

  // Runs one step. `done` is called exactly once, on some thread, after
  // every node that was started has finished.
  virtual void RunAsync(const Args& args, DoneCallback done) const = 0;
  // Runs one step and waits for it.
  Status Run(const Args& args) const;
};

}  // namespace tact
