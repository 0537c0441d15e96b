// A tensor link's reader threads run under Linux's SCHED_BATCH policy:
// woken by a frame, a reader takes a free core, or waits for the thread on
// its core to block or use up its slice, but never preempts it.
//
// Why: a worker's Send of a gradient wakes the ps's reader, and Linux puts
// a socket's reader on the sender's core (the sender is expected to sleep
// soon) and, under the default policy, preempts the sender at once. The
// sender is the worker's compute thread, halfway through its backward
// pass. On a local cluster whose cores were all computing, `perf record -e
// context-switches` found 60% of the worker compute threads' switches at
// the return of sendmsg; the step then waited for the worker that had been
// stopped longest. With batch readers those switches went, and eight
// alternating runs of `tact bench distributed --model mlp` moved its ratio
// to one process from a median of 0.59 to 0.67 (docs/performance.md,
// Session 16). On an idle machine a woken reader still finds a free core:
// `tact bench sendrecv`'s small round trip did not move.
//
// What it costs: a frame that arrives while every core computes waits for
// a compute thread to block or to use up its slice, where it used to cut
// in at once. A slice on Linux 6.18 is 0.7 ms times 1 + log2 of the cores
// (counted up to 8): 1.4 ms on the 2-vCPU machines here, 2.8 ms from 8
// cores on. Health pings do not travel on the links, so a task's liveness
// does not depend on it.
//
// Only the readers: making the links' writer and answer threads and the
// master's lanes batch threads too made no clear difference.
#pragma once

namespace tact {

// Puts the calling thread under SCHED_BATCH if it is under SCHED_OTHER,
// keeping its nice value. A thread that a user put under a real-time or
// idle policy (chrt) is left as it is. Needs no privilege; false where the
// thread was left as it was.
bool NeverPreemptOnWakeUp();

}  // namespace tact
