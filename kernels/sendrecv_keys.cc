#include "kernels/sendrecv_keys.h"

#include "kernels/rendezvous.h"

namespace tact {

std::string KeyFromAttrs(OpKernelConstruction* ctx) {
  std::string name, send, recv;
  int64_t incarnation = 0;
  Status s = ctx->GetAttr("tensor_name", &name);
  if (s.ok()) s = ctx->GetAttr("send_device", &send);
  if (s.ok()) s = ctx->GetAttr("recv_device", &recv);
  if (s.ok()) s = ctx->GetAttr("send_device_incarnation", &incarnation);
  if (!s.ok()) ctx->CtxFailure(s);
  return RendezvousKey(send, static_cast<uint64_t>(incarnation), recv, name);
}

bool HasRendezvous(OpKernelContext* ctx, const AsyncOpKernel::DoneCallback& done) {
  if (ctx->rendezvous() != nullptr) return true;
  ctx->CtxFailure(errors::FailedPrecondition("the step has no rendezvous for _Send/_Recv"));
  done();
  return false;
}

const std::string& StepKey(OpKernelContext* ctx, const std::string& key, std::string* scratch) {
  if (ctx->frame_iter() == nullptr) return key;
  *scratch = key + *ctx->frame_iter();
  return *scratch;
}

}  // namespace tact
