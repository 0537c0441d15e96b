// Lossy float32 transfer (paper 5.5) through partitioned graphs: float32
// crossing the chosen device pairs arrives with its low 16 bits zero;
// everything else arrives exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "graph/ops/all_ops.h"
#include "tests/placement/partition_test_util.h"

namespace tact {
namespace {

using test::Dev;

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Specials (signed zero, denormals, inf, NaN payloads, values that would
// round differently) and seeded random bit patterns.
Tensor Patterns() {
  std::vector<uint32_t> bits = {0x00000000u, 0x80000000u, 0x3f80ffffu, 0x3fffffffu,
                                0x00000001u, 0x807fffffu, 0x7f7fffffu, 0xff800000u,
                                0xffc12345u, 0x7f800001u};
  std::mt19937 gen(3);
  for (int i = 0; i < 1000; ++i) bits.push_back(static_cast<uint32_t>(gen()));
  Tensor t(DT_FLOAT, {static_cast<int64_t>(bits.size())});
  std::memcpy(t.raw_data(), bits.data(), bits.size() * 4);
  return t;
}

struct Fixture {
  Scope s = Scope::NewRootScope();
  Tensor x_value = Patterns();
};

// x (float) and i (int32) on device 0; copies of x on devices 0, 1 and 2,
// of i on device 1, each fetched where it is.
void Build(Fixture* f) {
  Scope& s = f->s;
  auto x = Const(s.WithOpName("x"), f->x_value);
  auto i = Const(s.WithOpName("i"), Tensor::FromVector<int32_t>({-1, 65537}));
  test::Fetch(s, Identity(s.WithOpName("y0"), x), "y0");
  test::Fetch(s, Identity(s.WithOpName("y1"), x), "y1");
  test::Fetch(s, Identity(s.WithOpName("y2"), x), "y2");
  test::Fetch(s, Identity(s.WithOpName("k1"), i), "k1");
  ASSERT_TRUE(s.ok());
  const std::map<std::string, int> where = {{"y1", 1}, {"y1_fetch", 1}, {"y2", 2},
                                            {"y2_fetch", 2}, {"k1", 1}, {"k1_fetch", 1}};
  test::Place(s.graph(), [&](const Node* n) {
    auto it = where.find(n->name());
    return it == where.end() ? 0 : it->second;
  });
}

void ExpectTruncated(const Tensor& got, const Tensor& sent) {
  ASSERT_EQ(got.NumElements(), sent.NumElements());
  for (int64_t j = 0; j < got.NumElements(); ++j) {
    ASSERT_EQ(Bits(got.data<float>()[j]), Bits(sent.data<float>()[j]) & 0xffff0000u) << j;
  }
}

StatusOr<std::vector<Tensor>> RunSplit(const Graph& g, const PartitionOptions& opts,
                                  PartitionResult* parts_out) {
  TACT_ASSIGN_OR_RETURN(PartitionResult parts, Partition(g, opts));
  std::vector<std::unique_ptr<Device>> devices;
  std::map<std::string, Device*> by_name;
  for (int d = 0; d < 3; ++d) {
    devices.push_back(NewCpuDevice(Dev(d), 2));
    by_name[Dev(d)] = devices.back().get();
  }
  TACT_ASSIGN_OR_RETURN(auto run, test::PartitionedRun::Create(parts, by_name));
  *parts_out = std::move(parts);
  return run->Step({"y0", "y1", "y2", "k1"});
}

TEST(LossyTransferTest, EveryPairSendsUpperSixteenBitsOfFloatsOnly) {
  Fixture f;
  Build(&f);
  PartitionOptions opts;
  opts.lossy_float_transfer = true;
  opts.duplicate_const_max_bytes = 0;  // the int32 Const i must cross, not be copied
  PartitionResult parts;
  auto out = RunSplit(*f.s.graph(), opts, &parts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(parts.send_recv_pairs, 3);  // x -> 1, x -> 2, i -> 1
  EXPECT_EQ(parts.lossy_pairs, 2);
  EXPECT_TRUE((*out)[0].BitwiseEqual(f.x_value));  // never left device 0
  ExpectTruncated((*out)[1], f.x_value);
  ExpectTruncated((*out)[2], f.x_value);
  EXPECT_EQ(((*out)[3].data<int32_t>()[1]), 65537);  // int32 is never truncated
  // One truncation on the sender, shared by both destinations; the wire
  // type is bfloat16.
  int truncations = 0;
  for (const NodeDef& n : parts.partitions.at(Dev(0)).nodes) {
    truncations += n.op == "_TruncateToUpper16";
    if (n.op == "_Send" && n.inputs[0] != "i" && !n.attrs.at("client_terminated").b()) {
      EXPECT_EQ(n.attrs.at("T").type(), DT_BFLOAT16);
    }
  }
  EXPECT_EQ(truncations, 1);
  for (int d : {1, 2}) {
    int expansions = 0;
    for (const NodeDef& n : parts.partitions.at(Dev(d)).nodes) {
      expansions += n.op == "_ExpandFromUpper16";
    }
    EXPECT_EQ(expansions, 1) << Dev(d);
  }
}

TEST(LossyTransferTest, OnlyTheListedPairInItsDirection) {
  Fixture f;
  Build(&f);
  PartitionOptions opts;
  opts.lossy_float_transfer_pairs = {{Dev(0), Dev(1)}, {Dev(2), Dev(0)}};
  PartitionResult parts;
  auto out = RunSplit(*f.s.graph(), opts, &parts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(parts.lossy_pairs, 1);
  ExpectTruncated((*out)[1], f.x_value);
  EXPECT_TRUE((*out)[2].BitwiseEqual(f.x_value));  // 0 -> 2 is not listed
}

TEST(LossyTransferTest, NothingIsLossyByDefault) {
  Fixture f;
  Build(&f);
  PartitionResult parts;
  auto out = RunSplit(*f.s.graph(), {}, &parts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(parts.lossy_pairs, 0);
  for (int j = 0; j < 3; ++j) EXPECT_TRUE((*out)[j].BitwiseEqual(f.x_value)) << j;
}

}  // namespace
}  // namespace tact
