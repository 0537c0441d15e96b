// What the _Send and _Recv kernels of every device type share: the
// rendezvous key from the node's attrs, and the key of one step's transfer.
#pragma once

#include <string>

#include "kernels/op_kernel.h"

namespace tact {

// The node's rendezvous key (kernels/rendezvous.h's RendezvousKey) from its
// tensor_name, send_device, recv_device and send_device_incarnation attrs;
// a missing attr fails the construction.
std::string KeyFromAttrs(OpKernelConstruction* ctx);

// False (and the kernel done, failed) when the step has no rendezvous.
bool HasRendezvous(OpKernelContext* ctx, const AsyncOpKernel::DoneCallback& done);

// The key of this kernel's transfer: `key` itself (the usual case, not
// copied), or inside a loop `key` with its iteration's tag, in `scratch`.
const std::string& StepKey(OpKernelContext* ctx, const std::string& key, std::string* scratch);

}  // namespace tact
