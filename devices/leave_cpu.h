// Moving a pool thread off its waker's CPU (kernels/cpu/run_blocks.cc).
//
// Why: on the 2-vCPU VMs here, a thread woken after a pause of a few
// hundred ms (its load average decayed meanwhile) often lands on the CPU of
// the thread that woke it while the other CPU is idle, and both then share
// one core until the balancer moves one, a few ms later. A MatMul of a few
// ms ran whole at one core's speed that way: the half-speed runs of
// `tact bench matmul` at n <= 512 (docs/performance.md, session 30). A
// plain program shows it too: a worker woken after 250 ms of sleep ran on
// its waker's CPU in 1 to 7 of 10 wake-ups, one woken with no pause in 0
// or 1 of 10.
#pragma once

namespace tact {

// Moves the calling thread to another CPU of its affinity mask than `cpu`,
// now, and puts the mask back as it was, so the scheduler may move the
// thread again later. Does nothing where the mask holds `cpu` alone, does
// not hold it, or the system refuses (the thread then stays where it is).
void LeaveCpu(int cpu);

}  // namespace tact
