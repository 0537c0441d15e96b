#include "kernels/summary_proto.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstring>

namespace tact::summary {
namespace {

// Protobuf's wire types.
constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutKey(int field, int wire_type, std::string* out) {
  PutVarint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type), out);
}

// Little-endian, as protobuf's fixed-width fields are (and this machine is).
template <typename T>
void PutFixed(T v, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out->append(bytes, sizeof(T));
}

void PutDouble(int field, double v, std::string* out) {
  PutKey(field, kFixed64, out);
  PutFixed(v, out);
}

void PutBytes(int field, std::string_view bytes, std::string* out) {
  PutKey(field, kLengthDelimited, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

void PutPackedDoubles(int field, const std::vector<double>& v, std::string* out) {
  std::string packed;
  for (double d : v) PutFixed(d, &packed);
  PutBytes(field, packed, out);
}

// A Summary of one Value, whose fields after the tag are `rest`.
std::string OneValue(std::string_view tag, std::string_view rest) {
  std::string value;
  PutBytes(1, tag, &value);
  value.append(rest);
  std::string summary;
  PutBytes(1, value, &summary);
  return summary;
}

std::vector<double> DefaultLimits() {
  std::vector<double> positive;
  for (double v = 1e-12; v < 1e20; v *= 1.1) positive.push_back(v);
  positive.push_back(DBL_MAX);
  std::vector<double> limits;
  for (auto it = positive.rbegin(); it != positive.rend(); ++it) limits.push_back(-*it);
  limits.push_back(0.0);
  limits.insert(limits.end(), positive.begin(), positive.end());
  return limits;
}

// Reads protobuf fields from `bytes`; each Next gives one field's number,
// wire type and, for a length-delimited one, its bytes.
class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : rest_(bytes) {}
  bool done() const { return rest_.empty(); }
  // False for bytes that end inside a field or hold a wire type protobuf
  // has no more (groups).
  bool Next(int* field, int* wire_type, std::string_view* payload) {
    uint64_t key;
    if (!Varint(&key)) return false;
    *field = static_cast<int>(key >> 3);
    *wire_type = static_cast<int>(key & 7);
    uint64_t n = 0;
    switch (*wire_type) {
      case kVarint:
        return Varint(&n);
      case kFixed64:
        return Skip(8, payload);
      case kFixed32:
        return Skip(4, payload);
      case kLengthDelimited:
        return Varint(&n) && Skip(n, payload);
      default:
        return false;
    }
  }

 private:
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && !rest_.empty(); shift += 7) {
      const auto b = static_cast<uint8_t>(rest_.front());
      rest_.remove_prefix(1);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool Skip(uint64_t n, std::string_view* payload) {
    if (n > rest_.size()) return false;
    *payload = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }

  std::string_view rest_;
};

// log2(x) of a positive x to within 0.09, from its bits: the exponent plus
// the mantissa's fraction (log2 of 1 + f is f at the ends, and within 0.09
// of it between).
double RoughLog2(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1023} << 52);
  double mantissa;
  std::memcpy(&mantissa, &bits, sizeof mantissa);
  return exponent + (mantissa - 1.0);
}

}  // namespace

std::string Scalar(std::string_view tag, float value) {
  std::string rest;
  PutKey(2, kFixed32, &rest);
  PutFixed(value, &rest);
  return OneValue(tag, rest);
}

const std::vector<double>& Histogram::Limits() {
  static const std::vector<double>* const kLimits = new std::vector<double>(DefaultLimits());
  return *kLimits;
}

Histogram::Histogram() : min_(DBL_MAX), max_(-DBL_MAX) {
  limits_ = &Limits();
  positive_count_ = limits_->size() / 2;
  counts_.assign(limits_->size(), 0.0);
}

