// Cond: a conditional (paper 4.4), built from Switch and Merge.
//
//   auto r = Cond(s, Less(s, x, 0.0f),
//                 [&](const Scope& t) { return std::vector<Output>{Neg(t, x)}; },
//                 [&](const Scope& f) { return std::vector<Output>{x}; });
//
// Each branch function builds plain ops under its own scope and returns its
// values; it may read any tensor built before the Cond (each enters the
// branch through a Switch on `pred`, so an untaken branch's ops see dead
// inputs and do not run). The result has one Output per value, the taken
// branch's at run time. Both branches must return as many values, of the
// same dtypes.
#pragma once

#include <functional>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

using BranchFn = std::function<std::vector<Output>(const Scope& branch)>;

// `pred` is a bool scalar. Errors (a pred that is not one, branches that
// disagree) are recorded in the scope and name the Cond; the result is
// then empty.
std::vector<Output> Cond(const Scope& scope, Input pred, const BranchFn& true_fn,
                         const BranchFn& false_fn);

}  // namespace tact
