// `tact train` as a user runs it: its JSON line, and exit status 1 with a
// message for bad input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actors/socket_io.h"
#include "apps/cluster/local_cluster.h"
#include "apps/train/train_graph.h"
#include "apps/train/trainer.h"
#include "tests/apps/run_command.h"

namespace tact::apps {
namespace {

using Result = test::CommandResult;  // stdout and stderr in `out`

Result RunTactTrain(const std::string& args) {
  return test::RunCommand(std::string(TACT_BINARY) + " train " + args + " 2>&1");
}

TEST(TactTrainTest, PrintsOneJsonLineLast) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  Result r = RunTactTrain("--model mlp --max-steps 20 --train-limit 2000 --test-limit 500 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_FALSE(r.out.empty());
  std::string last = r.out.substr(0, r.out.size() - 1);
  last = last.substr(last.rfind('\n') + 1);
  const nlohmann::json j = nlohmann::json::parse(last, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << last;
  for (const char* key : {"model", "epochs", "steps", "batch", "test_accuracy", "train_loss",
                          "images_per_sec", "parameters", "variables_fingerprint"}) {
    EXPECT_TRUE(j.contains(key)) << key << " missing from " << last;
  }
  EXPECT_EQ(j["model"], "mlp");
  EXPECT_EQ(j["steps"], 20);
  EXPECT_EQ(j["parameters"], 235146);
  EXPECT_GT(j["images_per_sec"].get<double>(), 0);
}

// Without --lr each optimizer trains at its own default rate, as Keras's
// do (sgd 0.01: at adam's 0.001 it reached 0.61 test accuracy in an epoch,
// against 0.77): the run ends with the variables of that rate given
// explicitly, and not with those of 0.001.
TEST(TactTrainTest, WithoutLrEachOptimizerTrainsAtItsOwnDefault) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  TrainOptions o;
  o.model.optimizer = "sgd";
  EXPECT_EQ(LearningRate(o.model), 0.01);
  for (const auto& [optimizer, rate] : std::map<std::string, double>{
           {"adam", 0.001}, {"rmsprop", 0.001}, {"momentum", 0.01}, {"adagrad", 0.01}}) {
    ModelOptions m;
    m.optimizer = optimizer;
    EXPECT_EQ(LearningRate(m), rate) << optimizer;
    m.learning_rate = 0.5;
    EXPECT_EQ(LearningRate(m), 0.5) << optimizer;
  }
  Result r =
      RunTactTrain("--model mlp --optimizer sgd --max-steps 12 --train-limit 2000 --test-limit 100 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out.substr(r.out.rfind('{')), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["learning_rate"], 0.01) << r.out;
  o.data.max_steps = 12;
  o.data.train_limit = 2000;
  o.data.test_limit = 100;
  for (double rate : {0.01, 0.001}) {
    o.model.learning_rate = rate;
    StatusOr<TrainResult> in_process = Train(o);
    ASSERT_TRUE(in_process.ok()) << in_process.status().ToString();
    EXPECT_EQ(j["variables_fingerprint"] == in_process->variables_fingerprint, rate == 0.01) << rate;
  }
}

// The piecewise-constant rate's flags reach the trainer as they read: the
// run ends with the variables of the same options given in-process.
TEST(TactTrainTest, APiecewiseConstantRateFromTheFlags) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  Result r = RunTactTrain(
      "--model mlp --max-steps 12 --train-limit 2000 --test-limit 100 --lr-boundaries 4,8 "
      "--lr-values 0.01,0.005,0.001 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out.substr(r.out.rfind('{')), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["lr_boundaries"], nlohmann::json({4, 8}));
  EXPECT_EQ(j["lr_values"], nlohmann::json({0.01, 0.005, 0.001}));
  EXPECT_TRUE(j["learning_rate"].is_null()) << r.out;
  TrainOptions o;
  o.data.max_steps = 12;
  o.data.train_limit = 2000;
  o.data.test_limit = 100;
  o.model.lr_boundaries = {4, 8};
  o.model.lr_values = {0.01, 0.005, 0.001};
  StatusOr<TrainResult> in_process = Train(o);
  ASSERT_TRUE(in_process.ok()) << in_process.status().ToString();
  EXPECT_EQ(j["variables_fingerprint"], in_process->variables_fingerprint);
}

TEST(TactTrainTest, TwoLearningRatesAreRefused) {
  Result r = RunTactTrain("--lr 0.1 --lr-boundaries 5 --lr-values 0.1,0.01 --max-steps 1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("tact train: --lr and --lr-values both give the learning rate: give one"),
            std::string::npos)
      << r.out;
}

TEST(TactTrainTest, ADivergedRunPrintsNanAndTheStep) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  Result r = RunTactTrain("--model mlp --lr 1e30 --max-steps 5 --train-limit 1000 --test-limit 100 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("tact train: the loss is NaN at step "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; train loss nan (not finite from step "), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out.substr(r.out.rfind('{')), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_TRUE(j["loss_not_finite_at_step"].is_number_integer()) << r.out;
  EXPECT_TRUE(j["train_loss"].is_null()) << r.out;
}

TEST(TactTrainTest, BadDeviceCountsExitOneNamingThePart) {
  for (const char* bad : {"cpu:x", "tpu:1", "cpu:1,cpu:2"}) {
    Result r = RunTactTrain(std::string("--max-steps 1 --devices ") + bad);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("--devices"), std::string::npos) << r.out;
  }
}

// On a machine without a GPU (or a build without CUDA) asking for one fails
// at once with a message that says so, before any data is read.
TEST(TactTrainTest, AGpuThatIsNotThereExitsOneSayingSo) {
  Result r = RunTactTrain("--max-steps 1 --devices cpu:1,gpu:8");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("GPU"), std::string::npos) << r.out;
}

