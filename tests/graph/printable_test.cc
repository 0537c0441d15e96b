// Names are any UTF-8 text; control bytes and broken UTF-8 are refused in
// a node's name and written as \xNN wherever a message quotes a name.
#include "graph/printable.h"

#include <gtest/gtest.h>

#include "graph/graph.h"
#include "graph/ops/all_ops.h"
#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;

TEST(PrintableTest, TextOfEveryScriptIsPrintable) {
  for (const char* s : {"", "mlp/dense/kernel/Adam_1", "with space/and.dots", "unicod\xc3\xa9",
                        "\xe5\x90\x8d\xe5\x89\x8d", "emoji \xf0\x9f\x98\x80", "back\\slash"}) {
    EXPECT_TRUE(IsPrintableText(s)) << s;
    EXPECT_EQ(Printable(s), s);
  }
}

TEST(PrintableTest, ControlBytesAndBrokenUtf8AreWrittenAsHex) {
  struct Case { std::string in, out; };
  const Case cases[] = {
      {std::string("a\0b", 3), "a\\x00b"},
      {"pix\x1b[31mels\nX", "pix\\x1b[31mels\\x0aX"},
      {"del\x7f", "del\\x7f"},
      {"c1 \xc2\x85", "c1 \\xc2\\x85"},          // NEXT LINE, a C1 control
      {"stray \x80", "stray \\x80"},             // a continuation byte alone
      {"overlong \xc0\xaf", "overlong \\xc0\\xaf"},
      {"overlong \xe0\x80\xaf", "overlong \\xe0\\x80\\xaf"},
      {"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80"},
      {"past U+10FFFF \xf4\x90\x80\x80", "past U+10FFFF \\xf4\\x90\\x80\\x80"},
      {"cut \xe5\x90", "cut \\xe5\\x90"},
      {"\xe5\x90 then \xc3\xa9", "\\xe5\\x90 then \xc3\xa9"},  // text after a bad byte is kept
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(IsPrintableText(c.in)) << c.out;
    EXPECT_EQ(Printable(c.in), c.out);
  }
}

bool HasControlByte(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

GraphDef OneConstReadBy(const std::string& name, const std::string& input) {
  Scope s = Scope::NewRootScope();
  Identity(s.WithOpName("y"), Const(s.WithOpName("c"), Tensor::Scalar<float>(1.0f)));
  GraphDef def = *s.ToGraphDef();
  for (NodeDef& n : def.nodes) {
    if (n.name == "c") n.name = name;
    if (n.name == "y") n.inputs = {input};
  }
  return def;
}

TEST(PrintableTest, ANodeNameWithControlBytesIsRefusedAndShownEscaped) {
  StatusOr<std::unique_ptr<Graph>> g = Graph::FromGraphDef(OneConstReadBy("c\x1b[2J", "c\x1b[2J"));
  ExpectError(g.status(), Code::kInvalidArgument,
              "node 'c\\x1b[2J' (op 'Const'): a node's name must be UTF-8 text without control characters");
  EXPECT_FALSE(HasControlByte(g.status().ToString()));

  // The names TensorFlow users give, in any script, still build.
  EXPECT_TRUE(Graph::FromGraphDef(OneConstReadBy("c \xc3\xa9\xe5\x90\x8d", "c \xc3\xa9\xe5\x90\x8d")).ok());
}

TEST(PrintableTest, EveryMessageThatQuotesAFileNameEscapesIt) {
  ExpectError(Graph::FromGraphDef(OneConstReadBy("c", "c\nd")).status(), Code::kInvalidArgument,
              "node 'y' (op 'Identity'): input 'c\\x0ad' refers to an unknown node");
  ExpectError(Graph::FromGraphDef(OneConstReadBy("c", "c:\x01")).status(), Code::kInvalidArgument,
              "malformed port in input 'c:\\x01'");

  GraphDef bad_op = OneConstReadBy("c", "c");
  bad_op.nodes[1].op = "Ident\xffity";
  ExpectError(Graph::FromGraphDef(bad_op).status(), Code::kNotFound,
              "node 'y' (op 'Ident\\xffity'): op 'Ident\\xffity' is not registered");

  GraphDef bad_attr = OneConstReadBy("c", "c");
  bad_attr.nodes[1].attrs["\x1bT"] = AttrValue::Int(1);
  ExpectError(Graph::FromGraphDef(bad_attr).status(), Code::kInvalidArgument,
              "attr '\\x1bT' is not an attr of op 'Identity'");
}

}  // namespace
}  // namespace tact
