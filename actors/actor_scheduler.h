// The CAF scheduler tact's actor systems run on: work sharing on one
// thread (compute runs on the devices' pools; CAF only routes messages),
// whose thread polls its queue for a short while before it sleeps.
//
// Why poll: a Run is a burst of a few messages, and the next Run of a
// client's loop usually follows within microseconds. CAF's own sharing
// policy sleeps on a condition variable at once, so every Run paid a
// futex wake-up of the scheduler thread, about as much as the rest of the
// Run together. The polling thread yields the core on every round, so a
// device thread that has work runs instead; it costs only cycles that
// nobody else wanted.
#pragma once

#include <caf/fwd.hpp>
#include <chrono>

namespace tact {

// How long the scheduler thread polls before it sleeps.
inline constexpr std::chrono::microseconds kSchedulerPoll{50};

// Sets `cfg` up for one polling scheduler thread. Call before the
// actor_system is created from `cfg`.
void UseActorScheduler(caf::actor_system_config& cfg);

}  // namespace tact