TEST(TactTrainTest, AMissingDataDirectoryExitsOneNamingIt) {
  Result r = RunTactTrain("--data /nonexistent/fmnist");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/fmnist"), std::string::npos) << r.out;
}

// --seed and --chaos are unsigned: "-3" used to wrap to 2^64 - 3 and train
// on with that seed.
TEST(TactTrainTest, ANegativeSeedIsRefused) {
  for (const char* flag : {"--seed", "--chaos"}) {
    Result r = RunTactTrain(std::string("--max-steps 1 ") + flag + "=-3");
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.out.find(flag), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-3"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("images/s"), std::string::npos) << "it trained: " << r.out;
  }
}

TEST(TactTrainTest, AnUnknownModelIsRefused) {
  Result r = RunTactTrain("--model resnet");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("resnet"), std::string::npos) << r.out;
}

// A checkpoint directory on a disk too small for the default (Adam)
// checkpoint, on one process and on a cluster whose ps writes it: exit 1
// with the error, never a crash (HDF5 1.10 died at exit after a failed
// close; checkpoint/disk_space.h), and no file left. The small disk is a
// tmpfs of 1 MiB in a user and mount namespace of the command's own.
TEST(TactTrainTest, ACheckpointDirectoryOnAFullDiskExitsOneSayingSo) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_full_disk_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  for (const std::string cluster : {"", "--ps 1 --workers 2"}) {
    const std::string script =
        "mount -t tmpfs -o size=1m tact_small " + dir + " || exit 97; " + TACT_BINARY +
        " train --model mlp --max-steps 30 --train-limit 1000 --test-limit 100 " + cluster +
        " --checkpoint-dir " + dir + "/ck --checkpoint-every-steps 20 2>&1; echo exit=$?;" + " ls -A " + dir +
        "/ck";
    Result r = test::RunCommand("unshare --user --map-root-user --mount sh -c '" + script + "' 2>&1");
    if (r.status == 97 || r.out.find("unshare:") != std::string::npos) {
      std::filesystem::remove_all(dir);
      GTEST_SKIP() << "cannot mount a small tmpfs in a user namespace here: " << r.out;
    }
    EXPECT_NE(r.out.find("exit=1\n"), std::string::npos) << cluster << ": " << r.out;
    EXPECT_NE(r.out.find("ResourceExhausted"), std::string::npos) << cluster << ": " << r.out;
    EXPECT_NE(r.out.find("not enough disk space for checkpoint file '" + dir + "/ck/"), std::string::npos)
        << cluster << ": " << r.out;
    EXPECT_EQ(r.out.substr(r.out.find("exit=")), "exit=1\n") << cluster << ": files left behind: " << r.out;
  }
  std::filesystem::remove_all(dir);
}

