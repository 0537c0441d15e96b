// ChromeTraceJson (apps/train/chrome_trace.h) on step stats made by hand:
// two tasks, nodes that overlap on one device, a node the runtime added.
#include "apps/train/chrome_trace.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

namespace tact::apps {
namespace {

NodeExecStats Node(const std::string& name, const std::string& device, int64_t start, int64_t end) {
  NodeExecStats n;
  n.node_name = name;
  n.device = device;
  n.start_ns = start;
  n.end_ns = end;
  n.output_bytes = {int64_t{4} * (end - start)};
  return n;
}

TEST(ChromeTraceTest, ATaskPerProcessADeviceLanePerOverlapAndTimesFromTheFirstNode) {
  const std::string ps = "/job:ps/replica:0/task:0", worker = "/job:worker/replica:0/task:0";
  const int64_t t0 = int64_t{1'700'000'000} * 1'000'000'000;  // the system clock's ns
  StepStats stats;
  stats.Add(Node("w", ps + "/device:CPU:0", t0, t0 + 1000));
  stats.Add(Node("w/_send_0_0", ps + "/device:CPU:0", t0 + 1000, t0 + 3000));
  stats.Add(Node("w/_recv_0_0", worker + "/device:CPU:0", t0 + 500, t0 + 4000));
  stats.Add(Node("mm", worker + "/device:CPU:0", t0 + 4000, t0 + 9000));
  stats.Add(Node("other", worker + "/device:CPU:0", t0 + 5000, t0 + 6000));  // beside mm
  GraphDef graph;
  graph.nodes.push_back({"w", "Variable", {}, "", {}});
  graph.nodes.push_back({"mm", "MatMul", {}, "", {}});

  const nlohmann::json j = nlohmann::json::parse(ChromeTraceJson(stats, graph));
  std::map<int, std::string> process;
  std::map<std::pair<int, int>, std::string> thread;
  std::map<std::string, nlohmann::json> slice;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") process[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name") thread[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "X") slice[e["name"]] = e;
  }
  ASSERT_EQ(process.size(), 2u);
  ASSERT_EQ(slice.size(), 5u);
  EXPECT_EQ(process[slice["w"]["pid"]], ps);
  EXPECT_EQ(process[slice["mm"]["pid"]], worker);
  EXPECT_EQ(j["otherData"]["first_node_start_unix_ns"], t0);
  EXPECT_EQ(slice["w"]["ts"], 0.0);
  EXPECT_EQ(slice["mm"]["ts"], 4.0);  // µs
  EXPECT_EQ(slice["mm"]["dur"], 5.0);
  EXPECT_EQ(slice["mm"]["cat"], "MatMul");
  EXPECT_EQ(slice["w"]["cat"], "Variable");
  EXPECT_EQ(slice["w/_send_0_0"]["cat"], "_Send");
  EXPECT_EQ(slice["w/_recv_0_0"]["cat"], "_Recv");
  EXPECT_EQ(slice["mm"]["args"]["output_bytes"][0], 20000);
  // The Recv ended as mm started: one lane. "other" ran beside mm: a second.
  EXPECT_EQ(slice["w/_recv_0_0"]["tid"], slice["mm"]["tid"]);
  EXPECT_NE(slice["other"]["tid"], slice["mm"]["tid"]);
  EXPECT_EQ((thread[{slice["mm"]["pid"], slice["mm"]["tid"]}]), "CPU:0");
  EXPECT_EQ((thread[{slice["other"]["pid"], slice["other"]["tid"]}]), "CPU:0 #2");
}

TEST(ChromeTraceTest, AnUnwritableFileIsNamed) {
  Status s = WriteChromeTrace("/nonexistent/dir/trace.json", StepStats(), GraphDef());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/dir/trace.json"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace tact::apps
