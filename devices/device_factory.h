// Device factories by device type: how a process turns {"CPU": 4} into
// four Device objects named /job:J/replica:R/task:T/device:CPU:0..3, so
// that multi-device code runs and is tested on one machine.
//
// Factories register at static-initialisation time (the CPU one in
// cpu_device.cc; a GPU one where CUDA is built and a device is present).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "graph/status.h"

namespace tact {

class DeviceFactory {
 public:
  virtual ~DeviceFactory() = default;
  // `count` devices of this type under `task_prefix`
  // ("/job:localhost/replica:0/task:0"), each with `threads` compute threads.
  virtual StatusOr<std::vector<std::unique_ptr<Device>>> CreateDevices(
      const std::string& task_prefix, int count, int threads) = 0;
};

// Type names are upper case ("CPU"); registering a type twice keeps the first.
void RegisterDeviceFactory(const std::string& type, std::unique_ptr<DeviceFactory> factory);
std::vector<std::string> RegisteredDeviceTypes();

// A command line's device counts: "2" (two CPUs, the old form of the
// flag) or "cpu:1,gpu:1" (types case-insensitive, upper-cased in the
// result). InvalidArgument naming the part that is wrong.
StatusOr<std::map<std::string, int>> ParseDeviceCounts(const std::string& spec);

// The most compute threads one process's devices may start together
// (devices x threads each). Generous for any machine; past it a process
// runs out of threads midway, and a thread pool that cannot start one of
// its threads cannot be taken down cleanly, so it is refused up front.
inline constexpr int64_t kMaxComputeThreads = 8192;

// Devices for every (type, count) of `counts` (types case-insensitive), in
// type order. NotFound naming the type and the known ones for an unknown
// type; InvalidArgument for a negative count, threads < 1, or more than
// kMaxComputeThreads threads in all.
StatusOr<std::vector<std::unique_ptr<Device>>> CreateDevices(
    const std::map<std::string, int>& counts, const std::string& task_prefix, int threads);

}  // namespace tact