// Under a file size limit (`ulimit -f`), which no free-space check sees,
// the write fails inside HDF5: exit 1 with the error, on one process and on
// a cluster whose ps writes the checkpoint. Through HDF5's own file driver
// the command printed the error and then died of SIGSEGV at exit
// (checkpoint/guarded_driver.h).
TEST(TactTrainTest, ACheckpointPastTheFileSizeLimitExitsOneSayingSo) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_fsize_" + std::to_string(getpid());
  for (const std::string cluster : {"", "--ps 1 --workers 2"}) {
    std::filesystem::create_directories(dir);
    // The shell's `trap` makes the write fail with EFBIG rather than end the
    // process with SIGXFSZ; the limit is in KiB, and the Adam checkpoint
    // takes 2.8 MB.
    Result r = test::RunCommand("trap '' XFSZ; ulimit -f 1024; " + std::string(TACT_BINARY) +
                                " train --model mlp --max-steps 30 --train-limit 1000 --test-limit 100 " +
                                cluster + " --checkpoint-dir " + dir + " --checkpoint-every-steps 20 2>&1; " +
                                "echo exit=$?; ls -A " + dir);
    EXPECT_NE(r.out.find("ResourceExhausted"), std::string::npos) << cluster << ": " << r.out;
    EXPECT_NE(r.out.find("cannot write checkpoint file '" + dir + "/"), std::string::npos) << cluster << ": "
                                                                                          << r.out;
    EXPECT_NE(r.out.find("File too large"), std::string::npos) << cluster << ": " << r.out;
    EXPECT_EQ(r.out.substr(r.out.find("exit=")), "exit=1\n")
        << cluster << ": not 1, or files left: " << r.out;
    std::filesystem::remove_all(dir);
  }
}

// A run that resumes from a checkpoint directory it cannot write (mounted
// read-only, in a user and mount namespace of the command's own) stops
// with the save's own error. Before, the removal of a manifest that was not
// there (EROFS, not ENOENT) was reported instead: "cannot remove ...".
TEST(TactTrainTest, AReadOnlyCheckpointDirectoryStopsWithTheSavesError) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_read_only_" + std::to_string(getpid());
  const std::string train = std::string(TACT_BINARY) +
                            " train --model mlp --train-limit 2000 --test-limit 100 "
                            "--checkpoint-every-steps 10 --checkpoint-dir " + dir;
  Result first = test::RunCommand(train + " --max-steps 20 2>&1");
  ASSERT_EQ(first.status, 0) << first.out;
  const std::string script = "mount --bind " + dir + " " + dir + " && mount -o remount,bind,ro " + dir +
                             " || exit 97; " + train + " --epochs 2 2>&1; echo exit=$?";
  Result r = test::RunCommand("unshare --user --map-root-user --mount sh -c '" + script + "' 2>&1");
  std::filesystem::remove_all(dir);
  if (r.status == 97 || r.out.find("unshare:") != std::string::npos) {
    GTEST_SKIP() << "cannot mount read-only in a user namespace here: " << r.out;
  }
  EXPECT_NE(r.out.find("cannot create checkpoint file '" + dir + "/.ckpt-30."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Read-only file system"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cannot remove"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit=1\n"), std::string::npos) << r.out;
}

// The variables' fingerprints in what `tact train --json` runs printed, in
// order.
std::vector<std::string> Fingerprints(const std::string& out) {
  std::vector<std::string> found;
  const std::string key = "\"variables_fingerprint\":\"";
  for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + 1)) {
    found.push_back(out.substr(at + key.size(), 16));
  }
  return found;
}

// `--one-step-at-a-time` sends no step ahead: the same variables as the
// default, on a local cluster too.
TEST(TactTrainTest, OneStepAtATimeTrainsTheSameVariables) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  for (const std::string where : {"", " --ps 1 --workers 2"}) {
    const std::string args = "--model mlp --epochs 2 --train-limit 2000 --test-limit 200 --json" + where;
    Result ahead = RunTactTrain(args);
    Result single = RunTactTrain(args + " --one-step-at-a-time");
    ASSERT_EQ(ahead.status, 0) << ahead.out;
    ASSERT_EQ(single.status, 0) << single.out;
    ASSERT_EQ(Fingerprints(ahead.out).size(), 1u) << ahead.out;
    EXPECT_EQ(Fingerprints(ahead.out), Fingerprints(single.out)) << args;
    // 40 steps: all but the first of each of the two epochs.
    EXPECT_NE(ahead.out.find("\"steps_sent_ahead\":38"), std::string::npos) << ahead.out;
    EXPECT_NE(single.out.find("\"steps_sent_ahead\":0"), std::string::npos) << single.out;
  }
}

