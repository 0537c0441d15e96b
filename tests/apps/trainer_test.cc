// Training end to end on a slice of Fashion-MNIST (the set-up script
// installs it; without it these tests skip).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "apps/train/trainer.h"
#include "checkpoint/checkpoint.h"

namespace tact::apps {
namespace {

bool HaveData() {
  return std::filesystem::exists(std::string(kDefaultDataDir) + "/train-images-idx3-ubyte.gz");
}

TrainOptions ShortMlpRun() {
  TrainOptions opt;
  opt.model.name = "mlp";
  opt.data.train_limit = 6000;
  opt.data.test_limit = 1000;
  opt.data.max_steps = 300;
  opt.data.epochs = 5;  // 60 steps an epoch: the run shuffles anew four times
  opt.model.seed = 7;
  return opt;
}

TEST(TrainerTest, AFewHundredMlpStepsLowerTheLossAndAreReproducible) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt = ShortMlpRun();
  std::vector<double> losses;
  opt.on_step = [&](const TrainProgress& p) { losses.push_back(p.loss); };
  StatusOr<TrainResult> a = Train(opt);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->steps, 300);
  ASSERT_EQ(losses.size(), 300u);
  // ln(10) = 2.30 for a uniform guess; the last 60 steps average far lower.
  double first = 0, last = 0;
  for (int i = 0; i < 10; ++i) first += losses[i] / 10;
  for (int i = 240; i < 300; ++i) last += losses[i] / 60;
  EXPECT_GT(first, 1.5);
  EXPECT_LT(last, 0.8);
  EXPECT_GT(a->test_accuracy, 0.70);
  EXPECT_EQ(a->parameters, 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
  EXPECT_EQ(a->variables_fingerprint.size(), 16u);

  opt.on_step = nullptr;
  StatusOr<TrainResult> b = Train(opt);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->variables_fingerprint, a->variables_fingerprint);
  EXPECT_EQ(b->train_loss, a->train_loss);
  EXPECT_EQ(b->test_accuracy, a->test_accuracy);

  // Another seed is another run.
  opt.model.seed = 8;
  StatusOr<TrainResult> c = Train(opt);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_NE(c->variables_fingerprint, a->variables_fingerprint);
}

TEST(TrainerTest, OneThreadAndTwoGiveTheSameVariables) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt = ShortMlpRun();
  opt.data.max_steps = 50;
  opt.cluster.intra_op_threads = 1;
  StatusOr<TrainResult> a = Train(opt);
  opt.cluster.intra_op_threads = 2;
  StatusOr<TrainResult> b = Train(opt);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->variables_fingerprint, b->variables_fingerprint);
}

// Placed over four CPU devices, with Send/Recv between them, the mlp
// trains to the very same variables as on one (paper 3.2: placement does
// not change what is computed).
TEST(TrainerTest, FourDevicesGiveTheSameVariablesAsOne) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt = ShortMlpRun();
  opt.data.max_steps = 50;
  StatusOr<TrainResult> one = Train(opt);
  opt.cluster.devices = 4;
  StatusOr<TrainResult> four = Train(opt);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(one->variables_fingerprint, four->variables_fingerprint);
  EXPECT_EQ(one->train_loss, four->train_loss);
}

