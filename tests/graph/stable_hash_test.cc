// The stable hash is XXH3-64 (checked against xxHash's published value for
// empty input), and hex reads as printf and byte order say.
#include "graph/stable_hash.h"

#include <gtest/gtest.h>

#include "graph/hex.h"

namespace tact {
namespace {

TEST(StableHashTest, IsXxh3SixtyFourWithSeedZero) {
  EXPECT_EQ(StableHash(""), 0x2D06800538D394C2ull);
  EXPECT_EQ(StableHash("mlp/dense/kernel"), StableHash(std::string("mlp/dense/kernel")));
  EXPECT_NE(StableHash("a"), StableHash("b"));
}

TEST(HexTest, BytesInOrderAndValuesMostSignificantFirst) {
  const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  EXPECT_EQ(HexEncode(bytes, sizeof bytes), "000fa5ff");
  EXPECT_EQ(HexEncode(bytes, 0), "");
  EXPECT_EQ(HexEncode(uint64_t{0x9e25152f06f70851ull}), "9e25152f06f70851");
  EXPECT_EQ(HexEncode(uint64_t{1}), "0000000000000001");
}

}  // namespace
}  // namespace tact
