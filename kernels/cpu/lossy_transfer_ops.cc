// CPU kernels of the lossy float32 transfer (paper 5.5; the ops and the rule
// are described in graph/ops/lossy_transfer_ops.cc): keep a float's upper 16
// bits on the sending device, put 16 zero bits under them on the receiving
// one. Bits are moved with memcpy, never through float arithmetic, so NaN
// payloads, signed zeros and denormals follow the rule exactly.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Two or three instructions per element; the cost steers ParallelFor to
// split only tensors large enough to be worth a hand-off.
constexpr int64_t kCostPerElement = 2;

class TruncateToUpper16Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const float* in = x.data<float>();
    bfloat16* out = y->data<bfloat16>();
    ParallelFor(ctx, x.NumElements(), kCostPerElement, [in, out](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &in[i], sizeof(bits));
        out[i].bits = static_cast<uint16_t>(bits >> 16);
      }
    });
  }
};

class ExpandFromUpper16Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const bfloat16* in = x.data<bfloat16>();
    float* out = y->data<float>();
    ParallelFor(ctx, x.NumElements(), kCostPerElement, [in, out](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const uint32_t bits = static_cast<uint32_t>(in[i].bits) << 16;
        std::memcpy(&out[i], &bits, sizeof(bits));
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("_TruncateToUpper16").Device(DEVICE_CPU), TruncateToUpper16Op);
REGISTER_KERNEL_BUILDER(Name("_ExpandFromUpper16").Device(DEVICE_CPU), ExpandFromUpper16Op);

}  // namespace
}  // namespace tact
