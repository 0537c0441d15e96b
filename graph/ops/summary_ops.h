// Summary ops (paper 9.1, TensorBoard's): each turns tensors into a
// serialized Summary message (kernels/summary_proto.h), a scalar string
// that the client fetches every so often and writes to an events file
// (kernels/events_writer.h).
//
//   auto loss_summary = ScalarSummary(s, "loss", loss);
//   auto weights = HistogramSummary(s, "dense/kernel", kernel);
//   auto all = MergeSummary(s, {loss_summary, weights});
#pragma once

#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

// One value per element of `values` (a real number type), tagged with the
// matching element of `tags` (strings of the same shape).
Output ScalarSummary(const Scope& scope, Input tags, Input values);
// The distribution of every element of `values` (a real number type) under
// the string scalar `tag`; InvalidArgument for a NaN or an infinity.
Output HistogramSummary(const Scope& scope, Input tag, Input values);
// The values of every input summary in one; InvalidArgument naming a tag
// that two inputs share.
Output MergeSummary(const Scope& scope, const std::vector<Input>& inputs);

}  // namespace tact
