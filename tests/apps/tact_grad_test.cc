// `tact grad` as a user runs it: a GraphDef file in, the same graph with
// the gradients out, and `tact run` fetching them; the values against the
// derivatives written by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "graph/graph_def_text.h"
#include "graph/npy.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

namespace fs = std::filesystem;

class TactGradTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("tact_grad_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // y = sum(x0 * x1 + tanh(x0)); dy/dx0 = x1 + 1 - tanh(x0)^2, dy/dx1 = x0.
    Scope s = Scope::NewRootScope();
    auto x0 = Placeholder(s.WithOpName("x0"), DT_FLOAT);
    auto x1 = Placeholder(s.WithOpName("x1"), DT_FLOAT);
    Sum(s.WithOpName("y"), Add(s, Mul(s, x0, x1), Tanh(s, x0)), {0});
    auto text = GraphDefToText(*s.ToGraphDef());
    ASSERT_TRUE(text.ok());
    std::ofstream(dir_ / "g.txt") << *text;
    ASSERT_TRUE(WriteNpyFile(dir_ / "x0.npy", Tensor::FromVector<float>({0.5f, -1, 2}, {3})).ok());
    ASSERT_TRUE(WriteNpyFile(dir_ / "x1.npy", Tensor::FromVector<float>({3, 4, -5}, {3})).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  int Tact(const std::string& args) {
    const std::string cmd = std::string(TACT_BINARY) + " " + args + " > " + (dir_ / "out.txt").string() +
                            " 2> " + (dir_ / "err.txt").string();
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  std::string File(const std::string& name) {
    std::ifstream f(dir_ / name);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

  fs::path dir_;
};

TEST_F(TactGradTest, AddsTheGradientsThatTactRunFetches) {
  const std::string d = dir_.string();
  ASSERT_EQ(Tact("grad --graph " + d + "/g.txt --y y:0 --x x0:0,x1:0 --out " + d + "/gg.txt"), 0)
      << File("err.txt");
  EXPECT_NE(File("out.txt").find("d y:0 / d x0:0 -> grad/y/x0_0"), std::string::npos) << File("out.txt");
  ASSERT_EQ(Tact("run --graph " + d + "/gg.txt --feed x0:0=" + d + "/x0.npy --feed x1:0=" + d +
                 "/x1.npy --fetch grad/y/x0_0:0 --fetch grad/y/x1_0:0 --out " + d),
            0)
      << File("err.txt");
  auto g0 = ReadNpyFile((dir_ / "grad_y_x0_0_0.npy").string());
  auto g1 = ReadNpyFile((dir_ / "grad_y_x1_0_0.npy").string());
  ASSERT_TRUE(g0.ok() && g1.ok()) << File("out.txt");
  const float x0[3] = {0.5f, -1, 2}, x1[3] = {3, 4, -5};
  for (int i = 0; i < 3; ++i) {
    const double t = std::tanh(static_cast<double>(x0[i]));
    EXPECT_NEAR(g0->data<float>()[i], x1[i] + 1 - t * t, 1e-6) << i;
    EXPECT_EQ(g1->data<float>()[i], x0[i]) << i;
  }
}

TEST_F(TactGradTest, ANameNotInTheGraphIsAnErrorNamingIt) {
  const std::string d = dir_.string();
  EXPECT_EQ(Tact("grad --graph " + d + "/g.txt --y y:0 --x nope:0 --out " + d + "/gg.txt"), 1);
  EXPECT_NE(File("err.txt").find("the graph has no node 'nope'"), std::string::npos) << File("err.txt");
  EXPECT_EQ(Tact("grad --graph " + d + "/missing.txt --y y:0 --x x0:0 --out " + d + "/gg.txt"), 1);
  EXPECT_NE(File("err.txt").find("missing.txt"), std::string::npos) << File("err.txt");
  // The same tensor twice was "node 'grad/y/x0_0' is defined twice".
  EXPECT_EQ(Tact("grad --graph " + d + "/g.txt --y y:0 --x x0:0,x0 --out " + d + "/gg.txt"), 1);
  EXPECT_NE(File("err.txt").find("--x names x0:0 twice ('x0:0' and 'x0')"), std::string::npos)
      << File("err.txt");
}

// An --out that cannot be written: exit 1 naming the file, and no line
// saying where a gradient went (they used to be printed before the write).
TEST_F(TactGradTest, AnOutFileThatCannotBeWrittenIsAnErrorNamingIt) {
  const std::string d = dir_.string();
  const std::string out = d + "/no_such_dir/gg.txt";
  EXPECT_EQ(Tact("grad --graph " + d + "/g.txt --y y:0 --x x0:0 --out " + out), 1);
  EXPECT_NE(File("err.txt").find("cannot write graph file '" + out + "': No such file or directory"),
            std::string::npos)
      << File("err.txt");
  EXPECT_EQ(File("out.txt"), "");
  // A full disk: the reason is said.
  EXPECT_EQ(Tact("grad --graph " + d + "/g.txt --y y:0 --x x0:0 --out /dev/full"), 1);
  EXPECT_NE(File("err.txt").find("ResourceExhausted: cannot write graph file '/dev/full': "
                                 "No space left on device"),
            std::string::npos)
      << File("err.txt");
}

}  // namespace
}  // namespace tact
