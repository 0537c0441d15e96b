// ParseGraphDef on buffers an attacker or a broken disk could produce: each
// gives DataLoss or InvalidArgument with a message naming what was wrong,
// never a crash, a hang or a huge allocation.
#include <capnp/message.h>
#include <capnp/schema.capnp.h>
#include <capnp/schema.h>
#include <gtest/gtest.h>

#include <random>

#include "graph/graph_def_codec.h"
#include "graph/tensor_codec.h"
#include "schemas/graph.capnp.h"
#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;

GraphDef SmallGraph() {
  GraphDef def;
  NodeDef a{"a", "Const", {}, "/device:cpu:0", {}};
  a.attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  a.attrs["value"] = AttrValue::FromTensor(Tensor::FromVector<float>({1, 2, 3, 4}));
  a.attrs["names"] = AttrValue::StringList({"x", "yy"});
  a.attrs["shape"] = AttrValue::Shape(PartialTensorShape({-1, 4}));
  def.nodes.push_back(a);
  def.nodes.push_back(NodeDef{"b", "Identity", {"a", "^a"}, "", {{"T", AttrValue::Type(DT_FLOAT)}}});
  return def;
}

std::string Bytes(const std::vector<uint64_t>& words) {
  return std::string(reinterpret_cast<const char*>(words.data()), words.size() * 8);
}
// capnp pointer encodings (little-endian words).
uint64_t StructPtr(int32_t offset, uint16_t data_words, uint16_t ptrs) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(offset) << 2)) |
         (static_cast<uint64_t>(data_words) << 32) | (static_cast<uint64_t>(ptrs) << 48);
}
uint64_t ListPtr(int32_t offset, int elem_size, uint32_t count) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(offset) << 2) | 1) |
         (static_cast<uint64_t>((count << 3) | elem_size) << 32);
}
uint64_t SegmentTable(uint32_t words) { return static_cast<uint64_t>(words) << 32; }  // 1 segment

TEST(GraphDefHostileTest, EmptyAndOddLengthBuffers) {
  ExpectError(ParseGraphDef("").status(), Code::kDataLoss, "GraphDef: the buffer is empty");
  const std::string good = *SerializeGraphDef(SmallGraph());
  ExpectError(ParseGraphDef(good + "abc").status(), Code::kDataLoss, "not a whole number of 8-byte");
  ExpectError(ParseGraphDef(std::string(13, '\0')).status(), Code::kDataLoss, "13 bytes");
  ExpectError(ParseGraphDef(good + std::string(8, '\0')).status(), Code::kDataLoss,
              "8 bytes follow the end of the message");
}

TEST(GraphDefHostileTest, EveryTruncationIsDataLoss) {
  const std::string good = *SerializeGraphDef(SmallGraph());
  ASSERT_GT(good.size(), 64u);
  for (size_t len = 0; len < good.size(); len += (len % 8 == 0 ? 3 : 5)) {  // 0,3,8,11,16,...
    Status s = ParseGraphDef(good.substr(0, len)).status();
    EXPECT_EQ(s.code(), Code::kDataLoss) << "prefix " << len << ": " << s.ToString();
    EXPECT_NE(s.message().find("GraphDef"), std::string::npos) << s.message();
  }
}

void ExpectParsesOrFailsCleanly(const std::string& bytes, int* ok_count) {
  StatusOr<GraphDef> g = ParseGraphDef(bytes);
  if (g.ok()) {
    ++*ok_count;
    // Whatever was accepted is a GraphDef tact can hold and write again.
    EXPECT_TRUE(SerializeGraphDef(*g).ok());
  } else {
    EXPECT_TRUE(g.status().code() == Code::kDataLoss ||
                g.status().code() == Code::kInvalidArgument) << g.status().ToString();
    EXPECT_FALSE(g.status().message().empty());
  }
}

TEST(GraphDefHostileTest, RandomBytesNeverCrash) {
  std::mt19937_64 gen(20261202);
  int ok = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    const size_t words = 1 + gen() % 64;
    std::vector<uint64_t> w(words);
    for (uint64_t& x : w) x = gen();
    ExpectParsesOrFailsCleanly(Bytes(w), &ok);
    // The same random body behind a valid segment table reaches the pointers.
    w[0] = SegmentTable(static_cast<uint32_t>(words - 1));
    ExpectParsesOrFailsCleanly(Bytes(w), &ok);
  }
  SUCCEED() << ok << " random buffers happened to parse";
}

TEST(GraphDefHostileTest, MutatedRealMessagesNeverCrash) {
  const std::string good = *SerializeGraphDef(SmallGraph());
  std::mt19937 gen(7);
  int ok = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(gen() % 4);
    for (int f = 0; f < flips; ++f) bad[gen() % bad.size()] = static_cast<char>(gen());
    ExpectParsesOrFailsCleanly(bad, &ok);
  }
  EXPECT_LT(ok, 4000);  // some mutations must have been caught
}

