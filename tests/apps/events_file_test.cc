// An events file of summaries, made by a Session and EventsWriter, read back
// with protobuf's own parser (scripts/read_events.py, python3-protobuf):
// every field where TensorBoard looks for it, and the histogram's buckets
// as NumPy computes TensorFlow's from the same numbers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "actors/session.h"
#include "graph/ops/all_ops.h"
#include "kernels/events_writer.h"
#include "kernels/summary_proto.h"
#include "tests/apps/read_events.h"
#include "tests/apps/run_command.h"

namespace tact {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<float> kWeights = {-3.5f, -0.001f, 0.0f, 0.0f, 1e-13f, 0.25f, 2.0f, 2.0f, 1e6f};

// TensorFlow's default buckets of kWeights, from NumPy: limits 1e-12 *
// 1.1^k below 1e20 on each side of 0 and +-DBL_MAX at the ends, each number
// in the first bucket whose limit is above it, runs of empty buckets as
// one at the run's last limit.
json NumpyBuckets() {
  std::string values;
  for (float w : kWeights) values += std::to_string(static_cast<double>(w)) + ",";
  std::ostringstream script;
  script << "import json, sys, numpy as np\n"
         << "pos = []\nv = 1e-12\nwhile v < 1e20:\n    pos.append(v)\n    v *= 1.1\n"
         << "pos.append(sys.float_info.max)\n"
         << "limits = np.array([-x for x in reversed(pos)] + [0.0] + pos)\n"
         << "x = np.array([" << values << "], dtype=np.float32).astype(np.float64)\n"
         << "idx = np.minimum(np.searchsorted(limits, x, side='right'), len(limits) - 1)\n"
         << "counts = np.bincount(idx, minlength=len(limits)).astype(float)\n"
         << "keep = [i for i in range(len(limits))\n"
         << "        if counts[i] > 0 or i + 1 == len(limits) or counts[i + 1] > 0]\n"
         << "print(json.dumps({'bucket_limit': [float(limits[i]) for i in keep],\n"
         << "                  'bucket': [float(counts[i]) for i in keep],\n"
         << "                  'sum': float(x.sum()), 'sum_squares': float((x * x).sum())}))\n";
  const std::string path = ::testing::TempDir() + "/buckets_" + std::to_string(::getpid()) + ".py";
  std::ofstream(path) << script.str();
  test::CommandResult r = test::RunCommand("/usr/bin/python3 " + path + " 2>&1");
  fs::remove(path);
  EXPECT_EQ(r.status, 0) << r.out;
  return json::parse(r.out);
}

class EventsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::HaveProtobufForPython()) {
      GTEST_SKIP() << "python3-protobuf is not installed (scripts/setup.sh installs it)";
    }
    dir_ = fs::path(::testing::TempDir()) / ("tact_events_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(EventsFileTest, SummariesOfASessionReadBackWithProtobufsParser) {
  Scope s = Scope::NewRootScope();
  Output tags = Const(s, Tensor::FromVector<std::string>({"loss", "learning_rate"}, {2}));
  Output scalars = ScalarSummary(s, tags, Placeholder(s.WithOpName("scalars"), DT_FLOAT));
  Output weights = Placeholder(s.WithOpName("weights"), DT_FLOAT);
  MergeSummary(s.WithOpName("all"), {scalars, HistogramSummary(s, "dense/kernel", weights)});
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  auto out = (*session)->Run({{"scalars:0", Tensor::FromVector<float>({0.75f, 0.001f}, {2})},
                              {"weights:0", Tensor::FromVector<float>(kWeights, {3, 3})}},
                             {"all:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();

  auto writer = EventsWriter::Create(dir_.string());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->WriteSummary(7, (*out)[0].scalar<std::string>()).ok());
  ASSERT_TRUE((*writer)->WriteSummary(8, summary::Scalar("loss", 0.5f)).ok());
  EXPECT_EQ(fs::path((*writer)->path()).parent_path(), dir_);
  EXPECT_EQ(fs::path((*writer)->path()).filename().string().rfind("events.out.tfevents.", 0), 0u);

  // Each write is flushed: the file reads whole while the writer lives.
  const std::vector<json> events = test::ReadEvents({(*writer)->path()});
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["file_version"], "brain.Event:2");
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_NEAR(events[0]["wall_time"].get<double>(), now, 60);
  EXPECT_EQ(events[1]["step"], "7");  // protobuf's JSON writes an int64 as a string
  EXPECT_EQ(events[2]["step"], "8");
  const json& values = events[1]["summary"]["value"];
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0]["tag"], "loss");
  EXPECT_EQ(values[0]["simple_value"].get<double>(), 0.75);
  EXPECT_EQ(values[1]["tag"], "learning_rate");
  EXPECT_EQ(values[1]["simple_value"].get<float>(), 0.001f);
  EXPECT_EQ(values[2]["tag"], "dense/kernel");
  const json& histo = values[2]["histo"];
  const json want = NumpyBuckets();
  EXPECT_EQ(histo["min"].get<double>(), -3.5);
  EXPECT_EQ(histo["max"].get<double>(), 1e6);
  EXPECT_EQ(histo["num"].get<double>(), 9.0);
  EXPECT_DOUBLE_EQ(histo["sum"].get<double>(), want["sum"].get<double>());
  EXPECT_DOUBLE_EQ(histo["sum_squares"].get<double>(), want["sum_squares"].get<double>());
  EXPECT_EQ(histo["bucket_limit"], want["bucket_limit"]);
  EXPECT_EQ(histo["bucket"], want["bucket"]);
  EXPECT_EQ(events[2]["summary"]["value"][0]["simple_value"].get<double>(), 0.5);

  // A second writer (a resumed run) writes a file of its own beside the first.
  auto second = EventsWriter::Create(dir_.string());
  ASSERT_TRUE(second.ok());
  EXPECT_NE((*second)->path(), (*writer)->path());
  EXPECT_EQ(test::ReadEvents({(*second)->path()}).size(), 1u);
}

TEST_F(EventsFileTest, ADirectoryThatCannotBeMadeIsNamed) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  auto w = EventsWriter::Create((dir_ / "file" / "logs").string());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("summary directory '" + (dir_ / "file" / "logs").string() + "'"),
            std::string::npos)
      << w.status().ToString();
}

}  // namespace
}  // namespace tact
