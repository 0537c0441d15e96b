// DeviceList: the devices a placement may use, each full name parsed once,
// and DeviceSet, a set of them as bits, so that the placer's per-node work
// is word operations, never string parsing (placer.h).
//
// Internal to placement/. Immutable after Create(); concurrent const use is
// fine.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "devices/device_name.h"

namespace tact {

class DeviceList {
 public:
  // InvalidArgument for an empty list, a name that is not a full device
  // name, or a name given twice.
  static StatusOr<DeviceList> Create(const std::vector<std::string>& names);

  int size() const { return static_cast<int>(names_.size()); }
  const std::string& name(int d) const { return names_[d]; }
  const DeviceName& parsed(int d) const { return parsed_[d]; }
  // Index into types() of device d's type.
  int type_of(int d) const { return type_of_[d]; }
  // The distinct device types ("CPU", "GPU"), in order of first appearance.
  const std::vector<std::string>& types() const { return types_; }
  // Index of a full name as given, or -1.
  int Find(const std::string& name) const;
  // 64-bit words in a DeviceSet of this list.
  int words() const { return (size() + 63) / 64; }

 private:
  std::vector<std::string> names_;
  std::vector<DeviceName> parsed_;
  std::vector<int> type_of_;
  std::vector<std::string> types_;
  std::unordered_map<std::string, int> index_;
};

// A set of device indices over `words` 64-bit words, stored by its owner
// (one flat array for many sets keeps the placer's memory in one block).
namespace device_set {
inline void Fill(uint64_t* s, int words, int num_devices) {
  for (int w = 0; w < words; ++w) {
    const int left = num_devices - 64 * w;
    s[w] = left >= 64 ? ~uint64_t{0} : ((uint64_t{1} << left) - 1);
  }
}
inline void Clear(uint64_t* s, int words) {
  for (int w = 0; w < words; ++w) s[w] = 0;
}
inline void Add(uint64_t* s, int d) { s[d / 64] |= uint64_t{1} << (d % 64); }
inline bool Contains(const uint64_t* s, int d) { return (s[d / 64] >> (d % 64)) & 1; }
inline void IntersectWith(uint64_t* s, const uint64_t* other, int words) {
  for (int w = 0; w < words; ++w) s[w] &= other[w];
}
inline bool Empty(const uint64_t* s, int words) {
  for (int w = 0; w < words; ++w) {
    if (s[w] != 0) return false;
  }
  return true;
}
// Calls f(d) for each member, in increasing order.
template <typename F>
void ForEach(const uint64_t* s, int words, F&& f) {
  for (int w = 0; w < words; ++w) {
    for (uint64_t bits = s[w]; bits != 0; bits &= bits - 1) f(64 * w + __builtin_ctzll(bits));
  }
}
}  // namespace device_set

}  // namespace tact
