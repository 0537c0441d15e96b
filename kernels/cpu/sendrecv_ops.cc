// _Send hands its input to the step's rendezvous and _Recv completes when
// the tensor for its key arrives (paper 3.2); both are async kernels, so
// that each completes when its endpoint (actors/endpoints.h) answers. In
// one process the tensor travels by reference: no byte is copied.
#include "kernels/kernel_registry.h"
#include "kernels/rendezvous.h"
#include "kernels/sendrecv_keys.h"

namespace tact {
namespace {

// A _Send whose input is dead (control flow: the branch a Switch did not
// take) sends an empty tensor, which its _Recv takes for dead.
class SendOp : public AsyncOpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(KeyFromAttrs(ctx)) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (!HasRendezvous(ctx, done)) return;
    std::string scratch;
    ctx->rendezvous()->SendAsync(StepKey(ctx, key_, &scratch), ctx->input(0), [ctx, done](const Status& s) {
      if (!s.ok()) ctx->CtxFailure(s);
      done();
    });
  }
  bool IsExpensive() const override { return false; }

 private:
  const std::string key_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(KeyFromAttrs(ctx)) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (!HasRendezvous(ctx, done)) return;
    std::string scratch;
    ctx->rendezvous()->RecvAsync(StepKey(ctx, key_, &scratch), [ctx, done](const Status& s, const Tensor& t) {
      if (!s.ok()) {
        ctx->CtxFailure(s);
      } else if (t.IsInitialized()) {
        ctx->set_output(0, t);  // a dtype mismatch fails the step here
      }  // else dead: the output stays unset
      done();
    });
  }
  bool IsExpensive() const override { return false; }

 private:
  const std::string key_;
};

REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_CPU), RecvOp);

}  // namespace
}  // namespace tact
