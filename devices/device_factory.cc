#include "devices/device_factory.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <stdexcept>

namespace tact {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<DeviceFactory>> factories;
};

Registry& GetRegistry() {
  static Registry* const kRegistry = new Registry();  // used by static initialisers
  return *kRegistry;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void RegisterDeviceFactory(const std::string& type, std::unique_ptr<DeviceFactory> factory) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories.emplace(Upper(type), std::move(factory));
}

std::vector<std::string> RegisteredDeviceTypes() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> types;
  for (const auto& [type, f] : r.factories) types.push_back(type);
  return types;
}

StatusOr<std::map<std::string, int>> ParseDeviceCounts(const std::string& spec) {
  auto count_of = [&](const std::string& text) -> StatusOr<int> {
    size_t used = 0;
    int n = -1;
    try {
      n = std::stoi(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || n < 0) {
      return errors::InvalidArgument("device counts '", spec, "': '", text, "' is not a count >= 0");
    }
    return n;
  };
  std::map<std::string, int> counts;
  if (spec.find(':') == std::string::npos) {
    TACT_ASSIGN_OR_RETURN(counts["CPU"], count_of(spec));
    return counts;
  }
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string part = spec.substr(start, comma - start);
    const size_t colon = part.find(':');
    if (colon == std::string::npos || colon == 0) {
      return errors::InvalidArgument("device counts '", spec, "': '", part, "' is not TYPE:COUNT");
    }
    const std::string type = Upper(part.substr(0, colon));
    if (counts.count(type)) {
      return errors::InvalidArgument("device counts '", spec, "' name ", type, " twice");
    }
    TACT_ASSIGN_OR_RETURN(counts[type], count_of(part.substr(colon + 1)));
    start = comma + 1;
  }
  return counts;
}

StatusOr<std::vector<std::unique_ptr<Device>>> CreateDevices(
    const std::map<std::string, int>& counts, const std::string& task_prefix, int threads) {
  if (threads < 1) return errors::InvalidArgument("threads per device must be >= 1, got ", threads);
  int64_t total = 0;
  for (const auto& [type, count] : counts) total += std::max(count, 0);
  if (total * threads > kMaxComputeThreads) {
    return errors::InvalidArgument(total, " devices with ", threads, " compute threads each would start ",
                                   total * threads, " threads; at most ", kMaxComputeThreads,
                                   " in one process");
  }
  std::vector<std::unique_ptr<Device>> devices;
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& [raw_type, count] : counts) {
    const std::string type = Upper(raw_type);
    if (count < 0) {
      return errors::InvalidArgument("device count for '", raw_type, "' is negative (", count, ")");
    }
    auto it = r.factories.find(type);
    if (it == r.factories.end()) {
      std::string known;
      for (const auto& [t, f] : r.factories) known += (known.empty() ? "" : ", ") + t;
      return errors::NotFound("no device factory for type '", raw_type, "' (known: ", known, ")");
    }
    TACT_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Device>> made,
                          it->second->CreateDevices(task_prefix, count, threads));
    for (auto& d : made) devices.push_back(std::move(d));
  }
  return devices;
}

}  // namespace tact