// A sync step is sent while the one before runs (Session::StartFollowing)
// except across an epoch's end (the test accuracy), a checkpoint or a
// stop. The same losses step by step, the same checkpoints (each saved
// with no step beside it) and the same variables as one step at a time,
// with a checkpoint every 7 steps and epochs of 30.
TEST(TrainerTest, StepsSentAheadGiveTheSameLossesCheckpointsAndVariablesAsOneAtATime) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt = ShortMlpRun();
  opt.data.train_limit = 3000;
  opt.data.max_steps = 100;
  const std::string dir = ::testing::TempDir() + "/tact_send_ahead_" + std::to_string(::getpid());
  auto run = [&](bool send_ahead, std::vector<double>* losses) {
    opt.data.send_ahead = send_ahead;
    opt.supervision.checkpoint.dir = dir + (send_ahead ? "/ahead" : "/single");
    opt.supervision.checkpoint.every_steps = 7;
    opt.supervision.checkpoint.keep = 100;
    opt.on_step = [losses](const TrainProgress& p) { losses->push_back(p.loss); };
    return Train(opt);
  };
  std::filesystem::remove_all(dir);
  std::vector<double> ahead_losses, single_losses;
  StatusOr<TrainResult> ahead = run(true, &ahead_losses);
  StatusOr<TrainResult> single = run(false, &single_losses);
  ASSERT_TRUE(ahead.ok()) << ahead.status().ToString();
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  EXPECT_EQ(ahead->steps, 100);
  // Not across the 3 epochs' ends (steps 30, 60, 90) nor the 14 saves
  // (after steps 7, 14, ..., 98): 99 - 3 - 14.
  EXPECT_EQ(ahead->steps_sent_ahead, 82);
  EXPECT_EQ(single->steps_sent_ahead, 0);
  EXPECT_EQ(ahead_losses, single_losses);
  EXPECT_EQ(ahead->variables_fingerprint, single->variables_fingerprint);
  EXPECT_EQ(ahead->test_accuracy, single->test_accuracy);

  std::vector<VariableSpec> expected;
  for (const auto& [name, t] : single->variables) expected.push_back({name, t.dtype(), t.shape()});
  StatusOr<std::vector<int64_t>> steps = ListCheckpoints(dir + "/single");
  ASSERT_TRUE(steps.ok()) << steps.status().ToString();
  EXPECT_EQ(steps->size(), 16u);  // 0, 7, ..., 98 and the end's 100
  for (int64_t step : *steps) {
    StatusOr<Checkpoint> a = ReadCheckpoint(dir + "/ahead", step, expected);
    StatusOr<Checkpoint> b = ReadCheckpoint(dir + "/single", step, expected);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(a->variables[i].second.BitwiseEqual(b->variables[i].second))
          << "step " << step << ": " << expected[i].name;
    }
  }
  std::filesystem::remove_all(dir);
}

// A stop asked for while a step is sent ahead ends the run after that
// step, whole: its variables are those of a run of that many steps.
TEST(TrainerTest, AStopWithAStepSentAheadEndsAfterItWhole) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt = ShortMlpRun();
  opt.data.max_steps = 100;
  int64_t seen = 0;
  opt.on_step = [&](const TrainProgress& p) { seen = p.step; };
  opt.stop_requested = [&] { return seen >= 40; };
  StatusOr<TrainResult> stopped = Train(opt);
  ASSERT_TRUE(stopped.ok()) << stopped.status().ToString();
  EXPECT_TRUE(stopped->stopped);
  EXPECT_GE(stopped->steps, 40);
  EXPECT_LE(stopped->steps, 41);
  opt.on_step = nullptr;
  opt.stop_requested = nullptr;
  opt.data.max_steps = stopped->steps;
  StatusOr<TrainResult> plain = Train(opt);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->variables_fingerprint, stopped->variables_fingerprint);
}

TEST(TrainerTest, ACnnStepRunsWithCheckNumerics) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt;
  opt.model.name = "cnn";
  opt.data.train_limit = 400;
  opt.data.test_limit = 200;
  opt.data.max_steps = 4;
  opt.model.check_numerics = true;
  StatusOr<TrainResult> r = Train(opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->steps, 4);
  // conv1 5*5*1*32+32, conv2 5*5*32*64+64, dense 3136*1024+1024, dense 1024*10+10.
  EXPECT_EQ(r->parameters, 832 + 51264 + 3212288 + 10250);
  EXPECT_TRUE(std::isfinite(r->train_loss));
}

// Too high a learning rate: the loss becomes NaN within a few steps, and
// the result says from which step, where "not measured" was all it said.
TEST(TrainerTest, ADivergedRunSaysFromWhichStepItsLossWasNotFinite) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt;
  opt.data.train_limit = 1000;
  opt.data.test_limit = 200;
  opt.data.max_steps = 10;
  StatusOr<TrainResult> fine = Train(opt);
  ASSERT_TRUE(fine.ok()) << fine.status().ToString();
  EXPECT_EQ(fine->loss_not_finite_at, -1);
  EXPECT_TRUE(std::isfinite(fine->train_loss));
  opt.model.learning_rate = 1e30;
  StatusOr<TrainResult> diverged = Train(opt);
  ASSERT_TRUE(diverged.ok()) << diverged.status().ToString();
  EXPECT_GE(diverged->loss_not_finite_at, 1);  // step 0's loss is of the initial values
  EXPECT_LE(diverged->loss_not_finite_at, 3);
  EXPECT_TRUE(std::isnan(diverged->train_loss));
  EXPECT_EQ(diverged->steps, 10);
}