// Three worker processes at `hosts` (each "127.0.0.1" or "[::1]", say),
// the ps's command line passed through `wrap_ps` when given, and `tact
// train --cluster` on them, once for each of `train_args`, all at once;
// returns what each train printed followed by its exit status as "exit=N",
// in the order of `train_args`, then the tasks' logs.
std::string TrainOnCluster(const std::vector<std::string>& hosts, const std::string& dir,
                           const std::vector<std::string>& train_args,
                           const std::function<std::string(const std::string&)>& wrap_ps = nullptr) {
  std::string addresses[3];
  for (int i = 0; i < 3; ++i) {
    StatusOr<uint16_t> port = FreeLoopbackPort();
    if (!port.ok()) return port.status().ToString();
    addresses[i] = "\"" + hosts[i] + ":" + std::to_string(*port) + "\"";
  }
  const std::string cluster = dir + "/cluster.json";
  std::ofstream(cluster) << R"({"cluster": {"ps": [)" << addresses[0] << R"(], "worker": [)" << addresses[1]
                         << ", " << addresses[2] << "]}}\n";
  const std::string tact = TACT_BINARY;
  const std::string worker = tact + " worker --cluster " + cluster + " --job ";
  const std::string ps = worker + "ps --task 0";
  const std::string script =
      "export TACT_CLUSTER_SECRET=0123456789abcdef0123456789abcdef; " + (wrap_ps ? wrap_ps(ps) : ps) + " > " +
      dir + "/ps.log 2>&1 & ps=$!; " + worker + "worker --task 0 > " + dir + "/w0.log 2>&1 & w0=$!; " +
      worker + "worker --task 1 > " + dir + "/w1.log 2>&1 & w1=$!; ";
  std::string runs, reports;
  for (size_t k = 0; k < train_args.size(); ++k) {
    const std::string out = dir + "/train" + std::to_string(k) + ".out", pid = "$t" + std::to_string(k);
    runs += tact + " train --cluster " + cluster + " " + train_args[k] + " > " + out + " 2>&1 & t" +
            std::to_string(k) + "=$!; ";
    reports += "wait " + pid + "; status=$?; cat " + out + "; echo exit=$status; ";
  }
  return test::RunCommand(script + runs + reports + "kill $ps $w0 $w1; wait; cat " + dir + "/*.log").out;
}

// A task of the local cluster that exits as it starts (here the ps, run
// by a stand-in for tact that prints one line and exits 3, while the
// workers are the real tact; in life a port taken between its choice and
// the bind, a crash): the run ends naming the task, its exit status and
// what it printed, which would otherwise go with the cluster's directory,
// instead of a bare "cannot reach task ... Connection refused" after the
// connect timeout. Only the ps fails, so that the message can name it:
// with every task failing, whichever exits first is named.
TEST(TactTrainTest, ALocalTaskThatExitsAsItStartsIsNamedWithWhatItPrinted) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_exits_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string fake = dir + "/tact";
  // tact worker --cluster FILE --job JOB --task N: $5 is the job.
  std::ofstream(fake) << "#!/bin/sh\n[ \"$5\" = ps ] || exec " << TACT_BINARY
                      << " \"$@\"\necho \"stand-in for tact: $2 $3 $4 $5 $6 $7 cannot start\"\nexit 3\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  TrainOptions opt;
  opt.model.name = "mlp";
  opt.data.max_steps = 5;
  opt.cluster.ps = 1;
  opt.cluster.workers = 1;
  opt.cluster.worker_binary = fake;
  StatusOr<TrainResult> r = Train(opt);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().ToString();
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << m;
  EXPECT_NE(m.find("task /job:ps/replica:0/task:0 exited with status 3 as it started"), std::string::npos) << m;
  EXPECT_NE(m.find("stand-in for tact: --cluster"), std::string::npos) << m;
}

