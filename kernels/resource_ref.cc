#include "kernels/resource_ref.h"

namespace tact {
namespace {

// The buffer of a reference tensor: it owns the resource, and data() points
// at the buffer itself so the tensor has a non-null address.
class RefBuffer final : public TensorBuffer {
 public:
  explicit RefBuffer(std::shared_ptr<ResourceBase> resource) : resource_(std::move(resource)) {}
  void* data() const override { return const_cast<RefBuffer*>(this); }
  size_t size() const override { return 0; }
  const std::shared_ptr<ResourceBase>& resource() const { return resource_; }

 private:
  std::shared_ptr<ResourceBase> resource_;
};

}  // namespace

Tensor MakeResourceRef(std::shared_ptr<ResourceBase> resource) {
  return Tensor(DT_RESOURCE, TensorShape(), std::make_shared<RefBuffer>(std::move(resource)));
}

std::shared_ptr<ResourceBase> ResourceFromRef(const Tensor& t) {
  auto* buf = t.dtype() == DT_RESOURCE ? dynamic_cast<RefBuffer*>(t.buffer().get()) : nullptr;
  return buf == nullptr ? nullptr : buf->resource();
}

}  // namespace tact
