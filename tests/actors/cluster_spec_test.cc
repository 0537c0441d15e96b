// TF_CONFIG-style cluster specs: what parses, and errors that name the
// origin and the field at fault.
#include "actors/cluster_spec.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace tact {
namespace {

TEST(ClusterSpecTest, ParsesJobsTasksAndThisTask) {
  auto spec = ClusterSpec::Parse(
      R"({"cluster": {"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223", "10.0.0.2:2224"]},
          "task": {"type": "worker", "index": 1}})",
      "test");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->Tasks(), (std::vector<std::string>{"/job:ps/replica:0/task:0",
                                                     "/job:worker/replica:0/task:0",
                                                     "/job:worker/replica:0/task:1"}));
  EXPECT_EQ(spec->task_type, "worker");
  EXPECT_EQ(spec->task_index, 1);
  auto a = spec->Address("/job:worker/replica:0/task:1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "10.0.0.2");
  EXPECT_EQ(a->port, 2224);
  // What ToJson writes parses back to the same cluster.
  auto again = ClusterSpec::Parse(spec->ToJson(), "round trip");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->Tasks(), spec->Tasks());
  EXPECT_EQ(again->Address("/job:ps/replica:0/task:0")->port, 2222);
  EXPECT_EQ(again->task_index, 1);
}

// IPv6 addresses in brackets, as TensorFlow's cluster specs write them:
// the host is kept without them (what the sockets take), and they come
// back wherever the address is written out.
TEST(ClusterSpecTest, IPv6AddressesGoInBrackets) {
  auto spec =
      ClusterSpec::Parse(R"({"cluster": {"ps": ["[::1]:2222"], "worker": ["[fd00::2]:2223"]}})", "test");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto a = spec->Address("/job:worker/replica:0/task:0");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "fd00::2");
  EXPECT_EQ(a->port, 2223);
  EXPECT_EQ(a->ToString(), "[fd00::2]:2223");
  auto again = ClusterSpec::Parse(spec->ToJson(), "round trip");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->Address("/job:ps/replica:0/task:0")->host, "::1");
  for (const char* bad : {R"({"cluster": {"ps": ["::1:2222"]}})", R"({"cluster": {"ps": ["[::1:2222"]}})"}) {
    auto refused = ClusterSpec::Parse(bad, "f.json");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find("an IPv6 address goes in brackets, as in '[::1]:2222'"),
              std::string::npos)
        << refused.status().ToString();
  }
}

TEST(ClusterSpecTest, ErrorsNameTheOriginAndTheField) {
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {"{not json", "f.json: not valid JSON"},
      {R"({"task": {}})", "no \"cluster\""},
      {R"({"cluster": {}})", "names no job"},
      {R"({"cluster": {"worker": "127.0.0.1:1"}})", "cluster.worker is not a non-empty list"},
      {R"({"cluster": {"worker": ["127.0.0.1"]}})", "cluster.worker[0]: '127.0.0.1' is not host:port"},
      {R"({"cluster": {"worker": ["h:0"]}})", "cluster.worker[0]: 'h:0' has no port"},
      {R"({"cluster": {"worker": ["h:99999"]}})", "has no port in 1..65535"},
      {R"({"cluster": {"worker": [7]}})", "cluster.worker[0] is not a string"},
      {R"({"cluster": {"a": ["h:1"], "b": ["h:1"]}})", "cluster.b[0]: address h:1 is given to two tasks"},
      {R"({"cluster": {"w/x": ["h:1"]}})", "job name 'w/x'"},
      {R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 3}})",
       "\"task\" worker:3 is not a task of the cluster"},
      {R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker"}})", "\"task\" must be"},
  };
  for (const Case& c : cases) {
    auto spec = ClusterSpec::Parse(c.json, "f.json");
    ASSERT_FALSE(spec.ok()) << c.json;
    EXPECT_EQ(spec.status().code(), Code::kInvalidArgument) << c.json;
    EXPECT_NE(spec.status().message().find(c.expect), std::string::npos)
        << c.json << " gave: " << spec.status().message();
  }
}

TEST(ClusterSpecTest, UnknownTaskAndMissingFileAndEnvironment) {
  auto spec = ClusterSpec::Parse(R"({"cluster": {"worker": ["h:1"]}})", "t");
  ASSERT_TRUE(spec.ok());
  auto a = spec->Address("/job:ps/replica:0/task:0");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("/job:worker/replica:0/task:0"), std::string::npos)
      << "the error lists the cluster's tasks: " << a.status().message();
  auto missing = ClusterSpec::FromFile("/nonexistent/cluster.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/cluster.json"), std::string::npos);
  setenv("TF_CONFIG", R"({"cluster": {"chief": ["127.0.0.1:5"]}, "task": {"type": "chief", "index": 0}})", 1);
  auto env = ClusterSpec::FromEnvironment();
  unsetenv("TF_CONFIG");
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(env->task_type, "chief");
  EXPECT_EQ(ClusterSpec::FromEnvironment().status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace tact
