// Kernels registered for the placement tests, never run.
//
// "ACCEL" is an accelerator no build has: MatMul and Identity of float have
// kernels for it and nothing else does, so the constraint tests can count
// on which ops an accelerator lacks, whatever the build.
//
// Where CUDA is not built, the GPU has the same two stand-ins, so that the
// greedy tests can put a MatMul on a GPU; where it is, the real kernels
// (kernels/gpu/) are registered instead.
#include "devices/device.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class FakeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};
REGISTER_KERNEL_BUILDER(Name("MatMul").Device("ACCEL").TypeConstraint<float>("T"), FakeKernel);
REGISTER_KERNEL_BUILDER(Name("Identity").Device("ACCEL").TypeConstraint<float>("T"), FakeKernel);
#ifndef TACT_HAVE_CUDA
REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_GPU).TypeConstraint<float>("T"), FakeKernel);
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_GPU).TypeConstraint<float>("T"), FakeKernel);
#endif

}  // namespace
}  // namespace tact
