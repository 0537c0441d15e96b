#include "apps/train/chrome_trace.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace tact::apps {
namespace {

// The op of a node the runtime added, from the partitioner's names
// (placement/partitioner.h): "<src>/_send_<port>_<k>", a feed's
// "_recv_<node>_<port>".
std::string AddedNodeOp(const std::string& name) {
  const std::string last = name.substr(name.rfind('/') + 1);
  if (last.rfind("_send_", 0) == 0) return "_Send";
  if (last.rfind("_recv_", 0) == 0) return "_Recv";
  return "(added by the runtime)";
}

// "/job:ps/replica:0/task:0/device:CPU:0" -> the task and "CPU:0".
std::pair<std::string, std::string> TaskAndDevice(const std::string& device) {
  const size_t at = device.find("/device:");
  if (at == std::string::npos) return {device, device};
  return {device.substr(0, at), device.substr(at + 8)};
}

}  // namespace

std::string ChromeTraceJson(const StepStats& stats, const GraphDef& graph) {
  std::map<std::string, std::string> op_of;
  for (const NodeDef& n : graph.nodes) op_of[n.name] = n.op;
  std::vector<NodeExecStats> nodes = stats.nodes();
  std::sort(nodes.begin(), nodes.end(), [](const NodeExecStats& a, const NodeExecStats& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.node_name < b.node_name;
  });
  const int64_t origin = nodes.empty() ? 0 : nodes.front().start_ns;

  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  std::map<std::string, int> pids;  // task -> pid
  // Per device: the end of each lane's last slice. A node goes to the
  // first lane free when it starts, so slices of one lane never overlap.
  std::map<std::string, std::vector<int64_t>> lanes;
  std::map<std::pair<std::string, size_t>, int> tids;  // (device, lane) -> tid
  for (const NodeExecStats& n : nodes) {
    const auto [task, device] = TaskAndDevice(n.device);
    auto [p, new_task] = pids.emplace(task, static_cast<int>(pids.size()) + 1);
    if (new_task) {
      events.push_back(
          {{"name", "process_name"}, {"ph", "M"}, {"pid", p->second}, {"args", {{"name", task}}}});
    }
    std::vector<int64_t>& ends = lanes[n.device];
    size_t lane = 0;
    while (lane < ends.size() && ends[lane] > n.start_ns) ++lane;
    if (lane == ends.size()) ends.push_back(0);
    ends[lane] = n.end_ns;
    auto [t, new_lane] = tids.emplace(std::make_pair(n.device, lane), static_cast<int>(tids.size()) + 1);
    if (new_lane) {
      const std::string name = lane == 0 ? device : device + " #" + std::to_string(lane + 1);
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", p->second}, {"tid", t->second},
                        {"args", {{"name", name}}}});
    }
    auto op = op_of.find(n.node_name);
    const std::string op_name = op != op_of.end() ? op->second : AddedNodeOp(n.node_name);
    events.push_back({{"name", n.node_name},
                      {"cat", op_name},
                      {"ph", "X"},
                      {"pid", p->second},
                      {"tid", t->second},
                      {"ts", static_cast<double>(n.start_ns - origin) / 1000},
                      {"dur", static_cast<double>(n.end_ns - n.start_ns) / 1000},
                      {"args", {{"op", op_name}, {"output_bytes", n.output_bytes}}}});
  }
  nlohmann::ordered_json trace = {{"traceEvents", events},
                                  {"displayTimeUnit", "ns"},
                                  {"otherData", {{"first_node_start_unix_ns", origin}}}};
  return trace.dump();
}

Status WriteChromeTrace(const std::string& path, const StepStats& stats, const GraphDef& graph) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return errors::PermissionDenied("cannot write the trace to '", path, "'");
  out << ChromeTraceJson(stats, graph) << "\n";
  out.close();
  if (!out) return errors::DataLoss("writing the trace to '", path, "' failed");
  return Status::OK();
}

}  // namespace tact::apps
