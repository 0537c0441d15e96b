// The text form of a GraphDef: the standard `capnp encode/decode` tool and
// GraphDefToText / GraphDefFromText agree with the binary codec.
#include "graph/graph_def_text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

#include "graph/graph_def_codec.h"
#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;

// CTest sets TACT_SOURCE_DIR; run by hand, the binary falls back to the
// tree it was configured from (tests/CMakeLists.txt).
std::string SourceDir() {
  if (const char* env = std::getenv("TACT_SOURCE_DIR"); env != nullptr && *env) return env;
#ifdef TACT_SOURCE_DIR_DEFAULT
  return TACT_SOURCE_DIR_DEFAULT;
#else
  const std::string here = __FILE__;
  return here.substr(0, here.rfind("/tests/graph/"));
#endif
}

std::string SchemaPath() { return SourceDir() + "/schemas/graph.capnp"; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

bool HaveCapnpTool() { return std::system("capnp --version > /dev/null 2>&1") == 0; }

// Runs `capnp <verb> graph.capnp GraphDef < in > out`; the tool finds
// /capnp/c++.capnp on its standard import path (/usr/include).
std::string RunTool(const std::string& verb, const std::string& input) {
  // Per test and process: ctest -j runs these tests side by side.
  const std::string base = testing::TempDir() + "/tact_graphdef_" +
                           testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                           std::to_string(getpid());
  const std::string in = base + ".in", out = base + ".out";
  WriteFile(in, input);
  const std::string cmd = "capnp " + verb + " " + SchemaPath() + " GraphDef < " + in + " > " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string result = ReadFile(out);
  std::remove(in.c_str());
  std::remove(out.c_str());
  return result;
}

constexpr const char* kText = R"((
  nodes = [
    ( name = "x", op = "Placeholder", device = "/job:worker/task:0/device:cpu:0",
      attrs = [ (name = "dtype", value = (type = 1)),
                (name = "shape", value = (shape = (dims = [-1, 784]))) ] ),
    ( name = "w", op = "Const",
      attrs = [ (name = "dtype", value = (type = 1)),
                (name = "value", value = (tensor = (dtype = 1, shape = [2],
                                                    content = 0x"0000803f00000040"))) ] ),
    ( name = "names", op = "Const",
      attrs = [ (name = "value", value = (tensor = (dtype = 7, shape = [2],
                                                    stringVal = ["ab", ""]))),
                (name = "strides", value = (list = (i = [1, 2, 2, 1]))),
                (name = "padding", value = (s = "SAME")),
                (name = "empty", value = (list = (f = []))) ] ),
    ( name = "y", op = "MatMul", inputs = ["x", "w:0", "^names"] ) ],
  version = 7 ))";

void ExpectTextGraph(const GraphDef& g) {
  EXPECT_EQ(g.version, 7);
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[0].name, "x");
  EXPECT_EQ(g.nodes[0].device, "/job:worker/task:0/device:cpu:0");
  EXPECT_EQ(g.nodes[0].attrs.at("dtype").type(), DT_FLOAT);
  EXPECT_EQ(g.nodes[0].attrs.at("shape").shape(), PartialTensorShape({-1, 784}));
  const Tensor& w = g.nodes[1].attrs.at("value").tensor();
  ASSERT_EQ(w.dtype(), DT_FLOAT);
  EXPECT_EQ(w.data<float>()[0], 1.0f);
  EXPECT_EQ(w.data<float>()[1], 2.0f);
  const Tensor& names = g.nodes[2].attrs.at("value").tensor();
  ASSERT_EQ(names.dtype(), DT_STRING);
  EXPECT_EQ(names.data<std::string>()[0], "ab");
  EXPECT_EQ(g.nodes[2].attrs.at("strides").list_i(), (std::vector<int64_t>{1, 2, 2, 1}));
  EXPECT_EQ(g.nodes[2].attrs.at("padding").s(), "SAME");
  EXPECT_EQ(g.nodes[2].attrs.at("empty").kind(), AttrValue::Kind::kFloatList);
  EXPECT_EQ(g.nodes[3].inputs, (std::vector<std::string>{"x", "w:0", "^names"}));
}

