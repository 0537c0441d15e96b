// `tact run` as a user runs it: a real process on real files.
#include <gtest/gtest.h>

#include <chrono>
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
#include "tests/apps/run_command.h"

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

// A step that would wait for ever (a Dequeue on a queue nothing fills)
// ends at --timeout-ms with an error naming the node that waited; a step
// that finishes in time is untouched by it; a negative limit is refused.
TEST_F(TactRunTest, TimeoutMsEndsAStepThatWaitsNamingTheNode) {
  Scope s = Scope::NewRootScope();
  QueueDequeue(s.WithOpName("d"), FIFOQueue(s.WithOpName("q"), {DT_FLOAT}, {PartialTensorShape({})}),
               {DT_FLOAT});
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  std::ofstream(dir_ / "wait.bin", std::ios::binary) << *SerializeGraphDef(*def);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Run("--graph " + P("wait.bin") + " --fetch d:0 --timeout-ms 300"), 1);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
  const std::string named = "tact run: DeadlineExceeded: node 'd' (op 'QueueDequeue'): step ";
  EXPECT_EQ(Stderr().rfind(named, 0), 0u) << Stderr();
  EXPECT_NE(Stderr().find("ran past the operation timeout of 300 ms"), std::string::npos) << Stderr();
  ASSERT_EQ(Run("--graph " + P("g.bin") + " --feed x:0=" + P("x.npy") +
                " --fetch y:0 --timeout-ms 60000 --out " + P("in_time")),
            0)
      << Stderr();
  EXPECT_EQ(ReadNpyFile(P("in_time/y_0.npy"))->data<float>()[2], 10.0f);
  EXPECT_NE(Run("--graph " + P("g.bin") + " --fetch y:0 --timeout-ms -5"), 0);
  EXPECT_NE(Stderr().find("--timeout-ms: must be >= 0, got -5"), std::string::npos) << Stderr();
}

// A graph whose nodes are pinned to a device this machine lacks (written
// where a GPU or more CPUs were) runs with --allow-soft-placement, and
// without it is refused saying so.
TEST_F(TactRunTest, NodesPinnedToADeviceThatIsNotHereRunWithSoftPlacement) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Neg(s.WithOpName("y").WithDevice("/device:CPU:5"), x);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  std::ofstream(dir_ / "pinned.bin", std::ios::binary) << *SerializeGraphDef(*def);
  const std::string run = "--graph " + P("pinned.bin") + " --feed x:0=" + P("x.npy") + " --fetch y:0 --out " +
                          P("pinned");
  EXPECT_EQ(Run(run), 1);
  EXPECT_NE(Stderr().find("'y' requests '/device:CPU:5'"), std::string::npos) << Stderr();
  EXPECT_NE(Stderr().find("tact run --allow-soft-placement"), std::string::npos) << Stderr();
  ASSERT_EQ(Run(run + " --allow-soft-placement"), 0) << Stderr();
  auto y = ReadNpyFile(P("pinned/y_0.npy"));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->data<float>()[1], -2.0f);
}

// Two fetches that would share a file ("a/b" and "a_b" both become a_b_0)
// are refused before the run, so neither result is silently lost.
TEST_F(TactRunTest, FetchesThatWouldShareAFileAreRefusedBeforeTheRun) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Identity(s.WithOpName("a/b"), x);
  Identity(s.WithOpName("a_b"), Neg(s, x));
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  std::ofstream(dir_ / "ab.bin", std::ios::binary) << *SerializeGraphDef(*def);
  const std::string run = "--graph " + P("ab.bin") + " --feed x:0=" + P("x.npy") + " --out " + P("ab");
  EXPECT_EQ(Run(run + " --fetch a/b:0 --fetch a_b:0"), 1);
  EXPECT_NE(Stderr().find("--fetch 'a/b:0' and --fetch 'a_b:0' would both be written to '" +
                          P("ab") + "/a_b_0.npy'"), std::string::npos) << Stderr();
  EXPECT_FALSE(fs::exists(dir_ / "ab")) << "nothing may be written";
  // Each alone is written, with its own value.
  ASSERT_EQ(Run(run + " --fetch a_b:0"), 0) << Stderr();
  EXPECT_EQ(ReadNpyFile(P("ab/a_b_0.npy"))->data<float>()[2], -3.0f);
}

