// The tensor links' frames are Cap'n Proto messages (schemas/runtime.capnp,
// LinkFrame) whose tensor bytes are segments of their own: they round-trip
// every shape and size, the bytes on the wire are the tensor's own, and
// the decoder refuses every inconsistency between the segment table, the
// dtype and the shape before it writes a tensor.
#include "actors/link_frame.h"

#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "schemas/runtime.capnp.h"

namespace tact {
namespace {

std::string Wire(const EncodedLinkFrame& f) {
  std::string out;
  for (const iovec& p : f.parts) out.append(static_cast<const char*>(p.iov_base), p.iov_len);
  return out;
}

// Reads one frame out of `bytes`, as a link's reader does from its socket.
Status Decode(const std::string& bytes, DecodedLinkFrame* out, size_t* consumed = nullptr) {
  size_t pos = 0;
  Status s = ReadLinkFrame(
      [&](void* dst, size_t n) {
        if (pos + n > bytes.size()) return false;
        std::memcpy(dst, bytes.data() + pos, n);
        pos += n;
        return true;
      },
      out);
  if (consumed != nullptr) *consumed = pos;
  return s;
}

std::string Encoded(const Tensor& t, const std::string& key = "k", LentBytes lent = {}) {
  auto f = EncodeLinkFrame(42, key, t, lent);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return Wire(**f);
}

TEST(LinkFrameTest, TensorsOfEveryShapeRoundTripAndTheirBytesAreASegmentOfTheirOwn) {
  std::vector<Tensor> tensors = {Tensor::Scalar<float>(2.5f), Tensor(DT_FLOAT, TensorShape({0, 3})),
                                 Tensor::FromVector<int8_t>({1, -2, 3}, {3}), Tensor(DT_DOUBLE, TensorShape({7, 5}))};
  Tensor big(DT_FLOAT, TensorShape({1 << 20}));
  for (int64_t i = 0; i < big.NumElements(); ++i) big.data<float>()[i] = static_cast<float>(i % 1013);
  tensors.push_back(big);
  for (int64_t i = 0; i < 35; ++i) tensors[3].data<double>()[i] = -0.5 * static_cast<double>(i);
  for (const Tensor& t : tensors) {
    auto f = EncodeLinkFrame(42, "w0;w1;edge_9:0", t, {});
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    const std::string wire = Wire(**f);
    if (t.TotalBytes() > kMaxInlineLinkBytes) {
      // The tensor's bytes go from its own buffer, not a copy in the message.
      ASSERT_GE((*f)->parts.size(), 2u);
      EXPECT_EQ((*f)->parts[1].iov_base, t.raw_data());
      EXPECT_EQ((*f)->parts[1].iov_len, t.TotalBytes());
    } else {
      EXPECT_EQ((*f)->parts.size(), 1u) << "a small tensor is inside segment 0";
    }
    // Cap'n Proto's own reader takes the bytes as one message.
    kj::ArrayPtr<const capnp::word> words(reinterpret_cast<const capnp::word*>(wire.data()), wire.size() / 8);
    std::vector<capnp::word> aligned(words.begin(), words.end());
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(aligned.data(), aligned.size()));
    EXPECT_EQ(reader.getEnd(), aligned.data() + aligned.size());
    EXPECT_EQ(reader.getRoot<schema::LinkFrame>().getKey(), "w0;w1;edge_9:0");

    DecodedLinkFrame d;
    size_t consumed = 0;
    ASSERT_TRUE(Decode(wire, &d, &consumed).ok());
    EXPECT_EQ(consumed, wire.size());
    EXPECT_EQ(d.step_id, 42);
    EXPECT_EQ(d.key, "w0;w1;edge_9:0");
    EXPECT_EQ(d.lent.id, 0u);
    EXPECT_TRUE(d.tensor.BitwiseEqual(t)) << t.shape().DebugString();
  }
}

TEST(LinkFrameTest, ALentTensorCarriesWhereItIsAndNoBytes) {
  Tensor t(DT_FLOAT, TensorShape({1000}));
  const std::string wire = Encoded(t, "lent", LentBytes{7, 0x1000, 0x2000});
  EXPECT_LT(wire.size(), 256u) << "no bytes of the tensor";
  DecodedLinkFrame d;
  ASSERT_TRUE(Decode(wire, &d).ok());
  EXPECT_EQ(d.lent.id, 7u);
  EXPECT_EQ(d.lent.address, 0x1000u);
  EXPECT_EQ(d.lent.token_address, 0x2000u);
  EXPECT_EQ(d.tensor.shape(), TensorShape({1000}));
}

TEST(LinkFrameTest, EncodingRefusesWhatNoFrameCanCarry) {
  EXPECT_EQ(EncodeLinkFrame(1, std::string(kMaxLinkKeyBytes + 1, 'k'), Tensor::Scalar<float>(1), {}).status().code(),
            Code::kInvalidArgument);
  std::vector<int64_t> dims(kMaxLinkRank + 1, 1);
  EXPECT_EQ(EncodeLinkFrame(1, "k", Tensor(DT_FLOAT, *TensorShape::FromDims(dims)), {}).status().code(),
            Code::kInvalidArgument);
  auto s = EncodeLinkFrame(1, "k", Tensor(DT_STRING, TensorShape({2})), {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no flat bytes"), std::string::npos) << s.status().ToString();
}

// Every way the table, the dtype and the shape can disagree, each refused
// with what was wrong; a stream that ends is Cancelled.
// A _Send's dead input (control flow) crosses as a frame with no dtype,
// shape or bytes; a frame that says dead and carries one is refused.
TEST(LinkFrameTest, ADeadTensorIsAFrameWithNothingInIt) {
  const std::string dead = Encoded(Tensor(), "a;0;b;edge_3_x;1f:7");
  DecodedLinkFrame d;
  d.tensor = Tensor::Scalar<float>(1);
  ASSERT_TRUE(Decode(dead, &d).ok());
  EXPECT_FALSE(d.tensor.IsInitialized());
  EXPECT_EQ(d.key, "a;0;b;edge_3_x;1f:7");
  EXPECT_EQ(d.step_id, 42);
  uint32_t table[2];
  std::memcpy(table, dead.data(), sizeof table);
  ASSERT_EQ(table[0], 0u) << "segment 0 alone";
  // The data section starts after the one-segment table (8 bytes) and the
  // root pointer (8): stepId, then dtype, then the dead bit.
  std::string with_dtype = dead;
  const uint32_t f32 = static_cast<uint32_t>(DT_FLOAT);
  std::memcpy(&with_dtype[8 + 16], &f32, sizeof f32);
  Status s = Decode(with_dtype, &d);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("is dead but has"), std::string::npos) << s.ToString();
  std::string live = Encoded(Tensor::Scalar<float>(3));
  live[8 + 20] |= 1;  // the dead bit on a frame with a dtype, a shape and bytes
  s = Decode(live, &d);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("is dead but has"), std::string::npos) << s.ToString();
}

TEST(LinkFrameTest, TheDecoderRefusesEveryInconsistency) {
  Tensor t(DT_FLOAT, TensorShape({301}));  // 1204 bytes: 151 words of data
  for (int i = 0; i < 301; ++i) t.data<float>()[i] = static_cast<float>(i);
  const std::string good = Encoded(t);
  uint32_t table[3];
  std::memcpy(table, good.data(), sizeof table);
  ASSERT_EQ(table[0], 1u) << "segment 0 and one data segment";
  ASSERT_EQ(table[2], 151u);
  auto with = [&](size_t offset, uint32_t value) {
    std::string bad = good;
    std::memcpy(&bad[offset], &value, sizeof value);
    return bad;
  };
  auto refused = [&](const std::string& bytes, const std::string& says) {
    DecodedLinkFrame d;
    Status s = Decode(bytes, &d);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find(says), std::string::npos) << s.ToString();
  };
  refused(with(0, 1000), "segments (at most");                  // segment count
  refused(with(4, 0), "segment 0 of 0 words");                  // empty segment 0
  refused(with(4, 1 << 30), "segment 0 of");                    // huge segment 0
  refused(with(8, 3), "data segment 0 has 3 words where its shape and dtype make 151");
  // The root struct's data section starts at word 1 of segment 0 (after
  // the root pointer): stepId, then dtype. The table takes 16 bytes.
  refused(with(16 + 16, 999), "dtype 999 is not carried");
  refused(with(16 + 16, static_cast<uint32_t>(DT_STRING)), "is not carried");
  refused(with(16 + 16, static_cast<uint32_t>(DT_INT8)), "make 0 and 1");  // 301 bytes go inline
  refused(with(16 + 16, static_cast<uint32_t>(DT_DOUBLE)), "151 words where its shape and dtype make 301");
  // A small tensor's chunk inside segment 0 must be exactly its bytes.
  const std::string small = Encoded(Tensor::FromVector<float>({1, 2, 3}, {3}));
  uint32_t small_table[2];
  std::memcpy(small_table, small.data(), sizeof small_table);
  ASSERT_EQ(small_table[0], 0u) << "one segment";
  std::string wrong = small;
  const uint32_t int8 = static_cast<uint32_t>(DT_INT8);
  std::memcpy(&wrong[8 + 16], &int8, sizeof int8);  // one-segment table: 8 bytes
  refused(wrong, "12 bytes inline where its shape and dtype make 3");
  // A data segment more than the shape makes.
  // (Three segments fill the table's 16 bytes without the pad.)
  refused(with(0, 2).replace(12, 4, std::string("\x02\0\0\0", 4)) + std::string(16, '\0'), "2 data segments");

  DecodedLinkFrame d;
  EXPECT_EQ(Decode(good.substr(0, good.size() - 3), &d).code(), Code::kCancelled);
  EXPECT_EQ(Decode("", &d).code(), Code::kCancelled);
}

}  // namespace
}  // namespace tact