// A checkpoint directory that the client and the ps see as two different
// directories (their machines' own disks): the ps saves checkpoint 0 where
// it sees it, the client cannot read it back. Exit 1 saying that the
// directory must be shared, not a bare "no checkpoint of step 0". The ps
// runs in a mount namespace of its own with a tmpfs over the directory.
TEST(TactTrainTest, ACheckpointDirectoryTheClientAndThePsDoNotShareExitsOneSayingSo) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  if (test::RunCommand("unshare --user --map-root-user --mount true 2>&1").status != 0) {
    GTEST_SKIP() << "no user and mount namespaces here";
  }
  const std::string dir = ::testing::TempDir() + "/tact_unshared_" + std::to_string(getpid());
  std::filesystem::create_directories(dir + "/ck");
  const std::string out = TrainOnCluster(
      {"127.0.0.1", "127.0.0.1", "127.0.0.1"}, dir,
      {"--model mlp --connect-wait 20 --max-steps 5 --train-limit 1000 --test-limit 100 "
       "--checkpoint-dir " + dir + "/ck"},
      [&dir](const std::string& ps) {
        return "unshare --user --map-root-user --mount sh -c 'mount -t tmpfs tact_own " + dir +
               "/ck && exec " + ps + "'";
      });
  std::filesystem::remove_all(dir);
  EXPECT_NE(out.find("exit=1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("FailedPrecondition: checkpoint 0 was saved by the tasks that hold the variables, "
                     "but this process does not find it in '" + dir + "/ck'"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("must be one file system that this process and every task holding variables share"),
            std::string::npos)
      << out;
}

// A cluster whose addresses are IPv6 ("[::1]:2222", as TensorFlow writes
// them) trains as its IPv4 twin does, to the same variables. Before
// session 18 every socket of tact's own was IPv4: the ps could not start
// its tensor links ("cannot resolve '[::1]'").
TEST(TactTrainTest, AClusterOnIPv6TrainsAsItsIPv4Twin) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  uint16_t port = 0;
  StatusOr<int> probe = ListenTcp("::1", 0, false, &port);
  if (!probe.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << probe.status().ToString();
  close(*probe);
  const std::string dir = ::testing::TempDir() + "/tact_ipv6_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string args =
      "--model mlp --max-steps 40 --train-limit 4000 --test-limit 200 --connect-wait 20 --json";
  // A task named "localhost" beside IPv6 ones: the master's one listener takes both families.
  const std::string v6 = TrainOnCluster({"[::1]", "[::1]", "localhost"}, dir, {args});
  const std::string v4 = TrainOnCluster({"127.0.0.1", "127.0.0.1", "127.0.0.1"}, dir, {args});
  std::filesystem::remove_all(dir);
  ASSERT_NE(v6.find("exit=0\n"), std::string::npos) << v6;
  ASSERT_NE(v4.find("exit=0\n"), std::string::npos) << v4;
  EXPECT_EQ(Fingerprints(v6), Fingerprints(v4)) << v6 << "\n" << v4;
  EXPECT_EQ(Fingerprints(v6).size(), 1u) << v6;
}

