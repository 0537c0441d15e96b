#include "actors/rendezvous_mgr.h"

namespace tact {
namespace {

// How many finished steps a task remembers, to drop late tensors of.
constexpr size_t kFinishedSteps = 4096;
// How many steps that only tensors have arrived for (no partition yet) a
// task keeps: the steps of a master that died before sending its RunSteps,
// or of a registration that was given up, must not pile up for ever.
constexpr size_t kUnstartedSteps = 1024;

// A step's rendezvous: a key with an endpoint in this process meets there;
// any other key (a feed, a fetch, a linked tensor) in the step's table.
class StepRendezvous final : public Rendezvous {
 public:
  StepRendezvous(std::shared_ptr<Rendezvous> table, Endpoints* endpoints, int64_t step_id)
      : table_(std::move(table)), endpoints_(endpoints), step_id_(step_id) {}

  // Into the table: the partition's feeds and the master's tensors, which
  // have no endpoint.
  Status Send(const std::string& key, const Tensor& tensor) override {
    return table_->Send(key, tensor);
  }
  void SendAsync(const std::string& key, const Tensor& tensor, SentCallback done) override {
    if (!endpoints_->SendAsync(step_id_, key, tensor, std::move(done))) done(table_->Send(key, tensor));
  }
  void RecvAsync(const std::string& key, DoneCallback done) override {
    if (!endpoints_->RecvAsync(step_id_, key, std::move(done))) table_->RecvAsync(key, std::move(done));
  }
  void StartAbort(const Status& status) override {
    table_->StartAbort(status);
    endpoints_->Abort(step_id_, status);
  }
  uint64_t AddAbortCallback(AbortCallback on_abort) override {
    return table_->AddAbortCallback(std::move(on_abort));
  }
  void RemoveAbortCallback(uint64_t token) override { table_->RemoveAbortCallback(token); }

 private:
  std::shared_ptr<Rendezvous> table_;
  Endpoints* const endpoints_;  // owned by the manager, which outlives steps
  const int64_t step_id_;
};

}  // namespace

RendezvousMgr::RendezvousMgr() : remembers_finished_(false), endpoints_(std::make_shared<Endpoints>()) {}

RendezvousMgr::RendezvousMgr(std::string local_task, RemoteSend remote)
    : remembers_finished_(true),
      endpoints_(std::make_shared<Endpoints>(std::move(local_task), std::move(remote))) {}

RendezvousMgr::Entry& RendezvousMgr::FindEntry(int64_t step_id) {
  Entry& e = steps_[step_id];
  if (e.rendezvous == nullptr) {
    e.rendezvous = std::make_shared<StepRendezvous>(NewLocalRendezvous(), endpoints_.get(), step_id);
  }
  return e;
}

std::shared_ptr<Rendezvous> RendezvousMgr::Find(int64_t step_id, int users) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = FindEntry(step_id);
  if (e.users_left < 0) e.users_left = users;
  return e.rendezvous;
}

void RendezvousMgr::Release(int64_t step_id) {
  std::shared_ptr<Rendezvous> last;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = steps_.find(step_id);
  if (it == steps_.end() || --it->second.users_left > 0) return;
  last = std::move(it->second.rendezvous);
  steps_.erase(it);
  if (!remembers_finished_) return;
  finished_.insert(step_id);
  finished_order_.push_back(step_id);
  if (finished_order_.size() > kFinishedSteps) {
    finished_.erase(finished_order_.front());
    finished_order_.pop_front();
  }
}

bool RendezvousMgr::Abort(int64_t step_id, const Status& status) {
  std::shared_ptr<Rendezvous> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find(step_id);
    if (it != steps_.end()) r = it->second.rendezvous;
  }
  if (r == nullptr) {
    // Its endpoints may hold tensors for it, or get its Recvs yet.
    endpoints_->Abort(step_id, status);
    return false;
  }
  r->StartAbort(status);
  return true;
}

Status RendezvousMgr::Deliver(int64_t step_id, const std::string& key, const Tensor& tensor) {
  if (endpoints_->Deliver(step_id, key, tensor)) return Status::OK();
  std::shared_ptr<Rendezvous> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_.count(step_id)) return Status::OK();
    const bool fresh = !steps_.count(step_id);
    r = FindEntry(step_id).rendezvous;
    if (fresh) ForgetOldUnstarted(step_id);
  }
  return r->Send(key, tensor);
}

void RendezvousMgr::ForgetOldUnstarted(int64_t step_id) {
  unstarted_order_.push_back(step_id);
  if (unstarted_order_.size() <= kUnstartedSteps) return;
  const int64_t oldest = unstarted_order_.front();
  unstarted_order_.pop_front();
  auto it = steps_.find(oldest);
  if (it != steps_.end() && it->second.users_left < 0) steps_.erase(it);
}

size_t RendezvousMgr::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.size();
}

}  // namespace tact
