// `tact export` as a user runs it: `tact train` with checkpoints, the
// model exported, and the exported file run by `tact run` on the test
// images. Its predictions are checked against the trainer's own test
// accuracy and, for the mlp, against NumPy's forward pass over the
// checkpoint's values as h5py reads them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "actors/session.h"
#include "apps/train/train_options.h"
#include "graph/graph_def_codec.h"
#include "graph/npy.h"
#include "tests/apps/run_command.h"

namespace tact::apps {
namespace {

namespace fs = std::filesystem;
using Result = test::CommandResult;

constexpr int kTestImages = 1000;

// The test images as NumPy files (raw pixels, the trainer's floats, the
// labels), and the reference: the mlp's forward pass in float32 from the
// HDF5 checkpoint, compared with what `tact run` fetched.
constexpr const char* kScript = R"(import sys, gzip, glob, numpy as np
mode, d = sys.argv[1], sys.argv[2]
data = "/usr/share/datasets/fashion-mnist/"
n = int(sys.argv[3])
if mode == "data":
    x = np.frombuffer(gzip.open(data + "t10k-images-idx3-ubyte.gz").read(), np.uint8, offset=16)
    x = np.ascontiguousarray(x.reshape(-1, 28, 28)[:n])
    np.save(d + "/pixels.npy", x)
    np.save(d + "/images.npy", (x.astype(np.float32) * np.float32(1.0 / 255.0)).reshape(-1, 28, 28, 1))
    sys.exit(0)
y = np.frombuffer(gzip.open(data + "t10k-labels-idx1-ubyte.gz").read(), np.uint8, offset=8)[:n]
classes = np.load(d + "/out/classes_0.npy")
print("accuracy", float((classes == y).mean()))
if mode == "mlp":
    import h5py
    f = h5py.File(glob.glob(d + "/ck/ckpt-" + sys.argv[4] + ".shard-0-of-1.h5")[0], "r")
    v = lambda name: f[name + "/:value"][()]
    h = np.load(d + "/pixels.npy").astype(np.float32).reshape(n, 784) * np.float32(1.0 / 255.0)
    for i, layer in enumerate(["dense", "dense_1", "dense_2"]):
        h = h @ v("mlp/" + layer + "/kernel") + v("mlp/" + layer + "/bias")
        if i < 2: h = np.maximum(h, 0)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    got = np.load(d + "/out/probabilities_0.npy")
    print("max_abs_diff", float(np.abs(got - p).max()))
    print("class_mismatches", int((classes != p.argmax(axis=1)).sum()))
)";

class TactExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
      GTEST_SKIP() << "no data set at " << kDefaultDataDir;
    }
    dir_ = fs::path(::testing::TempDir()) / ("tact_export_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ + "/check.py") << kScript;
    Result data = Python("data");
    ASSERT_EQ(data.status, 0) << data.out;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  Result Tact(const std::string& args) {
    return test::RunCommand(std::string(TACT_BINARY) + " " + args + " 2>&1");
  }
  // The check script in `mode` (data, mlp, cnn or cnn_bn); `step`: the mlp's checkpoint.
  Result Python(const std::string& mode, const std::string& step = "") {
    return test::RunCommand("/usr/bin/python3 " + dir_ + "/check.py " + mode + " " + dir_ + " " +
                            std::to_string(kTestImages) + " " + step + " 2>&1");
  }

  // Trains with checkpoints into dir_/ck and returns the JSON line's test accuracy.
  double Train(const std::string& args) {
    Result r = Tact("train " + args + " --checkpoint-dir " + dir_ + "/ck --test-limit " +
                    std::to_string(kTestImages) + " --json");
    EXPECT_EQ(r.status, 0) << r.out;
    std::string last = r.out.substr(0, r.out.size() - 1);
    const nlohmann::json j = nlohmann::json::parse(last.substr(last.rfind('\n') + 1), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j.is_discarded() ? -1 : j["test_accuracy"].get<double>();
  }

  // `tact run` of the exported file on the test images, fed as `feed`.
  void Infer(const std::string& feed) {
    Result r = Tact("run --graph " + dir_ + "/model.capnp --feed " + feed + ":0=" + dir_ + "/" + feed +
                    ".npy --fetch classes:0 --fetch probabilities:0 --out " + dir_ + "/out");
    ASSERT_EQ(r.status, 0) << r.out;
  }

  // A value printed by the check script as "key value".
  static double Printed(const std::string& out, const std::string& key) {
    const size_t at = out.find(key + " ");
    EXPECT_NE(at, std::string::npos) << key << " in " << out;
    return at == std::string::npos ? -1 : std::strtod(out.c_str() + at + key.size() + 1, nullptr);
  }

  std::string dir_;
};

TEST_F(TactExportTest, AnExportedMlpPredictsAsTheTrainerAndAsNumPyOverItsCheckpoint) {
  const double trained = Train("--model mlp --max-steps 200");
  Result e = Tact("export --model mlp --checkpoint-dir " + dir_ + "/ck --out " + dir_ + "/model.capnp --json");
  ASSERT_EQ(e.status, 0) << e.out;
  const nlohmann::json j = nlohmann::json::parse(e.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << e.out;
  EXPECT_EQ(j["step"], 200);
  EXPECT_EQ(j["variables"], 6);  // three kernels and three biases; no slot, no global step
  EXPECT_EQ(j["parameters"], 235146);

  Infer("pixels");
  Result check = Python("mlp", "200");
  ASSERT_EQ(check.status, 0) << check.out;
  EXPECT_NEAR(Printed(check.out, "accuracy"), trained, 1.0 / kTestImages) << check.out;
  EXPECT_GT(trained, 0.7);
  EXPECT_LT(Printed(check.out, "max_abs_diff"), 1e-5) << check.out;
  EXPECT_LE(Printed(check.out, "class_mismatches"), 1) << check.out;

  // The float images give the same probabilities as the pixels, to the bit.
  fs::rename(dir_ + "/out/probabilities_0.npy", dir_ + "/by_pixels.npy");
  Infer("images");
  auto by_pixels = ReadNpyFile(dir_ + "/by_pixels.npy");
  auto by_images = ReadNpyFile(dir_ + "/out/probabilities_0.npy");
  ASSERT_TRUE(by_pixels.ok() && by_images.ok());
  ASSERT_EQ(by_pixels->NumElements(), by_images->NumElements());
  int64_t differ = 0;
  for (int64_t i = 0; i < by_pixels->NumElements(); ++i) {
    differ += by_pixels->data<float>()[i] != by_images->data<float>()[i];
  }
  EXPECT_EQ(differ, 0);

  // A program of its own serves the file as docs/checkpoints.md shows:
  // parsed, extended into a Session, and run batch after batch.
  std::ifstream in(dir_ + "/model.capnp", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  StatusOr<GraphDef> model = ParseGraphDef(bytes);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*model).ok());
  auto pixels = ReadNpyFile(dir_ + "/pixels.npy");
  auto classes = ReadNpyFile(dir_ + "/out/classes_0.npy");
  ASSERT_TRUE(pixels.ok() && classes.ok());
  constexpr int64_t kBatch = 100;
  for (int64_t first = 0; first < kTestImages; first += kBatch) {
    std::vector<uint8_t> batch(pixels->data<uint8_t>() + first * 784,
                               pixels->data<uint8_t>() + (first + kBatch) * 784);
    auto out = (*session)->Run(
        {{"pixels:0", Tensor::FromVector<uint8_t>(batch, TensorShape({kBatch, 28, 28}))}}, {"classes:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int64_t i = 0; i < kBatch; ++i) {
      EXPECT_EQ((*out)[0].data<int32_t>()[i], classes->data<int32_t>()[first + i]) << first + i;
    }
  }
}

// A cnn trained on a cluster with two ps tasks (a checkpoint of two
// shards) and momentum, exported from the checkpoint of a step named, in
// the text form.
TEST_F(TactExportTest, ACnnFromAClustersShardedCheckpointAtAStepItNames) {
  const double trained = Train("--model cnn --max-steps 40 --checkpoint-every-steps 20 --optimizer momentum "
                               "--ps 2 --workers 2");
  Result e = Tact("export --model cnn --checkpoint-dir " + dir_ + "/ck --step 40 --text --out " + dir_ +
                  "/model.capnp");
  ASSERT_EQ(e.status, 0) << e.out;
  EXPECT_NE(e.out.find("checkpoint 40"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("3274634 parameters"), std::string::npos) << e.out;
  Infer("pixels");
  Result check = Python("cnn");
  ASSERT_EQ(check.status, 0) << check.out;
  EXPECT_NEAR(Printed(check.out, "accuracy"), trained, 2.0 / kTestImages) << check.out;
  EXPECT_GT(trained, 0.3);  // 40 steps: past chance (0.1), no further
}

// cnn_bn, exported: its batch normalization in inference mode alone (no
// Switch, no assignment to freeze), normalising by the checkpoint's running
// averages as the trainer's evaluation does: the same accuracy on the same
// images.
TEST_F(TactExportTest, ACnnWithBatchNormalizationNormalisesByItsRunningAverages) {
  const double trained = Train("--model cnn_bn --max-steps 40 --checkpoint-every-steps 20");
  Result e = Tact("export --model cnn_bn --checkpoint-dir " + dir_ + "/ck --out " + dir_ + "/model.capnp");
  ASSERT_EQ(e.status, 0) << e.out;
  Infer("pixels");
  Result check = Python("cnn_bn");
  ASSERT_EQ(check.status, 0) << check.out;
  EXPECT_NEAR(Printed(check.out, "accuracy"), trained, 2.0 / kTestImages) << check.out;
  EXPECT_GT(trained, 0.15);  // past chance; 40 steps leave the averages far from the batches'
}

TEST_F(TactExportTest, AMissingOrForeignCheckpointAndAnUnwritableFileAreNamed) {
  Result none = Tact("export --model mlp --checkpoint-dir " + dir_ + "/nothing --out " + dir_ + "/m.capnp");
  EXPECT_EQ(none.status, 1) << none.out;
  EXPECT_NE(none.out.find(dir_ + "/nothing"), std::string::npos) << none.out;

  Train("--model mlp --max-steps 5");
  Result foreign = Tact("export --model cnn --checkpoint-dir " + dir_ + "/ck --out " + dir_ + "/m.capnp");
  EXPECT_EQ(foreign.status, 1) << foreign.out;
  EXPECT_NE(foreign.out.find("cnn/"), std::string::npos) << foreign.out;  // a variable it lacks

  Result step =
      Tact("export --model mlp --checkpoint-dir " + dir_ + "/ck --step 3 --out " + dir_ + "/m.capnp");
  EXPECT_EQ(step.status, 1) << step.out;
  EXPECT_NE(step.out.find("step 3"), std::string::npos) << step.out;

  Result file = Tact("export --model mlp --checkpoint-dir " + dir_ + "/ck --out " + dir_ + "/no/such/m.capnp");
  EXPECT_EQ(file.status, 1) << file.out;
  EXPECT_NE(file.out.find("no/such/m.capnp"), std::string::npos) << file.out;
  EXPECT_FALSE(fs::exists(dir_ + "/m.capnp"));
}

}  // namespace
}  // namespace tact::apps
