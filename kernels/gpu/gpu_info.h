// What the CUDA runtime reports about this machine. Safe to call on a
// machine without a GPU or driver: it then reports zero devices.
#pragma once

#include <string>

namespace tact::gpu {

// Number of usable CUDA devices (0 without a driver or GPU).
int DeviceCount();
// "cudart 13000, cublas 130000, cudnn 91900", for logs and benchmarks.
std::string LibraryVersions();

}  // namespace tact::gpu
