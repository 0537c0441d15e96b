#include "actors/master_links.h"

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <thread>

#include "actors/inline_unit.h"
#include "graph/logging.h"

namespace tact {

// A tensor to send, or (no key) a link to open.
struct MasterLinks::Job {
  std::string host;
  uint16_t port = 0;
  uint64_t epoch = 0;
  int64_t step_id = 0;
  std::string key;
  Tensor tensor;
  OnError on_error;
};

// One task's queue and the thread that empties it.
struct MasterLinks::Lane {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Job> jobs;
  bool stop = false;
  std::thread thread;

  void Loop(const std::string& task, TensorLinks* links) {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || !jobs.empty(); });
      if (stop) return;
      Job job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      if (job.key.empty()) {
        (void)links->Connect(task, job.host, job.port, job.epoch);
      } else {
        Status s = links->Send(task, job.host, job.port, job.epoch, job.step_id, job.key, job.tensor);
        if (!s.ok()) job.on_error(s);
      }
      job = Job();  // the tensor's reference goes here, off the lock
      lock.lock();
    }
  }
};

StatusOr<std::unique_ptr<MasterLinks>> MasterLinks::Start(const std::string& client, const std::string& host,
                                                          const std::string& key) {
  std::unique_ptr<MasterLinks> m(new MasterLinks());
  MasterLinks* self = m.get();
  TACT_ASSIGN_OR_RETURN(
      m->links_, TensorLinks::Start(client, host, key,
                                    [self](const LinkSender& from, int64_t step_id, const std::string& k,
                                           const Tensor& t) { self->Arrived(from, step_id, k, t); }));
  return m;
}

MasterLinks::~MasterLinks() {
  std::map<std::string, std::unique_ptr<Lane>> lanes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lanes.swap(lanes_);
  }
  for (auto& [task, lane] : lanes) {
    {
      std::lock_guard<std::mutex> lock(lane->mu);
      lane->stop = true;
      lane->cv.notify_all();
    }
    lane->thread.join();
  }
  links_.reset();  // joins the readers, which call Arrived
}

uint16_t MasterLinks::port() const { return links_->port(); }

void MasterLinks::SetOnStepDone(OnStepDone on_done) {
  std::unique_lock<std::shared_mutex> lock(on_done_mu_);
  on_done_ = std::move(on_done);
}

void MasterLinks::AnswerOnArrival(int64_t step_id, int partitions, StepFinished finished) {
  std::lock_guard<std::mutex> lock(answering_mu_);
  Answering& a = answering_[step_id];
  a.left = partitions;
  a.finished = std::move(finished);
}

void MasterLinks::ForgetStep(int64_t step_id) {
  std::lock_guard<std::mutex> lock(answering_mu_);
  answering_.erase(step_id);
}

void MasterLinks::Arrived(const LinkSender& from, int64_t step_id, const std::string& key, const Tensor& t) {
  StatusOr<std::optional<WireStepDone>> done = assembler_.Take(from, step_id, key, t);
  if (!done.ok()) {
    // Only a task holding the cluster's secret gets here: a bug, not an
    // attack. Its step ends by the step's own deadline or the task's loss.
    LogWarning("tact master: dropped a frame on a tensor link: ", done.status().ToString());
    return;
  }
  if (!done->has_value()) return;
  StepFinished finished;
  std::map<std::string, Tensor> fetched;
  {
    std::lock_guard<std::mutex> lock(answering_mu_);
    auto it = answering_.find((*done)->step_id);
    if (it != answering_.end()) {
      Answering& a = it->second;
      if (!(*done)->status.ok()) {
        answering_.erase(it);  // the master answers a failed step
      } else if (a.answered.insert((*done)->handle).second) {
        for (const auto& [name, t] : (*done)->fetched) a.fetched[name] = t;
        if (--a.left == 0) {
          finished = std::move(a.finished);
          fetched = std::move(a.fetched);
          answering_.erase(it);
        }
      }
    }
  }
  // The master's copy goes into its mailbox first: once answered, the
  // client may close the session at once, and a close that reached the
  // master before this StepDone would find the finished step still running
  // and abort it on every task (a frame each, for nothing). The master
  // runs it (on this thread, actors/inline_unit.h) only after the client
  // has its answer: running it first cost a trivial remote step 15-20 us
  // (`tact bench sendrecv`'s remote_step_us).
  std::shared_lock<std::shared_mutex> lock(on_done_mu_);
  const InlineHold hold;
  if (on_done_) on_done_(std::move(**done));
  if (finished) finished(std::move(fetched));
}

void MasterLinks::Queue(const std::string& task, Job job) {
  Lane* lane;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<Lane>& slot = lanes_[task];
    if (slot == nullptr) {
      slot = std::make_unique<Lane>();
      slot->thread = std::thread([l = slot.get(), task, links = links_.get()] { l->Loop(task, links); });
    }
    lane = slot.get();
  }
  std::lock_guard<std::mutex> lock(lane->mu);
  lane->jobs.push_back(std::move(job));
  lane->cv.notify_one();
}

void MasterLinks::Send(const std::string& task, const std::string& host, uint16_t port, uint64_t epoch,
                       int64_t step_id, const std::string& key, const Tensor& tensor, OnError on_error) {
  Queue(task, Job{host, port, epoch, step_id, key, tensor, std::move(on_error)});
}

void MasterLinks::Connect(const std::string& task, const std::string& host, uint16_t port, uint64_t epoch) {
  Queue(task, Job{host, port, epoch, 0, "", Tensor(), nullptr});
}

bool MasterLinks::SendNow(const std::string& task, uint16_t port, uint64_t epoch, int64_t step_id,
                          const std::string& key, const Tensor& message) {
  return links_->SendIfLinked(task, port, epoch, step_id, key, message);
}

}  // namespace tact
