// Helpers for GPU kernel tests: every GPU kernel is checked against the CPU
// kernel of the same op on the same random inputs. Without a CUDA device
// the tests skip with TACT_REQUIRE_GPU's message.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "devices/gpu/gpu_device.h"
#include "graph/attr_value.h"
#include "graph/tensor.h"

namespace tact::test {

// The process's GPU device 0, or nullptr on a machine without one.
gpu::GpuDevice* GpuTestDevice();

#define TACT_REQUIRE_GPU()                                                \
  do {                                                                    \
    if (::tact::test::GpuTestDevice() == nullptr) {                       \
      GTEST_SKIP() << "no CUDA device on this machine: GPU test skipped"; \
    }                                                                     \
  } while (0)

// Runs `op`'s GPU kernel: host `inputs` are copied to the device (but for
// dtypes kept in host memory), the kernel runs, the stream is drained and
// the outputs come back as host tensors.
StatusOr<std::vector<Tensor>> RunOpOnGpu(const std::string& op, const std::vector<Tensor>& inputs,
                                         AttrMap attrs = {});

// Runs `op` on the CPU and on the GPU and expects every output to agree
// within atol + rtol * |cpu value|.
void ExpectGpuMatchesCpu(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {},
                         double rtol = 1e-5, double atol = 1e-5);

}  // namespace tact::test
