#include "graph/tensor_codec.h"

#include <capnp/message.h>
#include <gtest/gtest.h>

#include <random>

#include "tests/graph/graph_test_util.h"

namespace tact {
namespace {

using graph_test::ExpectError;
using graph_test::PatternTensor;

std::vector<DataType> CodableTypes() {
  std::vector<DataType> out;
  for (DataType t : AllDataTypes()) {
    if (t != DT_RESOURCE) out.push_back(t);
  }
  return out;
}

TEST(TensorCodecTest, EveryDtypeAndShapeRoundTripsBitwise) {
  const std::vector<TensorShape> shapes = {{}, {0}, {3, 0, 2}, {7}, {2, 3}, {1, 1, 5}};
  uint32_t seed = 1;
  for (DataType dtype : CodableTypes()) {
    for (const TensorShape& shape : shapes) {
      Tensor t = PatternTensor(dtype, shape, seed++);
      StatusOr<std::string> bytes = SerializeTensor(t);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      StatusOr<Tensor> back = ParseTensor(*bytes);
      ASSERT_TRUE(back.ok()) << DataTypeString(dtype) << shape.DebugString() << ": "
                             << back.status().ToString();
      EXPECT_EQ(back->dtype(), dtype);
      EXPECT_EQ(back->shape(), shape);
      EXPECT_TRUE(back->BitwiseEqual(t)) << t.DebugString() << " vs " << back->DebugString();
      EXPECT_FALSE(back->SharesBufferWith(t));
    }
  }
}

TEST(TensorCodecTest, ProtoFieldsAreTheDocumentedLayout) {
  Tensor t = Tensor::FromVector<int32_t>({1, -2, 3, 4, 5, 6}, TensorShape({2, 3}));
  capnp::MallocMessageBuilder m;
  ASSERT_TRUE(TensorToProto(t, m.initRoot<schema::TensorProto>()).ok());
  auto r = m.getRoot<schema::TensorProto>().asReader();
  EXPECT_EQ(r.getDtype(), 3);  // TensorFlow's DT_INT32
  ASSERT_EQ(r.getShape().size(), 2u);
  EXPECT_EQ(r.getShape()[0], 2);
  EXPECT_EQ(r.getShape()[1], 3);
  ASSERT_EQ(r.getContent().size(), 24u);
  int32_t second;
  std::memcpy(&second, r.getContent().begin() + 4, 4);  // little-endian, row-major
  EXPECT_EQ(second, -2);
  EXPECT_EQ(r.getStringVal().size(), 0u);

  Tensor s = Tensor::FromVector<std::string>({"", std::string("a\0b", 3)});
  capnp::MallocMessageBuilder m2;
  ASSERT_TRUE(TensorToProto(s, m2.initRoot<schema::TensorProto>()).ok());
  auto r2 = m2.getRoot<schema::TensorProto>().asReader();
  EXPECT_EQ(r2.getContent().size(), 0u);
  ASSERT_EQ(r2.getStringVal().size(), 2u);
  EXPECT_EQ(r2.getStringVal()[1].size(), 3u);
}

TEST(TensorCodecTest, A64MiBTensorDecodes) {
  // The traversal limit is relative to the buffer: large honest tensors pass.
  Tensor t(DT_FLOAT, TensorShape({16, 1024, 1024}));
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<float>(i % 1000) - 500.0f;
  StatusOr<std::string> bytes = SerializeTensor(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_GT(bytes->size(), 64u << 20);
  StatusOr<Tensor> back = ParseTensor(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->BitwiseEqual(t));
}

TEST(TensorCodecTest, UnwritableTensorsAreErrorsNotCrashes) {
  ExpectError(SerializeTensor(Tensor()).status(), Code::kInvalidArgument, "uninitialised");
  Tensor resource(DT_RESOURCE, TensorShape({}), nullptr);
  ExpectError(SerializeTensor(resource).status(), Code::kInvalidArgument, "resource");
}

// Builds a TensorProto message by hand and parses it.
template <typename Fill>
Status ParseBuilt(Fill fill) {
  capnp::MallocMessageBuilder m;
  fill(m.initRoot<schema::TensorProto>());
  return ParseTensor(MessageToBytes(m)).status();
}

void SetShape(schema::TensorProto::Builder b, const std::vector<int64_t>& dims) {
  auto l = b.initShape(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) l.set(i, dims[i]);
}

TEST(TensorCodecTest, UnknownDtypesAreRejected) {
  for (int raw : {0, -1, 11, 77, 101, 1 << 30}) {
    Status s = ParseBuilt([&](schema::TensorProto::Builder b) { b.setDtype(raw); });
    ExpectError(s, Code::kInvalidArgument, "unknown dtype " + std::to_string(raw));
  }
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) { b.setDtype(DT_RESOURCE); }),
              Code::kInvalidArgument, "resource");
}

