// Reference tensors: a DT_RESOURCE scalar that holds a resource of a
// container (kernels/resource_mgr.h) alive and carries it along ref edges,
// from the node that owns it (Variable, FIFOQueue) to the nodes that use it
// (Assign, QueueEnqueue). Ref edges keep those nodes on the owner's device
// (placement/colocation.h), so a reference never leaves its process.
#pragma once

#include <memory>

#include "graph/tensor.h"
#include "kernels/resource_mgr.h"

namespace tact {

Tensor MakeResourceRef(std::shared_ptr<ResourceBase> resource);

// The resource behind a reference tensor; null if `t` is not one.
std::shared_ptr<ResourceBase> ResourceFromRef(const Tensor& t);

// The same, as a T; InvalidArgument naming `kind` ("a variable", "a queue")
// if `t` is not a reference to one.
template <typename T>
StatusOr<std::shared_ptr<T>> ResourceFromRefAs(const Tensor& t, const char* kind) {
  std::shared_ptr<ResourceBase> resource = ResourceFromRef(t);
  auto typed = std::dynamic_pointer_cast<T>(resource);
  if (typed == nullptr) {
    // What it is instead: a queue fetched as if it were a variable said only
    // "a resource tensor".
    return errors::InvalidArgument("expected a reference to ", kind, ", got ",
                                   resource != nullptr ? "a reference to " + resource->DebugString()
                                                       : "a " + DataTypeString(t.dtype()) + " tensor");
  }
  return typed;
}

}  // namespace tact
