#include "placement/device_list.h"

#include <algorithm>
#include <unordered_set>

namespace tact {

StatusOr<DeviceList> DeviceList::Create(const std::vector<std::string>& names) {
  if (names.empty()) return errors::InvalidArgument("no devices to place the graph on");
  DeviceList list;
  list.names_ = names;
  list.parsed_.reserve(names.size());
  std::unordered_set<std::string> canonical;  // "/device:cpu:0" and "/device:CPU:0" are one
  for (size_t d = 0; d < names.size(); ++d) {
    auto parsed = DeviceName::Parse(names[d]);
    if (!parsed.ok()) return parsed.status();
    if (!parsed->IsFullySpecified()) {
      return errors::InvalidArgument("device '", names[d],
                                     "' is not a full device name (expected "
                                     "/job:J/replica:R/task:T/device:TYPE:N)");
    }
    if (!canonical.insert(parsed->ToString()).second) {
      return errors::InvalidArgument("device '", names[d], "' is listed twice");
    }
    list.index_.emplace(names[d], static_cast<int>(d));
    auto t = std::find(list.types_.begin(), list.types_.end(), parsed->type);
    if (t == list.types_.end()) t = list.types_.insert(list.types_.end(), parsed->type);
    list.type_of_.push_back(static_cast<int>(t - list.types_.begin()));
    list.parsed_.push_back(std::move(*parsed));
  }
  return list;
}

int DeviceList::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

}  // namespace tact