size_t Histogram::PositiveLimitsBelow(double x, bool or_equal) const {
  // The positive limits are 1e-12 * 1.1^k (and DBL_MAX last), so the answer
  // is about log_1.1(x / 1e-12) + 1. The rough logarithm is at most 0.09
  // low, 0.63 of a limit: the answer is within one of its guess, and two
  // comparisons with the limits themselves settle it, without a branch on
  // the data, so that a number on a limit counts exactly as a binary
  // search would count it, at a fraction of its time.
  static const double kLog2First = std::log2(1e-12), kLog2Ratio = std::log2(1.1);
  const double* positive = limits_->data() + (limits_->size() - positive_count_);
  const double guess = (RoughLog2(x) - kLog2First) / kLog2Ratio + 1;
  const auto last = static_cast<ptrdiff_t>(positive_count_) - 1;
  const ptrdiff_t n = guess < 0 ? 0 : std::min(last, static_cast<ptrdiff_t>(std::min(guess, 1e9)));
  // Bitwise, not ||: the signs of a layer's weights are a coin toss, which
  // a branch would mispredict half the time.
  const auto below = [&](ptrdiff_t i) -> ptrdiff_t {
    const double limit = positive[std::max<ptrdiff_t>(i, 0)];
    return static_cast<int>(i < 0) | static_cast<int>(limit < x) |
           (static_cast<int>(or_equal) & static_cast<int>(limit == x));
  };
  return static_cast<size_t>(n - 1 + below(n - 1) + below(n));
}

void Histogram::Add(double value) {
  if (std::isnan(value)) return;
  // The bucket is the first whose limit is above `value`: its index is the
  // number of limits at or below it. For a negative number those are the
  // negative limits -p with p >= |value|.
  const bool negative = value < 0;
  const size_t below = PositiveLimitsBelow(std::abs(value), /*or_equal=*/!negative);
  const size_t zero = limits_->size() - positive_count_ - 1;  // the index of the limit 0
  const size_t b = negative ? positive_count_ - below : zero + 1 + below;
  counts_[std::min(b, counts_.size() - 1)] += 1;  // DBL_MAX itself counts in the last bucket
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  num_ += 1;
  sum_ += value;
  sum_squares_ += value * value;
}

std::string Histogram::Encode(std::string_view tag) const {
  std::vector<double> limits, counts;
  for (size_t i = 0; i < counts_.size(); ++i) {
    const bool run_of_empty = counts_[i] == 0 && i + 1 < counts_.size() && counts_[i + 1] == 0;
    if (run_of_empty) continue;  // the run is written at its last bucket
    limits.push_back((*limits_)[i]);
    counts.push_back(counts_[i]);
  }
  std::string histo;
  PutDouble(1, min_, &histo);
  PutDouble(2, max_, &histo);
  PutDouble(3, num_, &histo);
  PutDouble(4, sum_, &histo);
  PutDouble(5, sum_squares_, &histo);
  PutPackedDoubles(6, limits, &histo);
  PutPackedDoubles(7, counts, &histo);
  std::string rest;
  PutBytes(5, histo, &rest);
  return OneValue(tag, rest);
}

StatusOr<std::vector<std::string>> Tags(std::string_view bytes) {
  std::vector<std::string> tags;
  FieldReader summary(bytes);
  int field, wire_type;
  std::string_view value;
  while (!summary.done()) {
    if (!summary.Next(&field, &wire_type, &value)) {
      return errors::InvalidArgument("a summary of ", bytes.size(), " bytes is not a Summary message");
    }
    if (field != 1 || wire_type != kLengthDelimited) continue;  // a field of a later version
    FieldReader fields(value);
    std::string_view tag;
    bool has_tag = false;
    while (!fields.done()) {
      std::string_view payload;
      if (!fields.Next(&field, &wire_type, &payload)) {
        return errors::InvalidArgument("value ", tags.size(), " of a summary is not a Summary.Value");
      }
      if (field == 1 && wire_type == kLengthDelimited) {
        tag = payload;
        has_tag = true;
      }
    }
    if (!has_tag) return errors::InvalidArgument("value ", tags.size(), " of a summary has no tag");
    tags.emplace_back(tag);
  }
  return tags;
}

std::string FileVersionEvent(double wall_time) {
  std::string event;
  PutDouble(1, wall_time, &event);
  PutBytes(3, "brain.Event:2", &event);
  return event;
}

std::string SummaryEvent(double wall_time, int64_t step, std::string_view summary) {
  std::string event;
  PutDouble(1, wall_time, &event);
  PutKey(2, kVarint, &event);
  PutVarint(static_cast<uint64_t>(step), &event);
  PutBytes(5, summary, &event);
  return event;
}

}  // namespace tact::summary