TEST(GraphDefTextTest, CapnpEncodeOutputParses) {
  if (!HaveCapnpTool()) GTEST_SKIP() << "the capnp tool is not installed";
  const std::string bytes = RunTool("encode", kText);
  StatusOr<GraphDef> g = ParseGraphDef(bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTextGraph(*g);
}

TEST(GraphDefTextTest, InProcessTextMatchesTheTool) {
  StatusOr<GraphDef> g = GraphDefFromText(kText);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTextGraph(*g);
  if (!HaveCapnpTool()) GTEST_SKIP() << "the capnp tool is not installed";
  // Equal graphs (not equal bytes: the tool orders attrs as written and
  // keeps empty-but-present fields).
  StatusOr<GraphDef> via_tool = ParseGraphDef(RunTool("encode", kText));
  ASSERT_TRUE(via_tool.ok());
  EXPECT_TRUE(*via_tool == *g);
}

GraphDef MixedGraph() {
  GraphDef def;
  NodeDef a{"a", "Const", {}, "/device:cpu:0", {}};
  a.attrs["dtype"] = AttrValue::Type(DT_HALF);
  a.attrs["value"] = AttrValue::FromTensor(graph_test::PatternTensor(DT_HALF, {2, 2}, 3));
  a.attrs["b"] = AttrValue::BoolList({true, false});
  a.attrs["s"] = AttrValue::String(std::string("\0\n\"q", 4));
  a.attrs["shapes"] = AttrValue::ShapeList({PartialTensorShape::Unknown(), PartialTensorShape({})});
  a.attrs["ts"] = AttrValue::TensorList({graph_test::PatternTensor(DT_STRING, {3}, 4),
                                         graph_test::PatternTensor(DT_COMPLEX64, {}, 5)});
  a.attrs["f"] = AttrValue::Float(0.1f);
  def.nodes.push_back(a);
  def.nodes.push_back(NodeDef{"b", "Identity", {"a:0", "^a"}, "", {{"T", AttrValue::Type(DT_HALF)}}});
  return def;
}

TEST(GraphDefTextTest, CapnpDecodeOfOurBytesReadsBack) {
  if (!HaveCapnpTool()) GTEST_SKIP() << "the capnp tool is not installed";
  const GraphDef def = MixedGraph();
  const std::string text = RunTool("decode", *SerializeGraphDef(def));
  EXPECT_NE(text.find("name = \"a\""), std::string::npos) << text;
  EXPECT_NE(text.find("inputs = [\"a:0\", \"^a\"]"), std::string::npos) << text;
  // The tool's text, read in-process and by the tool, is the same graph.
  StatusOr<GraphDef> in_process = GraphDefFromText(text);
  ASSERT_TRUE(in_process.ok()) << in_process.status().ToString();
  EXPECT_TRUE(*in_process == def);
  StatusOr<GraphDef> via_tool = ParseGraphDef(RunTool("encode", text));
  ASSERT_TRUE(via_tool.ok()) << via_tool.status().ToString();
  EXPECT_TRUE(*via_tool == def);
  // And our text is the tool's text.
  StatusOr<std::string> ours = GraphDefToText(def);
  ASSERT_TRUE(ours.ok());
  auto trim = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  };
  EXPECT_EQ(trim(*ours), trim(text));
}

TEST(GraphDefTextTest, TextRoundTripIsExact) {
  const GraphDef def = MixedGraph();
  StatusOr<std::string> text = GraphDefToText(def);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  StatusOr<GraphDef> back = GraphDefFromText(*text);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << *text;
  EXPECT_TRUE(*back == def) << *text;
}

