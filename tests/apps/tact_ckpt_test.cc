// `tact ckpt` as a user runs it: a real process on real checkpoint files,
// and the files read by HDF5's own tools where they are installed.
#include <gtest/gtest.h>

#include <sstream>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checksum.h"

namespace tact {
namespace {

namespace fs = std::filesystem;

class TactCkptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("tact_ckpt_cmd_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    dir_ = root_ / "ckpts";
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Exit status of `<program> <args>`; its stdout and stderr are kept.
  int Exec(const std::string& program, const std::string& args) {
    const std::string cmd = program + " " + args + " > " + (root_ / "out.txt").string() + " 2> " +
                            (root_ / "err.txt").string();
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  int Tact(const std::string& args) { return Exec(TACT_BINARY, "ckpt " + args); }
  std::string Read(const char* name) {
    std::ifstream f(root_ / name);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  std::string Out() { return Read("out.txt"); }
  std::string Err() { return Read("err.txt"); }
  std::string Dir() { return dir_.string(); }

  // Steps 10 and 20, two shards each.
  void SaveTwo() {
    for (int64_t step : {10, 20}) {
      Tensor kernel(DT_FLOAT, {4, 3});
      for (int i = 0; i < 12; ++i) kernel.data<float>()[i] = step + i;
      ASSERT_TRUE(WriteCheckpointShard(Dir(), step, 0, 2, {{"dense_1/kernel", kernel}}).ok());
      ASSERT_TRUE(WriteCheckpointShard(Dir(), step, 1, 2,
                                       {{"dense_1/bias", Tensor::FromVector<double>({1, 2, 3})},
                                        {"vocab", Tensor::FromVector<std::string>({"a", "bc"})}})
                      .ok());
      ASSERT_TRUE(CommitCheckpoint(Dir(), step, 2).ok());
    }
  }
  void FlipKernelByte(int64_t step) {
    const std::string path = Dir() + "/ckpt-" + std::to_string(step) + ".shard-0-of-2.h5";
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "dense_1/kernel/:value", H5P_DEFAULT);
    const haddr_t offset = H5Dget_offset(d);
    H5Dclose(d);
    H5Fclose(f);
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(offset + 2);
    io.put('\x7f');
  }

  fs::path root_, dir_;
};

TEST_F(TactCkptTest, LsListsTheCommittedSteps) {
  SaveTwo();
  ASSERT_TRUE(WriteCheckpointShard(Dir(), 30, 0, 2, {{"x", Tensor::Scalar<float>(1)}}).ok());  // uncommitted
  ASSERT_EQ(Tact("ls " + Dir()), 0) << Err();
  const std::string out = Out();
  EXPECT_NE(out.find("          10  "), std::string::npos) << out;
  EXPECT_NE(out.find("          20  "), std::string::npos) << out;
  EXPECT_EQ(out.find("          30  "), std::string::npos) << out;
  EXPECT_NE(out.find("       2  "), std::string::npos) << out;  // shards
}

TEST_F(TactCkptTest, ShowPrintsVariablesWithDtypeShapeAndChecksum) {
  SaveTwo();
  StatusOr<CheckpointInfo> info = DescribeCheckpoint(Dir(), 10);
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(Tact("show " + Dir() + " --step 10"), 0) << Err();
  const std::string out = Out();
  EXPECT_NE(out.find("step 10,"), std::string::npos) << out;
  for (const StoredVariable& v : info->variables) {
    const std::string line = "  " + v.name + "  " + DataTypeString(v.dtype) + " " + v.shape.DebugString() +
                             "  checksum " + ChecksumHex(v.checksum);
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  }
  EXPECT_NE(out.find("dense_1/kernel  float [4,3]"), std::string::npos) << out;
  ASSERT_EQ(Tact("show " + Dir()), 0) << Err();
  EXPECT_NE(Out().find("step 20,"), std::string::npos) << Out();  // the latest
}

// A checkpoint written by another program may name a variable with bytes
// a terminal acts on: show writes them as \xNN, keeping the rest.
TEST_F(TactCkptTest, ShowWritesControlBytesOfANameAsHex) {
  ASSERT_TRUE(WriteCheckpointShard(Dir(), 5, 0, 1, {{"red\x1b[31m/\xc3\xa9", Tensor::Scalar<float>(1)}}).ok());
  ASSERT_TRUE(CommitCheckpoint(Dir(), 5, 1).ok());
  ASSERT_EQ(Tact("show " + Dir()), 0) << Err();
  EXPECT_NE(Out().find("  red\\x1b[31m/\xc3\xa9  float []"), std::string::npos) << Out();
  EXPECT_EQ(Out().find('\x1b'), std::string::npos) << Out();
}

TEST_F(TactCkptTest, VerifyExitsOneNamingTheFileAndVariable) {
  SaveTwo();
  ASSERT_EQ(Tact("verify " + Dir()), 0) << Err();
  EXPECT_NE(Out().find("ok: step 20"), std::string::npos) << Out();
  FlipKernelByte(20);
  ASSERT_EQ(Tact("verify " + Dir()), 1);
  const std::string err = Err();
  EXPECT_NE(err.find("ckpt-20.shard-0-of-2.h5"), std::string::npos) << err;
  EXPECT_NE(err.find("'dense_1/kernel'"), std::string::npos) << err;
  EXPECT_NE(err.find("checksum mismatch"), std::string::npos) << err;
  EXPECT_NE(err.find("latest good checkpoint is step 10"), std::string::npos) << err;
  EXPECT_EQ(Tact("verify " + Dir() + " --step 10"), 0) << Err();

  fs::resize_file(dir_ / "ckpt-10.shard-1-of-2.h5", 200);
  ASSERT_EQ(Tact("verify " + Dir() + " --step 10"), 1);
  EXPECT_NE(Err().find("ckpt-10.shard-1-of-2.h5"), std::string::npos) << Err();
  EXPECT_NE(Err().find("truncated"), std::string::npos) << Err();
  // ls still lists it, as damaged, and exits 0.
  ASSERT_EQ(Tact("ls " + Dir()), 0) << Err();
  EXPECT_NE(Out().find("damaged"), std::string::npos) << Out();
}

TEST_F(TactCkptTest, BadDirectoriesExitOneWithAMessage) {
  const std::string missing = (root_ / "missing").string();
  for (const char* sub : {"ls", "show", "verify"}) {
    EXPECT_EQ(Tact(std::string(sub) + " " + missing), 1) << sub;
    EXPECT_NE(Err().find(missing), std::string::npos) << sub << ": " << Err();
  }
  EXPECT_EQ(Tact("ls " + Dir()), 0);
  EXPECT_NE(Out().find("no checkpoints"), std::string::npos) << Out();
  EXPECT_EQ(Tact("verify " + Dir()), 1);
  EXPECT_NE(Err().find("no checkpoint in"), std::string::npos) << Err();
  SaveTwo();
  EXPECT_EQ(Tact("show " + Dir() + " --step 15"), 1);
  EXPECT_NE(Err().find("ckpt-15.manifest"), std::string::npos) << Err();
}

// Whether a line of `listing` names `path` and then `kind`.
bool Lists(const std::string& listing, const std::string& path, const std::string& kind) {
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find(path + " ");
    if (at == 0 && line.find(kind, path.size()) != std::string::npos) return true;
  }
  return false;
}

TEST_F(TactCkptTest, H5lsSeesEachVariableUnderItsName) {
  SaveTwo();
  ASSERT_EQ(Exec("h5ls", "-r " + Dir() + "/ckpt-20.shard-0-of-2.h5"), 0) << Err();
  EXPECT_TRUE(Lists(Out(), "/dense_1/kernel", "Group")) << Out();
  EXPECT_TRUE(Lists(Out(), "/dense_1/kernel/:value", "Dataset {4, 3}")) << Out();
  ASSERT_EQ(Exec("h5ls", "-r " + Dir() + "/ckpt-20.shard-1-of-2.h5"), 0) << Err();
  EXPECT_TRUE(Lists(Out(), "/dense_1/bias/:value", "Dataset {3}")) << Out();
  EXPECT_TRUE(Lists(Out(), "/vocab/:value", "Dataset {2}")) << Out();
  ASSERT_EQ(Exec("h5dump", "-d /vocab/:value " + Dir() + "/ckpt-20.shard-1-of-2.h5"), 0) << Err();
  EXPECT_NE(Out().find("\"bc\""), std::string::npos) << Out();
}

}  // namespace
}  // namespace tact
