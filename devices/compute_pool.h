// ComputePool: the Eigen thread pool that a device's kernels run on, whose
// threads flush denormals to zero from their first instruction
// (devices/flush_denormal.h says why). Includes Eigen's thread pool: only
// the devices' own .cc files include this.
#pragma once

#define EIGEN_USE_THREADS
#include <functional>
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "devices/flush_denormal.h"

namespace tact {

struct FlushDenormalThreadEnvironment : Eigen::StlThreadEnvironment {
  EnvThread* CreateThread(std::function<void()> f) {
    return new EnvThread([f = std::move(f)] {
      FlushDenormalsOnThisThread();
      f();
    });
  }
};

using ComputePool = Eigen::ThreadPoolTempl<FlushDenormalThreadEnvironment>;

}  // namespace tact