TEST(GraphDefTextTest, FloatAttrsSurviveText) {
  // Text prints floats in decimal; every float must read back bit-exactly.
  GraphDef def;
  NodeDef n{"n", "AnyOp", {}, "", {}};
  // (-0.0 is left out: capnp's text parser reads "-0" as +0. It compares
  // equal, so GraphDef == holds, but the sign bit is lost in text form.)
  const float values[] = {0.1f, 1.0f / 3, 3.4028235e38f, 1.17549435e-38f, 1.4e-45f,
                          16777217.0f, 2.7182817f, -1.5e-7f};
  std::vector<float> list(std::begin(values), std::end(values));
  // (Built with +=: GCC 12 warns falsely about "f" + std::to_string(i).)
  auto key = [](size_t i) {
    std::string k = "f";
    k += std::to_string(i);
    return k;
  };
  for (size_t i = 0; i < list.size(); ++i) n.attrs[key(i)] = AttrValue::Float(list[i]);
  n.attrs["fl"] = AttrValue::FloatList(list);
  n.attrs["inf"] = AttrValue::Float(std::numeric_limits<float>::infinity());
  def.nodes.push_back(n);
  StatusOr<std::string> text = GraphDefToText(def);
  ASSERT_TRUE(text.ok());
  StatusOr<GraphDef> back = GraphDefFromText(*text);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << *text;
  for (size_t i = 0; i < list.size(); ++i) {
    const float got = back->nodes[0].attrs.at(key(i)).f();
    EXPECT_EQ(std::memcmp(&got, &list[i], 4), 0) << list[i] << " came back as " << got;
  }
  EXPECT_TRUE(*back == def) << *text;
}

TEST(GraphDefTextTest, BadTextIsAnError) {
  ExpectError(GraphDefFromText("(nodes = [(name = 5)])").status(), Code::kInvalidArgument,
              "GraphDef text does not parse");
  ExpectError(GraphDefFromText("(nodes = [(nosuchfield = 1)])").status(), Code::kInvalidArgument,
              "does not parse");
  ExpectError(GraphDefFromText("(nodes = [").status(), Code::kInvalidArgument, "does not parse");
  // Where, as an editor counts: line and column (capnp gives byte offsets).
  ExpectError(GraphDefFromText("( nodes = [\n  ( name = \"x\", op = \"Neg\", t3pe = 1 ) ] )").status(),
              Code::kInvalidArgument,
              "GraphDef text does not parse: line 2, column 29: Struct has no field named 't3pe'.");
  ExpectError(GraphDefFromText("(nodes = [(nosuchfield = 1)])").status(), Code::kInvalidArgument,
              "does not parse: line 1, column 12: Struct has no field named 'nosuchfield'.");
  ExpectError(GraphDefFromText("(\n\n\n t3pe = 1 )").status(), Code::kInvalidArgument,
              "does not parse: line 4, column 2: Struct has no field named 't3pe'.");
  // Well-formed text, but a value tact cannot hold: the binary checks apply.
  ExpectError(GraphDefFromText("(nodes = [(name = \"n\", attrs = [(name = \"T\", value = (type = 99))])])")
                  .status(),
              Code::kInvalidArgument, "node 0 ('n'): attr 'T': unknown dtype 99");
}

TEST(GraphDefTextTest, DeepNestingIsRefusedBeforeTheParserRecurses) {
  // capnp's own parser overflows the stack on this; ours refuses it.
  const std::string deep = "(version = " + std::string(200000, '(') + "1" +
                           std::string(200000, ')') + ")";
  ExpectError(GraphDefFromText(deep).status(), Code::kInvalidArgument,
              "nests deeper than 64 brackets");
  // Brackets inside strings and comments do not count.
  const std::string quoted = "(nodes = [(name = \"" + std::string(100, '(') + "\\\"[\")])  # " +
                             std::string(100, '[') + "\n";
  StatusOr<GraphDef> g = GraphDefFromText(quoted);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->nodes[0].name, std::string(100, '(') + "\"[");
}

}  // namespace
}  // namespace tact
