#include "graph/npy.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

namespace tact {
namespace {

// The bytes NumPy 1.x writes for np.save(f, np.array([[1, 2, 3]], dtype='<i4')).
std::string NumpyInt32Matrix() {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 3), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size());
  out += '\0';
  out += header;
  const int32_t v[] = {1, 2, 3};
  out.append(reinterpret_cast<const char*>(v), sizeof(v));
  return out;
}

TEST(NpyTest, ReadsWhatNumpyWrites) {
  auto t = ParseNpy(NumpyInt32Matrix());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), DT_INT32);
  EXPECT_EQ(t->shape(), TensorShape({1, 3}));
  EXPECT_EQ(t->data<int32_t>()[2], 3);
  // Our writer produces the same bytes as NumPy for this array.
  auto again = SerializeNpy(*t);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, NumpyInt32Matrix());
}

TEST(NpyTest, EveryNumericDtypeRoundTripsIncludingScalarsAndEmpty) {
  std::mt19937 gen(5);
  for (DataType dtype : AllDataTypes()) {
    if (dtype == DT_STRING || dtype == DT_RESOURCE || dtype == DT_BFLOAT16) continue;
    for (const TensorShape& shape : {TensorShape({}), TensorShape({7}), TensorShape({2, 0, 3}),
                                     TensorShape({3, 4, 5})}) {
      Tensor t(dtype, shape);
      auto* bytes = static_cast<uint8_t*>(t.raw_data());
      for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] = static_cast<uint8_t>(gen());
      if (dtype == DT_BOOL) {
        for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] &= 1;
      }
      auto s = SerializeNpy(t);
      ASSERT_TRUE(s.ok()) << DataTypeString(dtype);
      EXPECT_EQ((s->size() - t.TotalBytes()) % 64, 0u) << "data must start 64-aligned";
      auto back = ParseNpy(*s);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_TRUE(back->BitwiseEqual(t)) << DataTypeString(dtype) << " " << shape.DebugString();
    }
  }
}

TEST(NpyTest, FilesRoundTripAndMissingFilesAreNamed) {
  const std::string path = ::testing::TempDir() + "/tact_npy_test.npy";
  Tensor t = Tensor::FromVector<double>({1.5, -2.25, 1e300}, {3});
  ASSERT_TRUE(WriteNpyFile(path, t).ok());
  auto back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->BitwiseEqual(t));
  std::remove(path.c_str());
  auto missing = ReadNpyFile(path);
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find(path), std::string::npos);
}

// Caps this process's address space at what it has mapped now plus
// `more` bytes: an allocation beyond fails. (Peak resident memory cannot
// tell: the allocator hands back pages it kept resident from earlier.)
void AllowOnly(int64_t more) {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  statm >> pages;
  const rlim_t limit = static_cast<rlim_t>(pages * sysconf(_SC_PAGESIZE) + more);
  const struct rlimit r = {limit, limit};
  setrlimit(RLIMIT_AS, &r);
}

// A fetch is written from the tensor's own bytes: `tact run` copied a 4 GiB
// fetch into memory first and died with std::bad_alloc. A child process
// writes 128 MiB with 32 MiB of address space to spare.
TEST(NpyTest, WritingALargeTensorCopiesNoneOfIt) {
  const std::string path = ::testing::TempDir() + "/tact_npy_large_" + std::to_string(::getpid()) + ".npy";
  constexpr int64_t kElements = int64_t{32} << 20;  // 128 MiB of float
  auto filled = [] {
    Tensor t(DT_FLOAT, {kElements});
    float* p = t.data<float>();
    for (int64_t i = 0; i < kElements; ++i) p[i] = static_cast<float>(i % 1000);
    return t;
  };
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const Tensor t = filled();
    AllowOnly(int64_t{32} << 20);
    std::_Exit(WriteNpyFile(path, t).ok() ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the write failed";
  auto back = ReadNpyFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->BitwiseEqual(filled()));
}

