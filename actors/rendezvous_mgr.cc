#include "actors/rendezvous_mgr.h"

#include "graph/subgraph.h"

namespace tact {
namespace {

// How many finished steps a task remembers, to drop late tensors of.
constexpr size_t kFinishedSteps = 4096;
// How many steps that only tensors have arrived for (no partition yet) a
// task keeps: the steps of a master that died before sending its RunSteps,
// or of a registration that was given up, must not pile up for ever.
constexpr size_t kUnstartedSteps = 1024;

// "/job:J/replica:R/task:T" of the receiving device of a rendezvous key
// ("send;incarnation;recv;name"); empty for the client's device, whose
// tensors (feeds and fetches) never leave the task.
std::string_view RecvTask(std::string_view key) {
  size_t a = key.find(';');
  if (a == std::string_view::npos) return {};
  a = key.find(';', a + 1);
  if (a == std::string_view::npos) return {};
  const size_t b = key.find(';', a + 1);
  std::string_view device = key.substr(a + 1, b == std::string_view::npos ? b : b - a - 1);
  if (device == kClientDevice) return {};
  return device.substr(0, device.find("/device:"));
}

// A step's rendezvous in a worker: Recvs wait here; a Send for another
// task leaves at once.
class TaskRendezvous final : public Rendezvous {
 public:
  TaskRendezvous(std::shared_ptr<Rendezvous> local, const std::string* local_task,
                 const RendezvousMgr::RemoteSend* remote, int64_t step_id)
      : local_(std::move(local)), local_task_(local_task), remote_(remote), step_id_(step_id) {}

  Status Send(const std::string& key, const Tensor& tensor) override {
    std::string_view task = RecvTask(key);
    if (task.empty() || task == *local_task_) return local_->Send(key, tensor);
    return (*remote_)(std::string(task), step_id_, key, tensor);
  }
  void RecvAsync(const std::string& key, DoneCallback done) override {
    local_->RecvAsync(key, std::move(done));
  }
  void StartAbort(const Status& status) override { local_->StartAbort(status); }

  Rendezvous* local() { return local_.get(); }

 private:
  std::shared_ptr<Rendezvous> local_;
  const std::string* local_task_;              // owned by the manager, which outlives steps
  const RendezvousMgr::RemoteSend* remote_;
  const int64_t step_id_;
};

}  // namespace

RendezvousMgr::RendezvousMgr(std::string local_task, RemoteSend remote)
    : local_task_(std::move(local_task)), remote_(std::move(remote)) {}

RendezvousMgr::Entry& RendezvousMgr::FindEntry(int64_t step_id) {
  Entry& e = steps_[step_id];
  if (e.rendezvous == nullptr) {
    e.rendezvous = NewLocalRendezvous();
    if (remote_) {
      e.rendezvous = std::make_shared<TaskRendezvous>(std::move(e.rendezvous), &local_task_,
                                                      &remote_, step_id);
    }
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
  if (!remote_) return;
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
    if (it == steps_.end()) return false;
    r = it->second.rendezvous;
  }
  r->StartAbort(status);
  return true;
}

Status RendezvousMgr::Deliver(int64_t step_id, const std::string& key, const Tensor& tensor) {
  std::shared_ptr<Rendezvous> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_.count(step_id)) return Status::OK();
    const bool fresh = !steps_.count(step_id);
    r = FindEntry(step_id).rendezvous;
    if (fresh) ForgetOldUnstarted(step_id);
  }
  // Into the local part: a tensor that arrived here is for a Recv here.
  auto* task = dynamic_cast<TaskRendezvous*>(r.get());
  return (task != nullptr ? task->local() : r.get())->Send(key, tensor);
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
