#include "kernels/cpu/queue_wait.h"

#include <mutex>

#include "kernels/rendezvous.h"

namespace tact {

void WaitOnQueue(OpKernelContext* ctx, const std::shared_ptr<Queue>& queue,
                 const std::function<Queue::Token(std::function<void()> ended)>& start,
                 std::function<void()> finish) {
  struct State {
    std::mutex mu;
    bool ended = false;
    uint64_t abort_token = 0;
  };
  auto state = std::make_shared<State>();
  Rendezvous* rendezvous = ctx->rendezvous();
  const Queue::Token token = start([state, rendezvous, finish = std::move(finish)] {
    uint64_t abort_token = 0;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      state->ended = true;
      abort_token = state->abort_token;
    }
    if (abort_token != 0) rendezvous->RemoveAbortCallback(abort_token);
    finish();
  });
  if (token == 0 || rendezvous == nullptr) return;  // ended already, or no step to abort it
  const uint64_t abort_token =
      rendezvous->AddAbortCallback([queue, token](const Status& why) { queue->Cancel(token, why); });
  std::lock_guard<std::mutex> lock(state->mu);
  if (state->ended) {
    rendezvous->RemoveAbortCallback(abort_token);
  } else {
    state->abort_token = abort_token;
  }
}

}  // namespace tact