// A graph file whose names hold a terminal escape and a newline: the
// error is one line, with those bytes written as \xNN, and no escape
// reaches the terminal.
TEST_F(TactRunTest, ControlBytesInAGraphFileDoNotReachTheTerminal) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Neg(s.WithOpName("y"), x);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  for (const char* bad : {"x\x1b[31mred\nX", "\x1b]0;title\x07"}) {
    for (NodeDef& n : def->nodes) {
      if (n.name == "y") {
        n.inputs = {bad};
      } else {
        n.name = bad;  // the placeholder
      }
    }
    std::string text = *GraphDefToText(*def);
    std::ofstream(dir_ / "ctl.txt") << text;
    EXPECT_EQ(Run("--graph " + P("ctl.txt") + " --feed x:0=" + P("x.npy") + " --fetch y:0"), 1);
    const std::string err = Stderr();
    EXPECT_NE(err.find("\\x1b"), std::string::npos) << err;
    EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line: " << err;
  }
}

// NumPy (Debian's python3-numpy, the reference) writes the feeds and reads
// the fetches: bfloat16, which NumPy lacks, goes through float32 both ways;
// strings go as NumPy's bytes ('S') and unicode ('U') arrays.
TEST_F(TactRunTest, NumpyFeedsAndReadsBfloat16AndStrings) {
  Scope s = Scope::NewRootScope();
  auto h = Placeholder(s.WithOpName("h"), DT_BFLOAT16);
  Add(s.WithOpName("twice"), h, h);
  auto text = Placeholder(s.WithOpName("text"), DT_STRING);
  Identity(s.WithOpName("same"), text);
  DecodeRaw(s.WithOpName("raw"), text, DT_UINT8);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  std::ofstream(dir_ / "hs.bin", std::ios::binary) << *SerializeGraphDef(*def);
  auto python = [&](const std::string& code) {
    return test::RunCommand("cd " + dir_.string() + " && /usr/bin/python3 -c \"import numpy as np; " +
                            code + "\" 2>&1");
  };
  // 1 + 2^-8 lies halfway between the bfloat16 neighbours 1 and 1 + 2^-7:
  // nearest even is 1. 3 and -2.5 are exact.
  ASSERT_EQ(python("np.save('h.npy', np.array([1.00390625, 3, -2.5], np.float32)); "
                   "np.save('b.npy', np.array([b'ab\\x00c', b'wxyz'])); "
                   "np.save('u.npy', np.array([['h\\u00e9', '\\U0001f642'], ['', 'z']]))").status, 0);
  ASSERT_EQ(Run("--graph " + P("hs.bin") + " --feed h:0=" + P("h.npy") + " --feed text:0=" + P("b.npy") +
                " --fetch twice:0 --fetch same:0 --fetch raw:0 --out " + P("o1")), 0) << Stderr();
  test::CommandResult r = python("t = np.load('o1/twice_0.npy'); print(t.dtype, t.tolist()); "
                                 "print(repr(np.load('o1/same_0.npy'))); "
                                 "print(np.load('o1/raw_0.npy').tolist())");
  EXPECT_EQ(r.out, "float32 [2.0, 6.0, -5.0]\n"
                   "array([b'ab\\x00c', b'wxyz'], dtype='|S4')\n"
                   "[[97, 98, 0, 99], [119, 120, 121, 122]]\n");
  ASSERT_EQ(Run("--graph " + P("hs.bin") + " --feed text:0=" + P("u.npy") + " --fetch same:0 --out " +
                P("o2")), 0) << Stderr();
  r = python("t = np.load('o2/same_0.npy'); print(t.dtype, np.char.decode(t, 'utf-8').tolist() == "
             "np.load('u.npy').tolist())");
  EXPECT_EQ(r.out, "|S4 True\n");
}

}  // namespace
}  // namespace tact
