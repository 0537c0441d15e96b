#include "graph/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

namespace tact {
namespace {

TEST(DataTypeTest, EveryPaperTypeHasNameAndSize) {
  struct Case { DataType t; const char* name; size_t size; };
  const Case cases[] = {
      {DT_INT8, "int8", 1},       {DT_INT16, "int16", 2},     {DT_INT32, "int32", 4},
      {DT_INT64, "int64", 8},     {DT_UINT8, "uint8", 1},     {DT_UINT16, "uint16", 2},
      {DT_UINT32, "uint32", 4},   {DT_UINT64, "uint64", 8},   {DT_HALF, "half", 2},
      {DT_BFLOAT16, "bfloat16", 2}, {DT_FLOAT, "float", 4},   {DT_DOUBLE, "double", 8},
      {DT_COMPLEX64, "complex64", 8}, {DT_COMPLEX128, "complex128", 16}, {DT_BOOL, "bool", 1},
      {DT_STRING, "string", 0}};
  for (const Case& c : cases) {
    EXPECT_EQ(DataTypeString(c.t), c.name);
    EXPECT_EQ(DataTypeSize(c.t), c.size) << c.name;
    StatusOr<DataType> back = DataTypeFromString(c.name);
    ASSERT_TRUE(back.ok()) << c.name;
    EXPECT_EQ(*back, c.t);
  }
  EXPECT_EQ(*DataTypeFromString("float16"), DT_HALF);
  EXPECT_EQ(*DataTypeFromString("float_ref"), MakeRefType(DT_FLOAT));
  EXPECT_EQ(DataTypeString(MakeRefType(DT_INT32)), "int32_ref");
  EXPECT_EQ(BaseType(MakeRefType(DT_INT32)), DT_INT32);
  EXPECT_FALSE(DataTypeFromString("float33").ok());
}

TEST(DataTypeTest, HalfAndBfloat16RoundTrip) {
  const float values[] = {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333251953125f};
  for (float v : values) EXPECT_EQ(static_cast<float>(half(v)), v) << v;
  EXPECT_TRUE(std::isinf(static_cast<float>(half(70000.0f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(half(NAN))));
  EXPECT_EQ(half(1.0f).bits, 0x3c00);
  EXPECT_EQ(half(-2.0f).bits, 0xc000);
  // 1 + 2^-11 is halfway between 1 and the next half: ties go to even (1).
  EXPECT_EQ(half(1.0f + 1.0f / 2048).bits, 0x3c00);
  EXPECT_EQ(half(1.0f + 3.0f / 2048).bits, 0x3c02);
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f)), 1.0f);
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(static_cast<float>(bfloat16(3.140625f)), 3.140625f);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(NAN))));
}

TEST(TensorShapeTest, RanksAndCounts) {
  TensorShape scalar;
  EXPECT_EQ(scalar.dims(), 0);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.DebugString(), "[]");
  TensorShape s({2, 3, 4});
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.DebugString(), "[2,3,4]");
  TensorShape empty({3, 0});
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_FALSE(TensorShape::FromDims({2, -1}).ok());
  EXPECT_FALSE(TensorShape::FromDims({1LL << 40, 1LL << 40}).ok());
  PartialTensorShape p({-1, 784});
  EXPECT_EQ(p.DebugString(), "[?,784]");
  EXPECT_TRUE(p.IsCompatibleWith(TensorShape({5, 784})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({5, 783})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({784})));
  EXPECT_TRUE(PartialTensorShape::Unknown().IsCompatibleWith(TensorShape({1, 2, 3})));
}

TEST(TensorTest, CopiesShareTheBuffer) {
  Tensor a(DT_FLOAT, {2, 3});
  for (int i = 0; i < 6; ++i) a.data<float>()[i] = static_cast<float>(i) + 0.5f;
  Tensor b = a;
  EXPECT_TRUE(a.SharesBufferWith(b));
  b.data<float>()[0] = 42.0f;
  EXPECT_EQ(a.data<float>()[0], 42.0f);
  Tensor c = a.DeepCopy();
  EXPECT_FALSE(c.SharesBufferWith(a));
  EXPECT_TRUE(c.BitwiseEqual(a));
  c.data<float>()[1] = -1.0f;
  EXPECT_EQ(a.data<float>()[1], 1.5f);
  StatusOr<Tensor> r = a.Reshaped({3, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->SharesBufferWith(a));
  EXPECT_EQ(r->shape(), TensorShape({3, 2}));
  EXPECT_FALSE(a.Reshaped({4}).ok());
}

TEST(TensorTest, AllocatorCountsBytesAndFreesWithTheLastCopy) {
  Allocator* alloc = CpuAllocator();
  const int64_t before = alloc->GetStats().bytes_in_use;
  {
    Tensor a(alloc, DT_DOUBLE, {100});
    EXPECT_EQ(alloc->GetStats().bytes_in_use, before + 800);
    {
      Tensor b = a;
      EXPECT_EQ(alloc->GetStats().bytes_in_use, before + 800);
    }
    EXPECT_EQ(alloc->GetStats().bytes_in_use, before + 800);
    EXPECT_GE(alloc->GetStats().peak_bytes_in_use, before + 800);
  }
  EXPECT_EQ(alloc->GetStats().bytes_in_use, before);
  Tensor aligned(DT_FLOAT, {3});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned.raw_data()) % Allocator::kAlignment, 0u);
}

