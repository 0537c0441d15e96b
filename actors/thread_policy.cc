#include "actors/thread_policy.h"

#include <pthread.h>
#include <sched.h>

namespace tact {

bool NeverPreemptOnWakeUp() {
  int policy = 0;
  sched_param param{};
  if (pthread_getschedparam(pthread_self(), &policy, &param) != 0 || policy != SCHED_OTHER) return false;
  // The nice value is not a sched_param: changing the policy between the
  // two fair ones keeps it.
  return pthread_setschedparam(pthread_self(), SCHED_BATCH, &param) == 0;
}

}  // namespace tact