// Two runs started together on one cluster each train variables of their
// own (apps/train/run_container.h), one with a checkpoint directory and
// one without: both end with the variables of the same run alone. Before
// session 19 both re-initialised and updated the tasks' shared variables
// and ended, with exit 0, on another fingerprint than the run alone.
TEST(TactTrainTest, TwoRunsOnOneClusterAtOnceEachTrainTheirOwnVariables) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_two_runs_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::vector<std::string> hosts = {"127.0.0.1", "127.0.0.1", "127.0.0.1"};
  const std::string args =
      "--model mlp --max-steps 300 --train-limit 4000 --test-limit 200 --connect-wait 20 --json";
  const std::string alone = TrainOnCluster(hosts, dir, {args});
  const std::string both = TrainOnCluster(hosts, dir, {args, args + " --checkpoint-dir " + dir + "/ck"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(Fingerprints(alone).size(), 1u) << alone;
  const std::vector<std::string> two = Fingerprints(both);
  ASSERT_EQ(two.size(), 2u) << both;
  EXPECT_EQ(two[0], Fingerprints(alone)[0]) << both;
  EXPECT_EQ(two[1], Fingerprints(alone)[0]) << both;
}

// --checkpoint-dir alone saves every 600 s, as TensorFlow's
// MonitoredTrainingSession does, and not only at the start and the end;
// either interval given replaces that default.
TEST(TactTrainTest, ACheckpointDirectoryAloneSavesEveryTenMinutes) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_ckpt_default_" + std::to_string(getpid());
  const struct {
    std::string flags;
    int64_t steps;
    double secs;
  } cases[] = {{"", 0, 600}, {"--checkpoint-every-steps 5", 5, 0}, {"--checkpoint-every-secs 0", 0, 0}};
  for (const auto& c : cases) {
    std::filesystem::remove_all(dir);
    Result r = RunTactTrain("--model mlp --max-steps 5 --train-limit 1000 --test-limit 100 --json" +
                            std::string(" --checkpoint-dir ") + dir + " " + c.flags);
    ASSERT_EQ(r.status, 0) << r.out;
    const std::string last = r.out.substr(r.out.rfind('{'));
    const nlohmann::json j = nlohmann::json::parse(last, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(j.is_object()) << r.out;
    EXPECT_EQ(j.value("checkpoint_every_steps", int64_t{-1}), c.steps) << c.flags;
    EXPECT_EQ(j.value("checkpoint_every_secs", -1.0), c.secs) << c.flags;
  }
  std::filesystem::remove_all(dir);
}

// A run resumed on a directory whose newest checkpoint has damaged HDF5
// metadata: before session 25 HDF5 crashed the process (SIGSEGV) at every
// start. It passes over it, says so, and trains from the one before.
TEST(TactTrainTest, AResumeOnADamagedCheckpointPassesOverItSayingSo) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_ckpt_damaged_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  const std::string flags =
      " --model mlp --train-limit 1000 --test-limit 100 --json --checkpoint-every-steps 5 --checkpoint-dir " +
      dir;
  Result first = RunTactTrain("--max-steps 5" + flags);
  ASSERT_EQ(first.status, 0) << first.out;
  {
    std::fstream f(dir + "/ckpt-5.shard-0-of-1.h5", std::ios::in | std::ios::out | std::ios::binary);
    for (int offset = 200; offset < 1200; offset += 100) {  // the superblock and the first headers
      f.seekg(offset);
      char c = 0;
      f.read(&c, 1);
      f.seekp(offset);
      f.put(static_cast<char>(c ^ 0x5a));
    }
  }
  Result resumed = RunTactTrain("--max-steps 10" + flags);
  EXPECT_EQ(resumed.status, 0) << resumed.out;
  const std::string shard = dir + "/ckpt-5.shard-0-of-1.h5";
  EXPECT_NE(resumed.out.find("tact: passed over a damaged checkpoint in " + dir +
                             " (DataLoss: checkpoint shard file '" + shard +
                             "' is damaged: its HDF5 metadata"),
            std::string::npos)
      << resumed.out;
  EXPECT_NE(resumed.out.find("resuming from step 0"), std::string::npos) << resumed.out;
  // Step 5 was trained again and saved over the damaged one.
  test::CommandResult verify =
      test::RunCommand(std::string(TACT_BINARY) + " ckpt verify " + dir + " --step 5 2>&1");
  EXPECT_EQ(verify.status, 0) << verify.out;
  std::filesystem::remove_all(dir);
}

// SIGTERM (a scheduler's stop, or kill) in the middle of a run on a local
// cluster: the step under way finishes, its checkpoint is saved, the run
// says so and exits 128 + 15, and neither its tasks nor their directory
// stay behind (the cluster's directory goes under $TMPDIR).
TEST(TactTrainTest, SigtermStopsARunWholeAndSavesItsStep) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  const std::string dir = ::testing::TempDir() + "/tact_sigterm_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/tmp");
  // 20 steps an epoch: "epoch 1" says that training is under way.
  const std::string script =
      "TMPDIR=" + dir + "/tmp " + TACT_BINARY +
      " train --model mlp --ps 1 --workers 2 --epochs 50 --train-limit 2000 --test-limit 100" +
      " --checkpoint-dir " + dir + "/ck --checkpoint-every-steps 1000 --json > " + dir + "/out 2>&1 &" +
      " pid=$!; for i in $(seq 300); do grep -q 'epoch 1:' " + dir + "/out && break; sleep 0.1; done;" +
      " kill -TERM $pid; wait $pid; echo exit=$?; cat " + dir + "/out; ls -A " + dir + "/tmp";
  Result r = test::RunCommand(script);  // popen's sh runs the script
  EXPECT_NE(r.out.find("exit=143\n"), std::string::npos) << r.out;
  const size_t said = r.out.find("tact train: stopped by SIGTERM after step ");
  ASSERT_NE(said, std::string::npos) << r.out;
  const char* after = r.out.c_str() + said + std::strlen("tact train: stopped by SIGTERM after step ");
  const long long step = std::atoll(after);
  EXPECT_GE(step, 20) << r.out;
  EXPECT_NE(r.out.find("saved as checkpoint " + std::to_string(step) + " in " + dir + "/ck"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/ck/ckpt-" + std::to_string(step) + ".manifest")) << r.out;
  EXPECT_NE(r.out.find("\"stopped\":true"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/tmp")) << "the cluster's directory stayed: " << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tact::apps
