#include "devices/leave_cpu.h"

#include <pthread.h>
#include <sched.h>

namespace tact {

void LeaveCpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  cpu_set_t allowed;
  if (pthread_getaffinity_np(pthread_self(), sizeof(allowed), &allowed) != 0) return;
  if (!CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2) return;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  // A mask without the thread's CPU migrates it before the call returns;
  // the full mask again does not move it back.
  if (pthread_setaffinity_np(pthread_self(), sizeof(others), &others) != 0) return;
  pthread_setaffinity_np(pthread_self(), sizeof(allowed), &allowed);
}

}  // namespace tact
