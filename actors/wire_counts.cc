#include "actors/wire_counts.h"

#include <array>
#include <atomic>
#include <cstring>
#include <nlohmann/json.hpp>

namespace tact {
namespace {

// The types that cross between processes (schemas/runtime.capnp), those
// of every step first: CountDecode looks a type up by a linear search.
constexpr std::array<const char*, 15> kTypes = {
    "LinkFrame", "RunStep",   "StepDone",   "RendezvousTensor", "AbortStep",         "HealthPing",
    "TaskInfo",  "Describe",  "Introduce",  "Introduced",       "Hello",             "RegisterPartition",
    "PartitionRegistered",    "DeregisterPartition",            "Failure"};

std::array<std::atomic<uint64_t>, kTypes.size()> decoded{};
std::atomic<uint64_t> refused{0};

}  // namespace

void CountDecode(const char* type, bool ok) {
  if (!ok) {
    refused.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  for (size_t i = 0; i < kTypes.size(); ++i) {
    if (std::strcmp(kTypes[i], type) == 0) {
      decoded[i].fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  refused.fetch_add(1, std::memory_order_relaxed);  // a type this table does not know
}

WireDecodeCounts DecodeCounts() {
  WireDecodeCounts c;
  for (size_t i = 0; i < kTypes.size(); ++i) {
    const uint64_t n = decoded[i].load(std::memory_order_relaxed);
    if (n > 0) c.decoded[kTypes[i]] = n;
  }
  c.refused = refused.load(std::memory_order_relaxed);
  return c;
}

std::string DecodeCountsJson() {
  const WireDecodeCounts c = DecodeCounts();
  nlohmann::ordered_json j;
  j["decoded"] = nlohmann::json::object();
  for (const auto& [type, n] : c.decoded) j["decoded"][type] = n;
  j["refused"] = c.refused;
  return j.dump();
}

}  // namespace tact
