#include "actors/rendezvous_mgr.h"

namespace tact {

std::shared_ptr<Rendezvous> RendezvousMgr::Find(int64_t step_id, int users) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = steps_[step_id];
  if (e.rendezvous == nullptr) {
    e.rendezvous = NewLocalRendezvous();
    e.users_left = users;
  }
  return e.rendezvous;
}

void RendezvousMgr::Release(int64_t step_id) {
  std::shared_ptr<Rendezvous> last;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = steps_.find(step_id);
  if (it == steps_.end() || --it->second.users_left > 0) return;
  last = std::move(it->second.rendezvous);
  steps_.erase(it);
}

bool RendezvousMgr::Abort(int64_t step_id, const Status& status) {
  std::shared_ptr<Rendezvous> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return false;
    r = it->second.rendezvous;
  }
  r->StartAbort(status);
  return true;
}

size_t RendezvousMgr::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.size();
}

}  // namespace tact
