// CPU time of this process and of the processes it started (a local
// cluster's tasks) that still run, from /proc: what `tact bench
// distributed` divides by the steps it times, to show where a cluster's
// step goes beside one process's (issue 15 item 5: the cluster's step is
// CPU-bound on two cores).
#pragma once

namespace tact::apps {

// Seconds of user and system time, every thread of each process included,
// in the kernel's clock ticks (10 ms on most Linux builds). Children that
// have ended are not counted.
double ProcessTreeCpuSeconds();

}  // namespace tact::apps
