#include "actors/step_abort_listener.h"

#include "kernels/rendezvous.h"

namespace tact {

void StepAbortListener::Start(Rendezvous* rendezvous, OnAbort on_abort) {
  if (rendezvous == nullptr) return;
  rendezvous_ = rendezvous;
  link_ = std::make_shared<Link>();
  link_->on_abort = std::move(on_abort);
  // The link, not this: the callback may outlive the listener's owner.
  token_ = rendezvous_->AddAbortCallback([link = link_](const Status& s) {
    std::lock_guard<std::mutex> lock(link->mu);
    if (link->on_abort) link->on_abort(s);
  });
}

void StepAbortListener::Stop() {
  if (link_ == nullptr) return;
  rendezvous_->RemoveAbortCallback(token_);
  std::lock_guard<std::mutex> lock(link_->mu);  // waits out a running callback
  link_->on_abort = nullptr;
}

}  // namespace tact
