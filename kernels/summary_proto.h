// The messages TensorBoard reads (paper 9.1): TensorFlow's Summary, its
// HistogramProto and the Event that carries a Summary into an events file,
// in protobuf's wire format. tact has no protobuf dependency; these few
// fields, written by hand, are all its summaries need:
//
//   Summary        { repeated Value value = 1; }
//   Summary.Value  { string tag = 1; float simple_value = 2; HistogramProto histo = 5; }
//   HistogramProto { double min = 1, max = 2, num = 3, sum = 4, sum_squares = 5;
//                    repeated double bucket_limit = 6 [packed], bucket = 7 [packed]; }
//   Event          { double wall_time = 1; int64 step = 2; string file_version = 3;
//                    Summary summary = 5; }
//
// Serialized Summaries concatenate into one (a repeated field's elements
// may come in any number of pieces), which is how MergeSummary merges.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/status.h"

namespace tact::summary {

// A Summary of one Value: `tag` = `value`.
std::string Scalar(std::string_view tag, float value);

// The distribution of a set of numbers in TensorFlow's buckets: limits
// 1e-12 * 1.1^k up to 1e20 on each side of 0, and +-DBL_MAX at the ends;
// a number counts in the first bucket whose limit is above it.
class Histogram {
 public:
  Histogram();
  // A NaN is not counted (it falls in no bucket).
  void Add(double value);
  // A Summary of one Value: `tag` and this histogram, each run of empty
  // buckets written as one (with the run's last limit), as TensorFlow does.
  std::string Encode(std::string_view tag) const;

  // Every bucket's limit, ascending, and how many numbers each counts.
  static const std::vector<double>& Limits();
  const std::vector<double>& counts() const { return counts_; }

 private:
  // How many of the positive limits (1e-12 ... DBL_MAX) are below `x` > 0
  // (or equal to it, with `or_equal`).
  size_t PositiveLimitsBelow(double x, bool or_equal) const;

  const std::vector<double>* limits_;
  size_t positive_count_;  // limits above 0
  std::vector<double> counts_;
  double min_, max_, num_ = 0, sum_ = 0, sum_squares_ = 0;
};

// The tags of a serialized Summary's values, in order. InvalidArgument when
// `bytes` is not a Summary of values that each hold a tag.
StatusOr<std::vector<std::string>> Tags(std::string_view bytes);

// The Event an events file begins with: its format, "brain.Event:2".
std::string FileVersionEvent(double wall_time);
// An Event holding a serialized Summary, at global step `step`.
std::string SummaryEvent(double wall_time, int64_t step, std::string_view summary);

}  // namespace tact::summary
