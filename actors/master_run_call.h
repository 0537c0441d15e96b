// What the master reads from a client's Run (RunCall, actors/messages.h)
// and gives back: the key of the registration it needs, its feeds checked
// against the graph, and its answer in the order of its fetches.
//
// Include only from actors/*.cc: master_state.h pulls in CAF.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "actors/master_state.h"

namespace tact {

// "x" -> "x:0": a tensor's name as partitions and the rendezvous key it.
std::string Normalized(const std::string& tensor_name);

// The signature of a Run: its feeds and targets as sets, its fetches in
// order. Runs with one key share one registration of partitions.
std::string SignatureKey(const RunCall& call);

// Feeds of the wrong dtype, or of a shape their Placeholder rules out,
// named; OK otherwise.
Status CheckFeeds(const Graph& graph, const RunCall& call, const Signature& sig);

// The step's answer as the client gets it: its fetches in the order asked,
// by reference (no byte copied).
StatusOr<std::vector<Tensor>> Answer(const RunCall& call, const std::map<std::string, Tensor>& fetched);

}  // namespace tact