// A write that fails part way (here past the file size limit, as on a full
// disk) is an error with the reason, and leaves no truncated file behind.
TEST(NpyTest, AWriteThatFailsLeavesNoPartOfTheFile) {
  const std::string path = ::testing::TempDir() + "/tact_npy_cut_" + std::to_string(::getpid()) + ".npy";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
    const rlimit limit{1 << 20, 1 << 20};
    setrlimit(RLIMIT_FSIZE, &limit);
    const Status s = WriteNpyFile(path, Tensor(DT_FLOAT, {1 << 19}));  // 2 MiB
    const bool said = s.code() == Code::kDataLoss &&
                      s.message().find("writing '" + path + "' failed: File too large") != std::string::npos;
    if (!said) std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::_Exit(!said ? 1 : ::access(path.c_str(), F_OK) == 0 ? 2 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: not the error expected, 2: a part of the file was left";
  std::remove(path.c_str());
}

// A feed is read into its tensor straight from the file: it was read into a
// string, copied, then copied into the tensor (three times its size). A
// child process reads 128 MiB with 160 MiB of address space to spare.
TEST(NpyTest, ReadingALargeFileHoldsItOnce) {
  const std::string path = ::testing::TempDir() + "/tact_npy_read_" + std::to_string(::getpid()) + ".npy";
  constexpr int64_t kElements = int64_t{32} << 20;  // 128 MiB of float
  {
    Tensor t(DT_FLOAT, {kElements});
    float* p = t.data<float>();
    for (int64_t i = 0; i < kElements; ++i) p[i] = static_cast<float>(i % 997);
    ASSERT_TRUE(WriteNpyFile(path, t).ok());
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    AllowOnly(int64_t{160} << 20);
    StatusOr<Tensor> t = ReadNpyFile(path);
    const bool right = t.ok() && t->NumElements() == kElements &&
                       t->data<float>()[kElements - 1] == static_cast<float>((kElements - 1) % 997);
    std::_Exit(right ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  std::remove(path.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the read failed or read wrong";
}

// The file reader checks as ParseNpy does: a short file, a header longer
// than the file, data cut short.
TEST(NpyTest, MalformedFilesOnDiskAreClearErrors) {
  const std::string path = ::testing::TempDir() + "/tact_npy_bad_" + std::to_string(::getpid()) + ".npy";
  const std::string good = NumpyInt32Matrix();
  auto read_as = [&](const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return ReadNpyFile(path).status();
  };
  Status s = read_as(good.substr(0, 5));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("not a .npy file (bad magic)"), std::string::npos) << s.ToString();
  s = read_as(good.substr(0, 40));
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_NE(s.message().find("truncated header"), std::string::npos) << s.ToString();
  s = read_as(good.substr(0, good.size() - 1));
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_NE(s.message().find("needs 12 bytes of data, the file has 11"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  std::remove(path.c_str());
}

struct Case { std::string bytes; const char* message; };

TEST(NpyTest, MalformedFilesAreClearErrors) {
  const std::string good = NumpyInt32Matrix();
  std::string big_endian = good;
  big_endian.replace(big_endian.find("<i4"), 3, ">i4");
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  std::string object = good;
  object.replace(object.find("<i4"), 3, "|O8");
  std::string bad_dim = good;
  bad_dim.replace(bad_dim.find("(1, 3)"), 6, "(1, x)");
  std::string too_big = good;
  too_big.replace(too_big.find("(1, 3)"), 6, "(9, 9)");
  std::string escape_dtype = good;  // bytes a terminal would act on are shown, not sent
  escape_dtype.replace(escape_dtype.find("<i4"), 3, "\x1b[H");
  std::string newline_dim = good;
  newline_dim.replace(newline_dim.find("(1, 3)"), 6, "(1,\n3)");
  const Case cases[] = {
      {"", "bad magic"},
      {"hello world, not numpy", "bad magic"},
      {good.substr(0, 30), "truncated header"},
      {good.substr(0, good.size() - 1), "needs 12 bytes of data, the file has 11"},
      {big_endian, "unsupported dtype '>i4'"},
      {fortran, "Fortran-order"},
      {object, "unsupported dtype"},
      {bad_dim, "malformed dimension 'x'"},
      {too_big, "needs 324 bytes"},
      {escape_dtype, "unsupported dtype '\\x1b[H'"},
      {newline_dim, "malformed dimension '\\x0a3' in shape (1,\\x0a3)"},
  };
  for (const Case& c : cases) {
    auto t = ParseNpy(c.bytes, "'in.npy'");
    ASSERT_FALSE(t.ok()) << c.message;
    EXPECT_NE(t.status().message().find(c.message), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("'in.npy'"), std::string::npos) << t.status().message();
  }
  EXPECT_FALSE(SerializeNpy(Tensor(DT_BFLOAT16, {2})).ok());
  EXPECT_FALSE(HasNpyForm(DT_BFLOAT16));
  EXPECT_FALSE(HasNpyForm(DT_RESOURCE));
}

// The bytes NumPy writes for an array of dtype `descr` and shape (n,) with
// `data` as its elements' bytes.
std::string NumpyVector(const std::string& descr, int n, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(n) + ",), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size());
  out += '\0';
  return out + header + data;
}

// np.array([b'ab\0c', b'', b'xyz']) is '|S4': each string NUL-padded to 4
// bytes; np.array(['h\u00e9', '\U0001f642']) is '<U2': UTF-32 code points.
TEST(NpyTest, ReadsNumpyBytesAndUnicodeStrings) {
  auto bytes = ParseNpy(NumpyVector("|S4", 3, std::string("ab\0c\0\0\0\0xyz\0", 12)));
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  ASSERT_EQ(bytes->dtype(), DT_STRING);
  EXPECT_EQ(bytes->data<std::string>()[0], std::string("ab\0c", 4)) << "inner NULs are kept";
  EXPECT_EQ(bytes->data<std::string>()[1], "");
  EXPECT_EQ(bytes->data<std::string>()[2], "xyz") << "trailing NULs are padding";

  const uint32_t code_points[] = {'h', 0xe9, 0x1f642, 0};
  auto unicode = ParseNpy(NumpyVector("<U2", 2, std::string(reinterpret_cast<const char*>(code_points), 16)));
  ASSERT_TRUE(unicode.ok()) << unicode.status().ToString();
  EXPECT_EQ(unicode->data<std::string>()[0], "h\xc3\xa9");
  EXPECT_EQ(unicode->data<std::string>()[1], "\xf0\x9f\x99\x82");

  // What tact writes is what NumPy writes for the same strings.
  auto again = SerializeNpy(*bytes);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, NumpyVector("|S4", 3, std::string("ab\0c\0\0\0\0xyz\0", 12)));
  auto empty = SerializeNpy(Tensor(DT_STRING, {2}));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, NumpyVector("|S1", 2, std::string(2, '\0'))) << "NumPy's narrowest is S1";

  const uint32_t surrogate[] = {0xd800};
  const Case bad[] = {
      {NumpyVector("<U1", 1, std::string(reinterpret_cast<const char*>(surrogate), 4)),
       "element 0 holds 55296, which is not a Unicode code point"},
      {NumpyVector("|S0", 1, ""), "unsupported dtype '|S0'"},
      {NumpyVector("|S4", 3, "abcd"), "needs 12 bytes of data, the file has 4"},
      {NumpyVector("<U99999999", 3, "abcd"), "needs 1199999988 bytes"},
  };
  for (const Case& c : bad) {
    auto t = ParseNpy(c.bytes, "'s.npy'");
    ASSERT_FALSE(t.ok()) << c.message;
    EXPECT_NE(t.status().message().find(c.message), std::string::npos) << t.status().message();
  }
}

}  // namespace
}  // namespace tact