TEST(TensorCodecTest, ContentLengthMustMatchDtypeTimesShape) {
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_FLOAT);
                SetShape(b, {2, 3});
                b.initContent(20);
              }),
              Code::kInvalidArgument, "needs 6 x 4 bytes, the message has 20");
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_COMPLEX128);
                b.initContent(8);  // a scalar needs 16
              }),
              Code::kInvalidArgument, "needs 1 x 16 bytes");
  // No content at all for a non-empty shape.
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_INT64);
                SetShape(b, {4});
              }),
              Code::kInvalidArgument, "the message has 0");
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_STRING);
                SetShape(b, {3});
                b.initStringVal(2);
              }),
              Code::kInvalidArgument, "needs 3 strings, the message has 2");
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_STRING);
                b.initStringVal(1);
                b.initContent(4);
              }),
              Code::kInvalidArgument, "strings go in stringVal");
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_INT8);
                b.initContent(1);
                b.initStringVal(1);
              }),
              Code::kInvalidArgument, "carries 1 strings");
}

TEST(TensorCodecTest, BadShapesAreRejected) {
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_FLOAT);
                SetShape(b, {2, -3});
              }),
              Code::kInvalidArgument, "negative");
  // The element count overflows int64 although each dim is fine.
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_FLOAT);
                SetShape(b, {int64_t{1} << 40, int64_t{1} << 40});
              }),
              Code::kInvalidArgument, "2^63");
  // The count fits but count * 4 bytes does not: must not wrap to a match.
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_FLOAT);
                SetShape(b, {int64_t{1} << 62});
              }),
              Code::kInvalidArgument, "needs 4611686018427387904 x 4 bytes");
  ExpectError(ParseBuilt([](schema::TensorProto::Builder b) {
                b.setDtype(DT_FLOAT);
                SetShape(b, std::vector<int64_t>(kMaxTensorRank + 1, 1));
              }),
              Code::kInvalidArgument, "more than 254");
}

TEST(TensorCodecTest, BoolBytesOtherThanZeroOrOneReadAsTrue) {
  capnp::MallocMessageBuilder m;
  auto b = m.initRoot<schema::TensorProto>();
  b.setDtype(DT_BOOL);
  SetShape(b, {3});
  auto c = b.initContent(3);
  c[0] = 0; c[1] = 2; c[2] = 255;
  StatusOr<Tensor> t = ParseTensor(MessageToBytes(m));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_FALSE(t->data<bool>()[0]);
  EXPECT_TRUE(t->data<bool>()[1]);
  EXPECT_TRUE(t->data<bool>()[2]);
}

TEST(TensorCodecTest, PartialShapes) {
  for (const PartialTensorShape& p :
       {PartialTensorShape::Unknown(), PartialTensorShape({}), PartialTensorShape({-1, 784}),
        PartialTensorShape({0, -1, 3})}) {
    capnp::MallocMessageBuilder m;
    ShapeToProto(p, m.initRoot<schema::TensorShapeProto>());
    StatusOr<PartialTensorShape> back = ShapeFromProto(m.getRoot<schema::TensorShapeProto>());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, p) << p.DebugString();
  }
  capnp::MallocMessageBuilder m;
  auto b = m.initRoot<schema::TensorShapeProto>();
  b.initDims(2).set(1, -2);
  ExpectError(ShapeFromProto(b.asReader()).status(), Code::kInvalidArgument,
              "dimension 1 of shape [0,-2] is -2");
  b.setUnknownRank(true);
  ExpectError(ShapeFromProto(b.asReader()).status(), Code::kInvalidArgument,
              "unknown rank lists 2 dimensions");
}

TEST(TensorCodecTest, TruncatedAndMutatedMessagesNeverCrash) {
  for (DataType dtype : {DT_STRING, DT_COMPLEX64, DT_BOOL}) {
    const std::string good = *SerializeTensor(PatternTensor(dtype, {3, 2}, 9));
    for (size_t len = 0; len < good.size(); len += 8) {
      EXPECT_EQ(ParseTensor(good.substr(0, len)).status().code(), Code::kDataLoss) << len;
    }
    std::mt19937 gen(static_cast<uint32_t>(dtype));
    for (int iter = 0; iter < 2000; ++iter) {
      std::string bad = good;
      bad[gen() % bad.size()] = static_cast<char>(gen());
      StatusOr<Tensor> r = ParseTensor(bad);
      if (r.ok()) {
        EXPECT_TRUE(SerializeTensor(*r).ok());
      } else {
        EXPECT_TRUE(r.status().code() == Code::kDataLoss ||
                    r.status().code() == Code::kInvalidArgument) << r.status().ToString();
      }
    }
  }
}

}  // namespace
}  // namespace tact
