// Denormal floats are flushed to zero wherever tact computes, as
// TensorFlow's CPU devices do (its thread pools and its ThreadPoolDevice
// set the flags around every kernel): `0.1f * FLT_MIN` gives 0, not a
// denormal.
//
// Why: arithmetic on a denormal takes about a hundred cycles on x86, and
// training makes them. A weight whose gradient is always zero (a border
// pixel of MNIST feeds the mlp's first layer nothing but zeros) has its
// Adam slot m decay by 0.9 a step into the denormal range; in session 19
// ApplyAdam then took 0.5-0.6 ms a step where the same loop on normal
// numbers takes 0.12 (docs/performance.md). Flushing keeps the time of a
// step independent of how long a run has trained.
//
// On x86 these are the MXCSR's FTZ (results) and DAZ (inputs) bits, which
// cover float and double; elsewhere both calls do nothing.
#pragma once

namespace tact {

// Sets the flags on the calling thread for as long as it lives: for threads
// that tact creates to run kernels (the devices' pools).
void FlushDenormalsOnThisThread();

// Sets the flags for its scope and puts back what the thread had: for code
// that computes on a thread that is not tact's own (a caller of
// Session::Run that computes inline, a CAF thread). Costs one read of the
// control register when the flags are already set.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
  unsigned saved_ = 0;
  bool changed_ = false;
};

}  // namespace tact