TEST(GraphDefHostileTest, RootPointerPastTheEnd) {
  const std::string bytes = Bytes({SegmentTable(1), StructPtr(1000, 1, 1)});
  ExpectError(ParseGraphDef(bytes).status(), Code::kDataLoss, "out-of-bounds");
}

TEST(GraphDefHostileTest, SegmentTableLies) {
  // Claims 1000 segments; claims a segment far longer than the buffer.
  ExpectError(ParseGraphDef(Bytes({999, 0})).status(), Code::kDataLoss, "malformed");
  ExpectError(ParseGraphDef(Bytes({SegmentTable(1u << 30), 0})).status(), Code::kDataLoss,
              "malformed");
  // A far pointer into a segment that does not exist.
  ExpectError(ParseGraphDef(Bytes({SegmentTable(1), (uint64_t{7} << 32) | 2})).status(),
              Code::kDataLoss, "malformed");
}

TEST(GraphDefHostileTest, ListsClaimingBillionsOfElements) {
  // nodes: an inline-composite list whose words would need 4 GiB.
  ExpectError(ParseGraphDef(Bytes({SegmentTable(4), StructPtr(0, 1, 1), 0,
                                   ListPtr(0, 7, (1u << 29) - 1), 0}))
                  .status(),
              Code::kDataLoss, "malformed");
  // nodes: 2^30 - 1 structs of zero size take no bytes at all; capnp charges
  // each against the traversal limit, which is relative to the buffer size,
  // so this fails at once instead of building a billion NodeDefs.
  const uint64_t tag = StructPtr(0, 0, 0) | (static_cast<uint64_t>((1u << 30) - 1) << 2);
  ExpectError(ParseGraphDef(Bytes({SegmentTable(4), StructPtr(0, 1, 1), 0, ListPtr(0, 7, 0), tag}))
                  .status(),
              Code::kDataLoss, "traversal limit");
  // Fewer zero-sized nodes, within the traversal limit, are still more nodes
  // than the buffer has words: refused before a NodeDef is built.
  const uint64_t tag100 = StructPtr(0, 0, 0) | (uint64_t{100} << 2);
  ExpectError(ParseGraphDef(Bytes({SegmentTable(4), StructPtr(0, 1, 1), 0, ListPtr(0, 7, 0), tag100}))
                  .status(),
              Code::kDataLoss, "GraphDef claims 100 nodes in a message of 5 words");
}

// K NodeDefs whose `inputs` pointers all alias one list of M null Texts: a
// buffer of ~5K+M words that reads as K*M words.
std::string AliasedInputs(uint32_t k, uint32_t m) {
  const uint32_t node_words = 5;  // NodeDef: no data, five pointers
  const uint32_t shared = 4 + node_words * k;  // word index of the shared list
  std::vector<uint64_t> seg = {StructPtr(0, 1, 1), 0, ListPtr(0, 7, node_words * k),
                               StructPtr(0, 0, 5) | (static_cast<uint64_t>(k) << 2)};
  for (uint32_t i = 0; i < k; ++i) {
    for (uint32_t p = 0; p < node_words; ++p) {
      const uint32_t at = static_cast<uint32_t>(seg.size());
      seg.push_back(p == 2 ? ListPtr(static_cast<int32_t>(shared - at - 1), 6, 1) : 0);
    }
  }
  // The shared list: one pointer element pointing at M null-pointer words.
  seg.push_back(ListPtr(0, 6, m));
  for (uint32_t i = 0; i < m; ++i) seg.push_back(0);
  // Every node's inputs points at the list pointer word itself (a list of one
  // pointer would be its own content); rewrite them to share the M-list.
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t at = 4 + node_words * i + 2;
    seg[at] = ListPtr(static_cast<int32_t>(shared + 1 - at - 1), 6, m);
  }
  std::vector<uint64_t> words = {SegmentTable(static_cast<uint32_t>(seg.size()))};
  words.insert(words.end(), seg.begin(), seg.end());
  return Bytes(words);
}

TEST(GraphDefHostileTest, AliasedPointersHitTheTraversalLimit) {
  // The layout is right: a few aliases decode (every node gets M "" inputs).
  StatusOr<GraphDef> few = ParseGraphDef(AliasedInputs(3, 10));
  ASSERT_TRUE(few.ok()) << few.status().ToString();
  ASSERT_EQ(few->nodes.size(), 3u);
  EXPECT_EQ(few->nodes[2].inputs.size(), 10u);
  // 2000 nodes x 2000 inputs from a ~100 KiB buffer: refused.
  ExpectError(ParseGraphDef(AliasedInputs(2000, 2000)).status(), Code::kDataLoss,
              "traversal limit");
}

