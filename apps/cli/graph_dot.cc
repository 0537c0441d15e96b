#include "apps/cli/graph_dot.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace tact::apps {
namespace {

// A double-quoted DOT ID: names hold '/', ':' and '.', which bare IDs
// cannot.
std::string Escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}
// Appended: GCC 12 warns (-Wrestrict, wrongly) on "\"" + string.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  out += Escaped(s);
  out += '"';
  return out;
}

// GraphViz's "H S V" colour. Hues step by the golden ratio, so that any
// number of devices gets distinct colours and neighbours differ most.
std::string DeviceColour(int i) {
  const double hue = std::fmod(0.58 + i * 0.6180339887, 1.0);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f 0.35 0.97", hue);
  return buf;
}

// "node", "node:3" or "^node" -> the node's name.
std::string InputNode(const std::string& input) {
  std::string s = input[0] == '^' ? input.substr(1) : input;
  const size_t colon = s.rfind(':');
  if (colon != std::string::npos && colon + 1 < s.size() &&
      s.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    s.resize(colon);
  }
  return s;
}

bool ClientTerminated(const NodeDef& n) {
  bool client = false;
  return GetAttr(n.attrs, "client_terminated", &client).ok() && client;
}

}  // namespace

std::string PartitionsToDot(const PartitionResult& parts, const std::vector<std::string>& devices) {
  // Clusters in the order of `devices`, then any other partition.
  std::vector<std::pair<std::string, const GraphDef*>> order;
  for (const std::string& d : devices) {
    auto it = parts.partitions.find(d);
    if (it != parts.partitions.end()) order.emplace_back(d, &it->second);
  }
  for (const auto& [d, def] : parts.partitions) {
    bool listed = false;
    for (const std::string& l : devices) listed = listed || l == d;
    if (!listed) order.emplace_back(d, &def);
  }

  std::string out = "digraph tact {\n  rankdir=TB;\n  compound=true;\n"
                    "  node [shape=box, style=\"filled,rounded\", fontname=\"Helvetica\", "
                    "fontsize=10];\n  edge [arrowsize=0.6];\n";
  std::string edges;
  // A pair's two ends, by the rendezvous name they share.
  std::map<std::string, std::pair<std::string, std::string>> pairs;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& [device, def] = order[i];
    if (def->nodes.empty()) continue;
    const std::string colour = Quoted(DeviceColour(static_cast<int>(i)));
    out += "  subgraph " + Quoted("cluster_" + std::to_string(i)) + " {\n    label=" +
           Quoted(device) + ";\n    color=" + colour + ";\n    penwidth=2;\n";
    for (const NodeDef& n : def->nodes) {
      out += "    " + Quoted(n.name) + " [label=\"" + Escaped(n.name) + "\\n" + Escaped(n.op) +
             "\", fillcolor=" + colour + "];\n";
      for (const std::string& input : n.inputs) {
        edges += "  " + Quoted(InputNode(input)) + " -> " + Quoted(n.name);
        edges += input[0] == '^' ? " [style=dotted];\n" : ";\n";
      }
      std::string tensor;
      if ((n.op == "_Send" || n.op == "_Recv") && !ClientTerminated(n) &&
          GetAttr(n.attrs, "tensor_name", &tensor).ok()) {
        (n.op == "_Send" ? pairs[tensor].first : pairs[tensor].second) = n.name;
      }
    }
    out += "  }\n";
  }
  for (const auto& [tensor, ends] : pairs) {
    if (ends.first.empty() || ends.second.empty()) continue;  // not a pair of this result
    edges += "  " + Quoted(ends.first) + " -> " + Quoted(ends.second) +
             " [style=dashed, color=\"0 0.8 0.8\", fontsize=8, label=" + Quoted(tensor) + "];\n";
  }
  return out + edges + "}\n";
}

}  // namespace tact::apps