// The accuracy claim, gated (the full run is scripts/accuracy.sh): the cnn,
// with its defaults (Adam, dropout, batch 100), learns from 3,000 images in
// two epochs to a stated accuracy on 1,000 test images. Measured 0.792 at
// seed 1; the bound leaves room for a change of kernels that moves the
// last bits, not for one that breaks learning.
TEST(TrainerTest, TheCnnLearnsFromASubsetToAStatedAccuracy) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt;
  opt.model.name = "cnn";
  opt.data.train_limit = 3000;
  opt.data.test_limit = 1000;
  opt.data.epochs = 2;
  StatusOr<TrainResult> r = Train(opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->steps, 60);
  EXPECT_GT(r->test_accuracy, 0.77);
}

// The transformer (Einsum, LayerNormalization, MultiHeadAttention) with its
// defaults learns from a subset too, and trains to the same bits on one
// thread and two. Measured 0.720 at seed 1 (the cnn: 0.791).
TEST(TrainerTest, TheTransformerLearnsFromASubsetTheSameOnOneThreadAndTwo) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions opt;
  opt.model.name = "transformer";
  opt.data.train_limit = 3000;
  opt.data.test_limit = 1000;
  opt.data.epochs = 2;
  StatusOr<TrainResult> r = Train(opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->steps, 60);
  EXPECT_GT(r->test_accuracy, 0.69);
  opt.data.epochs = 1;
  opt.data.max_steps = 10;
  opt.cluster.intra_op_threads = 1;
  StatusOr<TrainResult> one = Train(opt);
  opt.cluster.intra_op_threads = 2;
  StatusOr<TrainResult> two = Train(opt);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->variables_fingerprint, two->variables_fingerprint);
}

