// No GPU kernel is built into tact yet; these stand in for cuBLAS ones in
// the placement tests, so that a GPU device is feasible for some ops (MatMul
// and Identity of float) and not for others. Registered, never run.
#include "devices/device.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class FakeGpuKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};
REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_GPU).TypeConstraint<float>("T"),
                        FakeGpuKernel);
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_GPU).TypeConstraint<float>("T"),
                        FakeGpuKernel);

}  // namespace
}  // namespace tact
