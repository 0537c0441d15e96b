// Containers of named, persistent state (paper 4.7): a Variable's tensor
// lives here across Runs. A resource is found by (container, name).
//
// Containers are process-wide, so two Sessions in one process that name the
// same container share its variables. A Session's default container (used
// by nodes whose `container` attr is empty) is its own, so sessions that
// name none share nothing. Reset(container) drops every resource in it;
// nodes still holding one keep it alive until they let go.
//
// Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/status.h"

namespace tact {

class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  virtual std::string DebugString() const = 0;
};

class ResourceMgr {
 public:
  static ResourceMgr* Global();

  // The resource (container, name), created by `create` if absent.
  // InvalidArgument if the one there is of another C++ type.
  template <typename T>
  StatusOr<std::shared_ptr<T>> LookupOrCreate(const std::string& container,
                                              const std::string& name,
                                              const std::function<std::shared_ptr<T>()>& create) {
    TACT_ASSIGN_OR_RETURN(std::shared_ptr<ResourceBase> r,
                          DoLookupOrCreate(container, name, [&] { return create(); }));
    auto typed = std::dynamic_pointer_cast<T>(r);
    if (!typed) {
      return errors::InvalidArgument("resource '", name, "' in container '", container,
                                     "' is a ", r->DebugString(), ", not of the requested kind");
    }
    return typed;
  }
  // Drops every resource of `container`; returns how many there were.
  int Reset(const std::string& container);
  // Names of the resources in `container`, sorted.
  std::vector<std::string> List(const std::string& container) const;
  // A container name no other caller gets ("session_7"), for a Session's
  // own default container.
  std::string NewPrivateContainerName(const std::string& prefix);

 private:
  StatusOr<std::shared_ptr<ResourceBase>> DoLookupOrCreate(
      const std::string& container, const std::string& name,
      const std::function<std::shared_ptr<ResourceBase>()>& create);

  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, std::shared_ptr<ResourceBase>>> containers_;
  int64_t next_private_ = 0;
};

}  // namespace tact
