// The machine's limit for float arithmetic, measured: fused multiply-adds
// on 8-float vectors, enough of them independent to keep every FMA unit
// busy, on `threads` threads at once. What `tact bench train` sets the
// training's achieved GFLOP/s beside.
#pragma once

namespace tact::apps {

// GFLOP/s (an FMA counts 2) of `threads` threads each running the loop for
// about `seconds`.
double FmaPeakGflops(int threads, double seconds = 0.3);

}  // namespace tact::apps
