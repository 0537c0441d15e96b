// Which master a session's client calls go to: the supervisor
// (actors/supervisor.h) puts a new one here when the old one died, or the
// reason it gave up. Read on every client call, from any thread.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>

#include <mutex>
#include <utility>

#include "graph/status.h"

namespace tact {

class MasterHandle {
 public:
  void Set(caf::actor master) {
    std::lock_guard<std::mutex> lock(mu_);
    master_ = std::move(master);
  }
  void Fail(Status why) {
    std::lock_guard<std::mutex> lock(mu_);
    failed_ = std::move(why);
  }
  // The current master, or why there is none any more.
  StatusOr<caf::actor> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failed_.ok()) return failed_;
    return master_;
  }

 private:
  mutable std::mutex mu_;
  caf::actor master_;
  Status failed_;
};

}  // namespace tact