TEST(TrainerTest, BadOptionsAreClearErrors) {
  TrainOptions opt;
  opt.data.dir = "/nonexistent/fashion";
  StatusOr<TrainResult> r = Train(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/fashion"), std::string::npos)
      << r.status().ToString();
  if (!HaveData()) return;
  opt = TrainOptions();
  opt.model.name = "resnet";
  opt.data.train_limit = 200;
  r = Train(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("resnet"), std::string::npos) << r.status().ToString();
  opt.model.name = "mlp";
  opt.data.batch = 500;
  r = Train(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("batch 500"), std::string::npos) << r.status().ToString();
  opt.data.batch = 100;
  // A learning rate that trains nowhere, and ps tasks without workers (the
  // run used to train in one process, ignoring them): refused, named.
  for (double lr : {-1.0, std::nan(""), HUGE_VAL}) {
    opt.model.learning_rate = lr;
    r = Train(opt);
    ASSERT_FALSE(r.ok()) << "learning rate " << lr;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
    EXPECT_NE(r.status().message().find("learning rate must be a finite number >= 0"), std::string::npos)
        << r.status().ToString();
  }
  opt.model.learning_rate = TrainOptions().model.learning_rate;
  opt.cluster.ps = 2;
  r = Train(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ps tasks (2) need worker tasks"), std::string::npos)
      << r.status().ToString();
  opt.cluster.ps = 0;
  opt.supervision.checkpoint.dir = ::testing::TempDir() + "/tact_bad_keep";
  opt.supervision.checkpoint.keep = 0;
  r = Train(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("checkpoint keep must be >= 1, got 0"), std::string::npos)
      << r.status().ToString();
  std::filesystem::remove_all(opt.supervision.checkpoint.dir);
}

// Negative counts and timeouts used to mean "all" or "never": a typo
// trained the whole set, or without a step deadline. Refused before any
// data is read, naming the flag.
TEST(TrainerTest, NegativeCountsAreRefusedNamingTheFlag) {
  struct Case {
    std::function<void(TrainOptions*)> set;
    const char* message;
  };
  const Case cases[] = {
      {[](TrainOptions* o) { o->data.max_steps = -2; }, "--max-steps (-2)"},
      {[](TrainOptions* o) { o->data.train_limit = -5; }, "--train-limit (-5)"},
      {[](TrainOptions* o) { o->data.test_limit = -1; }, "--test-limit (-1)"},
      {[](TrainOptions* o) { o->cluster.step_timeout_ms = -1; },
       "--step-timeout must be >= 0 ms (0: none), got -1"},
      {[](TrainOptions* o) { o->supervision.chaos_faults = -1; }, "--chaos-faults must be >= 0, got -1"},
      {[](TrainOptions* o) { o->cluster.intra_op_threads = 0; }, "--threads must be at least 1, got 0"},
  };
  for (const Case& c : cases) {
    TrainOptions opt;
    opt.data.dir = "/nonexistent/fashion";  // refused before it is read
    c.set(&opt);
    StatusOr<TrainResult> r = Train(opt);
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().ToString();
  }
}

// A decay rate of 1 and a norm no gradient reaches change no bit (the
// rate is multiplied by 1.0, the gradients scaled by 1.0), so the run
// ends with the variables of a run without them; a real decay and a real
// clip each end elsewhere. Their values are checked against PyTorch in
// tests/train/optimizers_torch_test.cc.
TEST(TrainerTest, ScheduleAndClippingAreWiredIntoEveryStep) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  TrainOptions plain = ShortMlpRun();
  plain.data.max_steps = 40;
  auto fingerprint = [&](const std::function<void(TrainOptions*)>& set) {
    TrainOptions o = plain;
    set(&o);
    StatusOr<TrainResult> r = Train(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->variables_fingerprint : std::string();
  };
  const std::string base = fingerprint([](TrainOptions*) {});
  EXPECT_EQ(fingerprint([](TrainOptions* o) {
              o->model.lr_decay_steps = 5;
              o->model.lr_decay_rate = 1.0;
              o->model.lr_staircase = true;
            }),
            base);
  EXPECT_EQ(fingerprint([](TrainOptions* o) {
              o->model.lr_boundaries = {10, 20};
              o->model.lr_values = {1e-3, 1e-3, 1e-3};
            }),
            base);
  EXPECT_EQ(fingerprint([](TrainOptions* o) { o->model.clip_norm = 1e30; }), base);
  EXPECT_NE(fingerprint([](TrainOptions* o) {
              o->model.lr_boundaries = {10};
              o->model.lr_values = {1e-3, 1e-4};
            }),
            base);
  EXPECT_NE(fingerprint([](TrainOptions* o) {
              o->model.lr_decay_steps = 5;
              o->model.lr_decay_rate = 0.5;
            }),
            base);
  EXPECT_NE(fingerprint([](TrainOptions* o) { o->model.clip_norm = 0.1; }), base);
}

TEST(TrainerTest, ScheduleAndClippingFlagsOutOfRangeAreRefusedNamingThem) {
  if (!HaveData()) GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  struct Case {
    std::function<void(TrainOptions*)> set;
    const char* message;
  };
  const Case cases[] = {
      {[](TrainOptions* o) { o->model.lr_decay_steps = -1; }, "--lr-decay-steps must be >= 0"},
      {[](TrainOptions* o) {
         o->model.lr_decay_steps = 10;
         o->model.lr_decay_rate = 0;
       },
       "--lr-decay-rate must be a finite number > 0, got 0"},
      {[](TrainOptions* o) { o->model.lr_decay_rate = 0.5; },
       "--lr-decay-rate and --lr-staircase need --lr-decay-steps"},
      {[](TrainOptions* o) { o->model.lr_staircase = true; },
       "--lr-decay-rate and --lr-staircase need --lr-decay-steps"},
      {[](TrainOptions* o) {
         o->model.lr_boundaries = {10};
         o->model.lr_values = {1e-3};
       },
       "--lr-values needs one value more than --lr-boundaries: got 1 values for 1 boundaries"},
      {[](TrainOptions* o) { o->model.lr_boundaries = {10}; },
       "--lr-values needs one value more than --lr-boundaries: got 0 values for 1 boundaries"},
      {[](TrainOptions* o) {
         o->model.lr_boundaries = {10};
         o->model.lr_values = {1e-3, 1e-4};
         o->model.lr_decay_steps = 5;
       },
       "--lr-boundaries/--lr-values and --lr-decay-steps are two schedules: give one"},
      {[](TrainOptions* o) {
         o->model.lr_boundaries = {20, 10};
         o->model.lr_values = {1e-3, 1e-4, 1e-5};
       },
       "--lr-boundaries/--lr-values: PiecewiseConstantDecay: boundaries must increase"},
      {[](TrainOptions* o) {
         o->model.lr_boundaries = {10};
         o->model.lr_values = {1e-3, -1};
       },
       "--lr-boundaries/--lr-values: PiecewiseConstantDecay: value 1 must be a finite number >= 0, got -1"},
      {[](TrainOptions* o) { o->model.clip_norm = -1; }, "--clip-norm must be a finite number >= 0"},
      {[](TrainOptions* o) { o->model.clip_norm = NAN; }, "--clip-norm must be a finite number >= 0"},
  };
  for (const Case& c : cases) {
    TrainOptions opt = ShortMlpRun();
    opt.data.max_steps = 1;
    c.set(&opt);
    StatusOr<TrainResult> r = Train(opt);
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().ToString();
  }
}

}  // namespace
}  // namespace tact::apps
