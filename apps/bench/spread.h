// How the benchmarks that run several times report a figure: its min,
// median and max, and every run in the order it ran.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace tact::apps {

nlohmann::ordered_json Spread(const std::vector<double>& runs);

}  // namespace tact::apps
