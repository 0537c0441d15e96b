// `tact run` as a user runs it: a real process on real files.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>
#include <fstream>

#include "graph/graph_def_codec.h"
#include "graph/graph_def_text.h"
#include "graph/npy.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

namespace fs = std::filesystem;

class TactRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("tact_run_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
    Add(s.WithOpName("y"), Square(s, x), 1.0f);
    auto def = s.ToGraphDef();
    ASSERT_TRUE(def.ok());
    auto text = GraphDefToText(*def);
    auto binary = SerializeGraphDef(*def);
    ASSERT_TRUE(text.ok() && binary.ok());
    std::ofstream(dir_ / "g.txt") << *text;
    std::ofstream(dir_ / "g.bin", std::ios::binary) << *binary;
    ASSERT_TRUE(WriteNpyFile(dir_ / "x.npy", Tensor::FromVector<float>({1, 2, 3}, {3})).ok());
    std::ofstream(dir_ / "bad.npy") << "not numpy";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Exit status of `tact run <args>`, stderr into err.txt.
  int Run(const std::string& args) {
    const std::string cmd = std::string(TACT_BINARY) + " run " + args + " > " +
                            (dir_ / "out.txt").string() + " 2> " + (dir_ / "err.txt").string();
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  std::string Stderr() {
    std::ifstream f(dir_ / "err.txt");
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  std::string P(const char* name) { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(TactRunTest, TextAndBinaryGraphsWriteTheFetches) {
  for (const char* graph : {"g.txt", "g.bin"}) {
    ASSERT_EQ(Run("--graph " + P(graph) + " --feed x:0=" + P("x.npy") + " --fetch y:0 --out " +
                  P("out")), 0) << Stderr();
    auto y = ReadNpyFile(P("out/y_0.npy"));
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(y->data<float>()[0], 2.0f);
    EXPECT_EQ(y->data<float>()[2], 10.0f);
  }
}

TEST_F(TactRunTest, BadInputExitsOneWithAMessage) {
  struct Case { std::string args; const char* message; };
  const Case cases[] = {
      {"--graph " + P("missing.bin") + " --fetch y:0", "cannot open graph file"},
      {"--graph " + P("x.npy") + " --fetch y:0", "is neither a binary nor a text GraphDef"},
      {"--graph " + P("g.bin") + " --feed x:0=" + P("bad.npy") + " --fetch y:0", "bad magic"},
      {"--graph " + P("g.bin") + " --feed x:0 --fetch y:0", "must be name:port=file.npy"},
      {"--graph " + P("g.bin") + " --feed x:0=" + P("x.npy") + " --fetch zz:0", "names no node"},
      {"--graph " + P("g.bin") + " --fetch y:0", "a value must be fed"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Run(c.args), 1) << c.args;
    EXPECT_NE(Stderr().find(c.message), std::string::npos) << Stderr();
  }
}

}  // namespace
}  // namespace tact
