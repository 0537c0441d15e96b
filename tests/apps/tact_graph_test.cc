// `tact graph` as a user runs it: a real process writing a real DOT file,
// read back by structure (and by GraphViz's `dot` where it is installed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace tact {
namespace {

namespace fs = std::filesystem;

// What a DOT file of graph_dot.h says, read line by line.
struct Dot {
  std::map<std::string, std::string> device_of_cluster;  // "cluster_0" -> its label
  struct NodeLine {
    std::string cluster, op, colour;
  };
  std::map<std::string, NodeLine> nodes;
  std::vector<std::string> repeated;  // nodes declared twice
  struct EdgeLine {
    std::string src, dst, style, label;
  };
  std::vector<EdgeLine> edges;
  int unparsed = 0;  // lines of no known kind inside the body
};

Dot ParseDot(const std::string& path) {
  static const std::regex kCluster(R"re(^  subgraph "(cluster_\d+)" \{$)re");
  static const std::regex kLabel(R"re(^    label="([^"]*)";$)re");
  static const std::regex kNode(
      R"re(^    "([^"]+)" \[label="[^"]*\\n([^"]*)", fillcolor="([^"]*)"\];$)re");
  static const std::regex kEdge(R"re(^  "([^"]+)" -> "([^"]+)"( \[(.*)\])?;$)re");
  static const std::regex kStyle(R"re(style=(\w+))re");
  static const std::regex kEdgeLabel(R"re(label="([^"]*)")re");
  Dot dot;
  std::ifstream f(path);
  std::string line, cluster;
  std::smatch m;
  while (std::getline(f, line)) {
    if (std::regex_match(line, m, kCluster)) {
      cluster = m[1];
    } else if (line == "  }") {
      cluster.clear();
    } else if (!cluster.empty() && std::regex_match(line, m, kLabel)) {
      dot.device_of_cluster[cluster] = m[1];
    } else if (!cluster.empty() && std::regex_match(line, m, kNode)) {
      if (!dot.nodes.emplace(m[1], Dot::NodeLine{cluster, m[2], m[3]}).second) {
        dot.repeated.push_back(m[1]);
      }
    } else if (cluster.empty() && std::regex_match(line, m, kEdge)) {
      Dot::EdgeLine e{m[1], m[2], "", ""};
      const std::string attrs = m[4];
      std::smatch a;
      if (std::regex_search(attrs, a, kStyle)) e.style = a[1];
      if (std::regex_search(attrs, a, kEdgeLabel)) e.label = a[1];
      dot.edges.push_back(e);
    } else if (cluster.empty() && line.rfind("  ", 0) == 0 && line.find("->") != std::string::npos) {
      ++dot.unparsed;
    }
  }
  return dot;
}

class TactGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("tact_graph_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Exit status of `tact graph <args>`; stdout and stderr kept.
  int Run(const std::string& args) {
    const std::string cmd = std::string(TACT_BINARY) + " graph " + args + " > " +
                            P("out.txt") + " 2> " + P("err.txt");
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  std::string Read(const char* name) {
    std::ifstream f(dir_ / name);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  std::string P(const char* name) { return (dir_ / name).string(); }

  // Runs the command with --json and checks its DOT file against its
  // summary; returns the summary.
  nlohmann::json CheckGraph(const std::string& model_args, int devices) {
    const std::string args = model_args + " --devices " + std::to_string(devices) + " --dot " +
                             P("g.dot") + " --json";
    EXPECT_EQ(Run(args), 0) << args << "\n" << Read("err.txt");
    nlohmann::json j = nlohmann::json::parse(Read("out.txt"), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << Read("out.txt");
    if (j.is_discarded()) return j;

    const int nodes = j["nodes"], pairs = j["send_recv_pairs"], control = j["control_pairs"];
    const int copies = j["duplicated_consts"];
    EXPECT_EQ(j["devices"], devices);
    EXPECT_EQ(j["dot"], P("g.dot"));
    EXPECT_EQ(j["nodes_per_device"].size(), static_cast<size_t>(devices));
    int placed = 0;
    for (const auto& [device, count] : j["nodes_per_device"].items()) placed += int(count);
    EXPECT_EQ(placed, nodes);
    EXPECT_GT(j["makespan_s"].get<double>(), 0);
    EXPECT_EQ(pairs == 0, j["bytes_across_devices"].get<int64_t>() == 0);

    const Dot dot = ParseDot(P("g.dot"));
    EXPECT_TRUE(dot.repeated.empty()) << dot.repeated.front();
    EXPECT_EQ(dot.unparsed, 0);
    // Every node of the placed graph, plus a _Send and a _Recv per pair, a
    // dummy Const per control pair and each copy of a small Const.
    EXPECT_EQ(static_cast<int>(dot.nodes.size()), nodes + 2 * pairs + control + copies);
    // One cluster per device that has nodes, labelled with its name and
    // holding as many nodes as the summary says (beside what the
    // partitioner added).
    std::set<std::string> added;  // by the partitioner: pair ends and control dummies
    for (const Dot::EdgeLine& e : dot.edges) {
      if (e.style == "dashed") added.insert({e.src, e.dst});
    }
    std::map<std::string, int> in_cluster;
    std::map<std::string, std::set<std::string>> colours;  // cluster -> its fill colours
    for (const auto& [name, n] : dot.nodes) {
      if (!added.count(name) && name.find("/_ctrl_") == std::string::npos &&
          name.find("/_dup_") == std::string::npos) {
        ++in_cluster[n.cluster];
      }
      colours[n.cluster].insert(n.colour);
    }
    std::set<std::string> all_colours;
    for (const auto& [cluster, set] : colours) {
      EXPECT_EQ(set.size(), 1u) << cluster;
      all_colours.insert(*set.begin());
      const std::string device = dot.device_of_cluster.at(cluster);
      EXPECT_EQ(in_cluster[cluster], j["nodes_per_device"][device].get<int>()) << device;
    }
    EXPECT_EQ(all_colours.size(), colours.size()) << "two devices share a colour";
    // Every edge joins declared nodes; the dashed ones are exactly the pairs,
    // each from a _Send to a _Recv on another device.
    int dashed = 0;
    for (const Dot::EdgeLine& e : dot.edges) {
      EXPECT_TRUE(dot.nodes.count(e.src)) << e.src;
      EXPECT_TRUE(dot.nodes.count(e.dst)) << e.dst;
      if (e.style != "dashed" || !dot.nodes.count(e.src) || !dot.nodes.count(e.dst)) continue;
      ++dashed;
      EXPECT_EQ(dot.nodes.at(e.src).op, "_Send");
      EXPECT_EQ(dot.nodes.at(e.dst).op, "_Recv");
      EXPECT_NE(dot.nodes.at(e.src).cluster, dot.nodes.at(e.dst).cluster);
      EXPECT_EQ(e.label.rfind("edge_", 0), 0u) << e.label;
    }
    EXPECT_EQ(dashed, pairs);
    int copied = 0;
    for (const auto& [name, n] : dot.nodes) {
      if (name.find("/_dup_") == std::string::npos) continue;
      ++copied;
      EXPECT_EQ(n.op, "Const") << name;
    }
    EXPECT_EQ(copied, copies);

    // GraphViz itself, where it is installed (it is not a dependency).
    if (std::system("command -v dot > /dev/null 2>&1") == 0) {
      const std::string cmd = "dot -Tsvg " + P("g.dot") + " -o " + P("g.svg") + " 2> " +
                              P("dot_err.txt");
      EXPECT_EQ(std::system(cmd.c_str()), 0) << Read("dot_err.txt");
    }
    return j;
  }

  fs::path dir_;
};

TEST_F(TactGraphTest, CnnTrainingOnFourDevicesIsDrawnWithItsSendRecvPairs) {
  nlohmann::json j = CheckGraph("--model cnn --train", 4);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_GT(j["send_recv_pairs"].get<int>(), 0);
  EXPECT_GT(j["duplicated_consts"].get<int>(), 0);  // shapes and scalars the devices share
  EXPECT_TRUE(j["train"].get<bool>());
}

// Spread over devices, the mlp's step would simulate only about 5% faster:
// less than a second partition costs in run time (placer.h, step 4).
TEST_F(TactGraphTest, MlpTrainingStaysOnOneOfFourDevices) {
  nlohmann::json j = CheckGraph("--model mlp --train", 4);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["send_recv_pairs"], 0);
  EXPECT_EQ(j["bytes_across_devices"], 0);
}

TEST_F(TactGraphTest, CnnEvaluationOnThreeDevices) {
  nlohmann::json train = CheckGraph("--model cnn --train", 3);
  nlohmann::json eval = CheckGraph("--model cnn", 3);
  ASSERT_FALSE(train.is_discarded() || eval.is_discarded());
  // Evaluation prunes the gradients and the optimizer away.
  EXPECT_LT(eval["nodes"].get<int>() * 2, train["nodes"].get<int>());
}

TEST_F(TactGraphTest, OneDeviceNeedsNoPairs) {
  nlohmann::json j = CheckGraph("--model mlp --train", 1);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["send_recv_pairs"], 0);
  EXPECT_EQ(j["bytes_across_devices"], 0);
}

TEST_F(TactGraphTest, HumanSummaryNamesEveryDevice) {
  ASSERT_EQ(Run("--model mlp --devices 2"), 0) << Read("err.txt");
  const std::string out = Read("out.txt");
  EXPECT_NE(out.find("/job:localhost/replica:0/task:0/device:CPU:1: "), std::string::npos) << out;
  EXPECT_NE(out.find("send/recv pairs: "), std::string::npos) << out;
  EXPECT_NE(out.find("simulated makespan: "), std::string::npos) << out;
}

TEST_F(TactGraphTest, BadInputExitsOneWithAMessage) {
  struct Case {
    std::string args;
    const char* message;
  };
  const Case cases[] = {
      {"--model resnet --devices 2", "unknown --model 'resnet'"},
      {"--model mlp --devices 0", "--devices must be from 1 to 4096, not 0"},
      {"--model mlp --devices -3", "--devices must be from 1 to 4096, not -3"},
      {"--model mlp --devices 100000", "--devices must be from 1 to 4096, not 100000"},  // was bad_alloc
      {"--model mlp --devices 2 --dot " + P("no/such/dir/g.dot"), "cannot write --dot file"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Run(c.args), 1) << c.args;
    EXPECT_NE(Read("err.txt").find(c.message), std::string::npos) << Read("err.txt");
  }
}

}  // namespace
}  // namespace tact
