#include "kernels/resource_mgr.h"

namespace tact {

ResourceMgr* ResourceMgr::Global() {
  static ResourceMgr* const kMgr = new ResourceMgr();  // lives until exit
  return kMgr;
}

StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::DoLookupOrCreate(
    const std::string& container, const std::string& name,
    const std::function<std::shared_ptr<ResourceBase>()>& create) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<ResourceBase>& slot = containers_[container][name];
  if (!slot) slot = create();
  if (!slot) return errors::Internal("could not create resource '", name, "'");
  return slot;
}

int ResourceMgr::Reset(const std::string& container) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.find(container);
  if (it == containers_.end()) return 0;
  const int n = static_cast<int>(it->second.size());
  containers_.erase(it);
  return n;
}

std::vector<std::string> ResourceMgr::List(const std::string& container) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  auto it = containers_.find(container);
  if (it == containers_.end()) return names;
  for (const auto& [name, r] : it->second) names.push_back(name);
  return names;
}

std::string ResourceMgr::NewPrivateContainerName(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  return "_" + prefix + "_" + std::to_string(next_private_++);
}

}  // namespace tact