TEST(TensorTest, LargeBlocksAreReusedAndStillCounted) {
  auto alloc = NewCpuAllocator();
  void* first;
  {
    Tensor big(alloc.get(), DT_FLOAT, {1 << 20});  // 4 MiB: cached on free
    first = big.raw_data();
    EXPECT_EQ(alloc->GetStats().bytes_in_use, 4 << 20);
  }
  EXPECT_EQ(alloc->GetStats().bytes_in_use, 0);
  // The same size class comes back without a trip to the OS (and its page
  // faults); a slightly smaller tensor shares the class.
  Tensor again(alloc.get(), DT_FLOAT, {(1 << 20) - 100});
  EXPECT_EQ(again.raw_data(), first);
  EXPECT_EQ(alloc->GetStats().bytes_in_use, ((1 << 20) - 100) * 4);
  EXPECT_EQ(alloc->GetStats().peak_bytes_in_use, 4 << 20);
}

TEST(TensorTest, SmallBlocksAreReusedOnTheSameThread) {
  auto alloc = NewCpuAllocator();
  void* first;
  {
    Tensor scalar(alloc.get(), DT_FLOAT, {});
    first = scalar.raw_data();
  }
  Tensor again(alloc.get(), DT_INT32, {10});  // 40 bytes: the same 64-byte class
  EXPECT_EQ(again.raw_data(), first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(again.raw_data()) % Allocator::kAlignment, 0u);
  EXPECT_EQ(alloc->GetStats().bytes_in_use, 40);
  // Freed on another thread: still counted back, still usable memory.
  std::thread([t = again]() mutable { t = Tensor(); }).join();
  again = Tensor();
  EXPECT_EQ(alloc->GetStats().bytes_in_use, 0);
}

TEST(TensorTest, EveryDtypeAllocatesIncludingScalarsAndEmpty) {
  for (DataType t : AllDataTypes()) {
    if (t == DT_RESOURCE) continue;
    Tensor scalar(t, {});
    EXPECT_EQ(scalar.NumElements(), 1) << DataTypeString(t);
    Tensor empty(t, {0, 4});
    EXPECT_EQ(empty.NumElements(), 0) << DataTypeString(t);
    EXPECT_EQ(empty.TotalBytes(), 0u);
  }
  EXPECT_FALSE(Tensor::Allocate(CpuAllocator(), DT_RESOURCE, {}).ok());
}

// Bytes within an allocator's rounding of SIZE_MAX would wrap to a small
// buffer; such a shape is refused before any allocator sees it.
TEST(TensorTest, AShapeNearTheTopOfTheAddressSpaceIsRefused) {
  StatusOr<Tensor> t = Tensor::Allocate(CpuAllocator(), DT_FLOAT, {3, 715827883, 2147483647});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kResourceExhausted);
  EXPECT_NE(t.status().message().find("[3,715827883,2147483647]"), std::string::npos)
      << t.status().ToString();
}

TEST(TensorTest, StringTensors) {
  Tensor s(DT_STRING, {3});
  s.data<std::string>()[0] = "alpha";
  s.data<std::string>()[2] = std::string(1000, 'z');
  EXPECT_EQ(s.data<std::string>()[1], "");
  EXPECT_EQ(s.TotalBytes(), 1005u);
  Tensor copy = s.DeepCopy();
  EXPECT_TRUE(copy.BitwiseEqual(s));
  EXPECT_EQ(copy.DebugString(2), "string [3] \"alpha\" \"\" ...");
  Tensor scalar = Tensor::Scalar<std::string>("hi");
  EXPECT_EQ(scalar.scalar<std::string>(), "hi");
}

TEST(TensorTest, FromVectorAndDebugString) {
  Tensor t = Tensor::FromVector<int32_t>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(t.DebugString(), "int32 [2,2] 1 2 3 4");
  Tensor h = Tensor::Scalar<half>(half(1.5f));
  EXPECT_EQ(h.DebugString(), "half [] 1.5");
  EXPECT_EQ(Tensor().DebugString(), "<uninitialized tensor>");
}

TEST(TensorDeathTest, FromVectorRejectsTooFewOrTooManyValues) {
  // Before, 3 values for 4 elements left one uninitialised, and 5 were cut
  // to 4 without a word.
  EXPECT_DEATH(Tensor::FromVector<float>({1, 2, 3}, TensorShape({2, 2})),
               "FromVector got 3 values for shape \\[2,2\\] \\(4 elements\\)");
  EXPECT_DEATH(Tensor::FromVector<int32_t>({1, 2, 3, 4, 5}, TensorShape({2, 2})), "got 5 values");
  EXPECT_EQ(Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})).data<float>()[3], 4.0f);
}

}  // namespace
}  // namespace tact
