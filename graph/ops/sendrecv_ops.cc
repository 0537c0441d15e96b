// _Send and _Recv: the endpoints the partitioner inserts on each edge that
// crosses devices, and the session inserts for feeds and fetches (paper 3.2,
// 4.2). Users never build them, so there are no builder functions.
#include "graph/op_registry.h"

namespace tact {

REGISTER_OP("_Send")
    .Input("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .SetIsStateful();

REGISTER_OP("_Recv")
    .Output("tensor: tensor_type")
    .Attr("tensor_type: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    // Set by the partitioner in a graph with control flow: what arrives may
    // be dead (sent by a _Send whose input was), so the partition runs on
    // the executor that knows dead tensors.
    .Attr("may_be_dead: bool = false")
    .SetIsStateful();

}  // namespace tact