TEST(GraphDefHostileTest, DeepNestingHitsTheNestingLimit) {
  // Our schemas cannot nest deeper than ~10, so the limit is shown on a
  // recursive schema (capnp's own Type) read through the same reader.
  auto nested = [](int depth) {
    capnp::MallocMessageBuilder m;
    capnp::schema::Type::Builder t = m.initRoot<capnp::schema::Type>();
    for (int i = 0; i < depth; ++i) t = t.initList().initElementType();
    t.setFloat32();
    return MessageToBytes(m);
  };
  auto read = [](const std::string& bytes) {
    return ReadCapnpMessage(bytes, "nested type", [](capnp::MessageReader& r) -> Status {
      capnp::schema::Type::Reader t = r.getRoot<capnp::schema::Type>();
      int depth = 0;
      while (t.isList()) {
        t = t.getList().getElementType();
        ++depth;
      }
      return depth > 0 ? Status::OK() : errors::Internal("not nested");
    });
  };
  EXPECT_TRUE(read(nested(kNestingLimit - 4)).ok());
  ExpectError(read(nested(200)), Code::kDataLoss, "nested type: malformed Cap'n Proto message");
}

// A one-node GraphDef built with the generated builders, then `patch`ed.
template <typename Patch>
Status ParsePatched(Patch patch) {
  capnp::MallocMessageBuilder m;
  auto node = m.initRoot<schema::GraphDef>().initNodes(1)[0];
  node.setName("n");
  node.setOp("Const");
  auto attr = node.initAttrs(1)[0];
  attr.setName("value");
  patch(attr.initValue());
  return ParseGraphDef(MessageToBytes(m)).status();
}

void SetDims(capnp::List<int64_t>::Builder l, const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) l.set(i, dims[i]);
}

TEST(GraphDefHostileTest, UnknownDtypesNameNodeAndAttr) {
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) { v.setType(77); }),
              Code::kInvalidArgument, "node 0 ('n'): attr 'value': unknown dtype 77");
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) { v.initTensor().setDtype(77); }),
              Code::kInvalidArgument, "node 0 ('n'): attr 'value': tensor has unknown dtype 77");
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) {
                auto l = v.initList().initType(2);
                l.set(0, DT_FLOAT);
                l.set(1, -3);
              }),
              Code::kInvalidArgument, "attr 'value': element 1: unknown dtype -3");
}

TEST(GraphDefHostileTest, TensorContentDisagreeingWithShape) {
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) {
                auto t = v.initTensor();
                t.setDtype(DT_DOUBLE);
                SetDims(t.initShape(2), {3, 3});
                t.initContent(64);
              }),
              Code::kInvalidArgument, "attr 'value': double tensor of shape [3,3] needs 9 x 8 bytes");
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) {
                auto list = v.initList().initTensor(2);
                list[0].setDtype(DT_FLOAT);
                list[0].initShape(1).set(0, 0);  // a valid empty tensor first
                auto t = list[1];
                t.setDtype(DT_FLOAT);
                SetDims(t.initShape(2), {2, -1});
              }),
              Code::kInvalidArgument, "element 1: tensor shape [2,-1]: dimension 1 of shape is negative");
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) {
                auto t = v.initTensor();
                t.setDtype(DT_INT8);
                SetDims(t.initShape(3), {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31});
              }),
              Code::kInvalidArgument, "more than 2^63 elements");
}

TEST(GraphDefHostileTest, BadShapeAttrs) {
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) { SetDims(v.initShape().initDims(2), {4, -9}); }),
              Code::kInvalidArgument, "attr 'value': dimension 1 of shape [4,-9] is -9");
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) {
                auto s = v.initShape();
                s.setUnknownRank(true);
                s.initDims(1);
              }),
              Code::kInvalidArgument, "unknown rank lists 1 dimensions");
}

// Writes an out-of-range union discriminant, as a newer or corrupt writer might.
template <typename T>
void SetDiscriminant(typename T::Builder b, uint16_t value) {
  const uint32_t offset = capnp::Schema::from<T>().getProto().getStruct().getDiscriminantOffset();
  capnp::AnyStruct::Builder any(kj::mv(b));
  auto data = any.getDataSection();
  std::memcpy(data.begin() + offset * 2, &value, 2);
}

TEST(GraphDefHostileTest, UnknownUnionKinds) {
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) { SetDiscriminant<schema::AttrValue>(v, 999); }),
              Code::kInvalidArgument, "attr 'value': unknown attr value kind 999");
  ExpectError(ParsePatched([](schema::AttrValue::Builder v) {
                SetDiscriminant<schema::ListValue>(v.initList(), 123);
              }),
              Code::kInvalidArgument, "attr 'value': unknown list kind 123");
}

TEST(GraphDefHostileTest, DuplicateAttrNames) {
  capnp::MallocMessageBuilder m;
  auto node = m.initRoot<schema::GraphDef>().initNodes(2)[1];
  node.setName("dup");
  auto attrs = node.initAttrs(2);
  attrs[0].setName("T");
  attrs[0].initValue().setType(DT_FLOAT);
  attrs[1].setName("T");
  attrs[1].initValue().setType(DT_INT32);
  ExpectError(ParseGraphDef(MessageToBytes(m)).status(), Code::kInvalidArgument,
              "node 1 ('dup'): attr 'T' appears twice");
}

}  // namespace
}  // namespace tact
