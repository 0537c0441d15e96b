#include "kernels/rendezvous.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <unordered_map>

namespace tact {

namespace {

// Recv, and with `if_absent` a Recv that does not wait: if the tensor is
// not there when asked, the rendezvous is aborted with *if_absent, which
// ends this Recv too.
StatusOr<Tensor> RecvAndWait(Rendezvous* rendezvous, const std::string& key, const Status* if_absent) {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status status;
  Tensor value;
  rendezvous->RecvAsync(key, [&](const Status& s, const Tensor& t) {
    std::lock_guard<std::mutex> lock(mu);
    status = s;
    value = t;
    finished = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  if (!finished && if_absent != nullptr) {
    lock.unlock();
    rendezvous->StartAbort(*if_absent);
    lock.lock();
  }
  cv.wait(lock, [&] { return finished; });
  if (!status.ok()) return status;
  return value;
}

}  // namespace

StatusOr<Tensor> Rendezvous::Recv(const std::string& key) { return RecvAndWait(this, key, nullptr); }

StatusOr<Tensor> Rendezvous::RecvSent(const std::string& key, const Status& if_absent) {
  return RecvAndWait(this, key, &if_absent);
}

namespace {

class LocalRendezvous final : public Rendezvous {
 public:
  ~LocalRendezvous() override {
    // Receivers still waiting when the step's last reference goes get an
    // error rather than silence. (Only then is the error made: this runs
    // at the end of every step.)
    bool waiting = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [key, slot] : table_) waiting = waiting || slot.waiter != nullptr;
    }
    if (waiting) StartAbort(errors::Cancelled("rendezvous destroyed with receivers waiting"));
  }

  Status Send(const std::string& key, const Tensor& tensor) override {
    DoneCallback waiter;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!abort_.ok()) return abort_;
      Slot& slot = table_[key];
      if (slot.sent) return errors::AlreadyExists("rendezvous key '", key, "' was sent twice");
      slot.sent = true;
      if (!slot.waiter) {
        slot.value = tensor;
        return Status::OK();
      }
      waiter = std::move(slot.waiter);
      slot.waiter = nullptr;
      slot.received = true;
    }
    waiter(Status::OK(), tensor);  // outside the lock: it may run the next kernel
    return Status::OK();
  }

  void RecvAsync(const std::string& key, DoneCallback done) override {
    Tensor value;
    Status status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!abort_.ok()) {
        status = abort_;
      } else {
        Slot& slot = table_[key];
        if (slot.received || slot.waiter) {
          status = errors::AlreadyExists("rendezvous key '", key, "' was received twice");
        } else if (!slot.sent) {
          slot.waiter = std::move(done);
          return;
        } else {
          slot.received = true;
          value = std::move(slot.value);
          slot.value = Tensor();
        }
      }
    }
    done(status, value);
  }

  void StartAbort(const Status& status) override {
    std::vector<DoneCallback> waiters;
    std::map<uint64_t, AbortCallback> on_abort;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!abort_.ok()) return;
      abort_ = status.ok() ? errors::Aborted("rendezvous aborted") : status;
      for (auto& [key, slot] : table_) {
        if (slot.waiter) waiters.push_back(std::move(slot.waiter));
        slot.waiter = nullptr;
        slot.value = Tensor();
      }
      on_abort.swap(on_abort_);
    }
    for (auto& w : waiters) w(abort_, Tensor());
    for (auto& [token, cb] : on_abort) cb(abort_);
  }

  uint64_t AddAbortCallback(AbortCallback on_abort) override {
    Status aborted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (abort_.ok()) {
        on_abort_.emplace(next_token_, std::move(on_abort));
        return next_token_++;
      }
      aborted = abort_;
    }
    on_abort(aborted);
    return 0;
  }

  void RemoveAbortCallback(uint64_t token) override {
    std::lock_guard<std::mutex> lock(mu_);
    on_abort_.erase(token);
  }

 private:
  struct Slot {
    bool sent = false;
    bool received = false;
    Tensor value;        // sent, not yet received
    DoneCallback waiter;  // received, not yet sent
  };
  std::mutex mu_;
  std::unordered_map<std::string, Slot> table_;
  Status abort_;
  std::map<uint64_t, AbortCallback> on_abort_;
  uint64_t next_token_ = 1;  // 0: a callback that ran at once
};

}  // namespace

std::shared_ptr<Rendezvous> NewLocalRendezvous() { return std::make_shared<LocalRendezvous>(); }

std::string RendezvousKey(const std::string& send_device, uint64_t send_incarnation,
                          const std::string& recv_device, const std::string& tensor_name) {
  return send_device + ";" + std::to_string(send_incarnation) + ";" + recv_device + ";" +
         tensor_name;
}

std::pair<std::string_view, std::string_view> SplitFrameIter(std::string_view key) {
  size_t at = 0;
  for (int field = 0; field < 4; ++field) {
    at = key.find(';', field == 0 ? 0 : at + 1);
    if (at == std::string_view::npos) return {key, {}};
  }
  return {key.substr(0, at), key.substr(at)};
}

}  // namespace tact
