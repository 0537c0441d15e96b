// _Send and _Recv on a GPU device: where bytes cross between device memory
// and the rest of the runtime (paper 3.2 and 5.4). Everything past a GPU
// _Send and before a GPU _Recv (the rendezvous, the endpoint actors, the
// tensor links, feeds and fetches) sees host tensors, except between two
// GPUs of one process, where the device tensor goes by reference and the
// receiving device copies it peer to peer:
//
//   GPU _Send -> CPU or another task: device-to-host copy on the copy
//                stream, then the host tensor is sent;
//   GPU _Send -> GPU of this task:    the device tensor is sent as it is;
//   GPU _Recv of a host tensor:       host-to-device copy on the copy stream;
//   GPU _Recv of another GPU's:       peer copy on the device-to-device stream.
//
// Dtypes kept in host memory (int32 shapes, strings) are sent as they are.
#include "devices/device_name.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/rendezvous.h"
#include "kernels/sendrecv_keys.h"

namespace tact::gpu {
namespace {

// True when `recv_device` is a GPU in the same task as `send_device`.
bool SameTaskGpu(const std::string& send_device, const std::string& recv_device) {
  StatusOr<DeviceName> send = DeviceName::Parse(send_device);
  StatusOr<DeviceName> recv = DeviceName::Parse(recv_device);
  if (!send.ok() || !recv.ok() || !recv->has_type || recv->type != DEVICE_GPU) return false;
  return send->job == recv->job && send->replica == recv->replica && send->task == recv->task;
}

class SendGpuOp : public AsyncOpKernel {
 public:
  explicit SendGpuOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(KeyFromAttrs(ctx)) {
    std::string send, recv;
    if (ctx->GetAttr("send_device", &send).ok() && ctx->GetAttr("recv_device", &recv).ok()) {
      to_same_task_gpu_ = SameTaskGpu(send, recv);
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (!HasRendezvous(ctx, done)) return;
    std::string scratch;
    std::string key = StepKey(ctx, key_, &scratch);
    const Tensor& input = ctx->input(0);
    auto sent = [ctx, done](const Status& s) {
      if (!s.ok()) ctx->CtxFailure(s);
      done();
    };
    GpuDevice* holder = DeviceHolding(input, AsGpuDevice(ctx->device()));
    if (holder == nullptr || to_same_task_gpu_) {
      // Dead (no bytes), kept in host memory, or for a GPU that copies it.
      ctx->rendezvous()->SendAsync(key, input, std::move(sent));
      return;
    }
    holder->CopyDeviceToHost(input, [ctx, key = std::move(key), sent](const Status& s, Tensor host) {
      if (!s.ok()) {
        sent(s);
        return;
      }
      ctx->rendezvous()->SendAsync(key, host, sent);
    });
  }
  bool IsExpensive() const override { return false; }

 private:
  const std::string key_;
  bool to_same_task_gpu_ = false;
};

// Puts `t` into the memory of `device`, where the kernels after the _Recv
// read it.
StatusOr<Tensor> OntoDevice(GpuDevice* device, const Tensor& t) {
  if (KeptInHostMemory(t.dtype())) return t;
  GpuDevice* holder = DeviceHolding(t, device);
  if (holder == device) return t;
  if (holder != nullptr) return device->CopyFromPeer(holder, t);
  return device->CopyHostToDevice(t);
}

class RecvGpuOp : public AsyncOpKernel {
 public:
  explicit RecvGpuOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(KeyFromAttrs(ctx)) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (!HasRendezvous(ctx, done)) return;
    std::string scratch;
    ctx->rendezvous()->RecvAsync(StepKey(ctx, key_, &scratch), [ctx, done](const Status& s, const Tensor& t) {
      if (!s.ok()) {
        ctx->CtxFailure(s);
      } else if (t.IsInitialized()) {
        StatusOr<Tensor> on_device = OntoDevice(AsGpuDevice(ctx->device()), t);
        if (on_device.ok()) {
          ctx->set_output(0, std::move(on_device).value());
        } else {
          ctx->CtxFailure(on_device.status());
        }
      }  // else dead: the output stays unset
      done();
    });
  }
  bool IsExpensive() const override { return false; }

 private:
  const std::string key_;
};

REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_GPU), SendGpuOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_GPU), RecvGpuOp);

}  // namespace
}  // namespace tact::gpu
