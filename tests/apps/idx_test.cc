// apps/idx: gzip IDX files written here with zlib (valid, truncated, with
// a wrong magic, of mismatched counts), the Batcher's order, and the real
// Fashion-MNIST where the machine has it.
#include "apps/train/data/idx.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

namespace tact::apps {
namespace {

namespace fs = std::filesystem;

void PutBigEndian(std::vector<unsigned char>* out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<unsigned char>(v >> s));
}

// An IDX file: magic, sizes, then `data` (possibly shorter than the sizes say).
void WriteGz(const fs::path& path, uint32_t magic, const std::vector<uint32_t>& sizes,
             const std::vector<unsigned char>& data) {
  std::vector<unsigned char> bytes;
  PutBigEndian(&bytes, magic);
  for (uint32_t d : sizes) PutBigEndian(&bytes, d);
  bytes.insert(bytes.end(), data.begin(), data.end());
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

class IdxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tact_idx_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // n images of 2x3 with pixel (i, k) = 10 i + k, and labels i % 10.
  void WriteSplit(const std::string& split, uint32_t n_images, uint32_t n_labels) {
    std::vector<unsigned char> pixels, labels;
    for (uint32_t i = 0; i < n_images; ++i) {
      for (int k = 0; k < 6; ++k) pixels.push_back(static_cast<unsigned char>(10 * i + k));
    }
    for (uint32_t i = 0; i < n_labels; ++i) labels.push_back(static_cast<unsigned char>(i % 10));
    WriteGz(dir_ / (split + "-images-idx3-ubyte.gz"), 0x803, {n_images, 2, 3}, pixels);
    WriteGz(dir_ / (split + "-labels-idx1-ubyte.gz"), 0x801, {n_labels}, labels);
  }

  fs::path dir_;
};

TEST_F(IdxTest, ReadsASmallValidSplit) {
  WriteSplit("train", 4, 4);
  auto d = LoadFashionMnist(dir_.string(), "train");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->images.shape(), TensorShape({4, 2, 3, 1}));
  EXPECT_EQ(d->labels.shape(), TensorShape({4}));
  EXPECT_EQ(d->size(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d->labels.data<int32_t>()[i], i);
    for (int k = 0; k < 6; ++k) {
      EXPECT_FLOAT_EQ(d->images.data<float>()[i * 6 + k], (10 * i + k) / 255.0f);
    }
  }
}

TEST_F(IdxTest, MissingFileIsNotFoundNamingIt) {
  auto d = LoadFashionMnist(dir_.string(), "t10k");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Code::kNotFound);
  EXPECT_NE(d.status().message().find("t10k-images-idx3-ubyte.gz"), std::string::npos)
      << d.status().ToString();
}

TEST_F(IdxTest, WrongMagicNamesTheFile) {
  WriteSplit("train", 2, 2);
  // A labels file where the images should be.
  WriteGz(dir_ / "train-images-idx3-ubyte.gz", 0x801, {2}, {1, 2});
  auto d = LoadFashionMnist(dir_.string(), "train");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Code::kInvalidArgument);
  EXPECT_NE(d.status().message().find("train-images-idx3-ubyte.gz"), std::string::npos)
      << d.status().ToString();
  EXPECT_NE(d.status().message().find("magic number 0x00000801"), std::string::npos)
      << d.status().ToString();
}

TEST_F(IdxTest, TruncatedPixelsNameTheFile) {
  WriteSplit("train", 3, 3);
  WriteGz(dir_ / "train-images-idx3-ubyte.gz", 0x803, {3, 2, 3}, std::vector<unsigned char>(13, 7));
  auto d = LoadFashionMnist(dir_.string(), "train");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("train-images-idx3-ubyte.gz' is truncated: reading the pixels needs 18 "
                                      "bytes, only 13 present"),
            std::string::npos)
      << d.status().ToString();
}

// The pixels are read in parts of 64 KiB: every part lands in its place,
// and a cut in a later part counts the bytes of the whole.
TEST_F(IdxTest, PixelsBeyondOnePartAreReadWholeAndTheirCutCountedWhole) {
  constexpr uint32_t kImages = 12000;  // 72,000 bytes of pixels
  std::vector<unsigned char> pixels(kImages * 6);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>(i * 7 % 251);
  WriteGz(dir_ / "big-images-idx3-ubyte.gz", 0x803, {kImages, 2, 3}, pixels);
  auto images = ReadIdxImages((dir_ / "big-images-idx3-ubyte.gz").string());
  ASSERT_TRUE(images.ok()) << images.status().ToString();
  for (size_t i = 0; i < pixels.size(); ++i) {
    ASSERT_EQ(images->data<float>()[i], pixels[i] * (1.0f / 255.0f)) << i;  // as the reader scales
  }
  pixels.resize(70000);
  WriteGz(dir_ / "cut-images-idx3-ubyte.gz", 0x803, {kImages, 2, 3}, pixels);
  const Status cut = ReadIdxImages((dir_ / "cut-images-idx3-ubyte.gz").string()).status();
  EXPECT_NE(cut.message().find("needs 72000 bytes, only 70000 present"), std::string::npos) << cut.ToString();
}

// A data set larger than the memory left (`ulimit -v`) is ResourceExhausted
// naming the file; it used to end the process with abort().
TEST_F(IdxTest, ADataSetLargerThanTheMemoryLeftIsAnErrorNamingTheFile) {
  // 60,000 28x28 images of zeros: 47 MB of pixels, 188 MB as floats.
  WriteGz(dir_ / "train-images-idx3-ubyte.gz", 0x803, {60000, 28, 28},
          std::vector<unsigned char>(60000 * 28 * 28));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // 64 MB more address space than the process has now.
    std::ifstream status("/proc/self/status");
    std::string line;
    long vm_kb = 0;
    while (std::getline(status, line)) {
      if (line.rfind("VmSize:", 0) == 0) vm_kb = std::stol(line.substr(7));
    }
    const rlimit limit{static_cast<rlim_t>(vm_kb + (64 << 10)) << 10, RLIM_INFINITY};
    if (vm_kb == 0 || setrlimit(RLIMIT_AS, &limit) != 0) _exit(2);
    const Status s = ReadIdxImages((dir_ / "train-images-idx3-ubyte.gz").string()).status();
    const bool named = s.message().find("train-images-idx3-ubyte.gz': allocator 'cpu' could not allocate "
                                        "188160000 bytes") != std::string::npos;
    if (s.code() != Code::kResourceExhausted || !named) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
    }
    _exit(s.code() == Code::kResourceExhausted && named ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no limit set, 1: not the error expected";
}

TEST_F(IdxTest, TruncatedHeaderAndCutGzipStreamAreErrors) {
  const fs::path p = dir_ / "labels.gz";
  WriteGz(p, 0x801, {}, {});
  auto l = ReadIdxLabels(p.string());
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("labels.gz"), std::string::npos) << l.status().ToString();
  // A valid file cut in the middle of its compressed stream.
  std::vector<unsigned char> data(5000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<unsigned char>((i * 7919) % 251 % 10);
  WriteGz(p, 0x801, {5000}, data);
  fs::resize_file(p, fs::file_size(p) / 2);
  l = ReadIdxLabels(p.string());
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), Code::kInvalidArgument);
  EXPECT_NE(l.status().message().find("labels.gz"), std::string::npos) << l.status().ToString();
}

TEST_F(IdxTest, ImagesAndLabelsOfDifferentCountsNameBothFiles) {
  WriteSplit("train", 5, 4);
  auto d = LoadFashionMnist(dir_.string(), "train");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("train-images-idx3-ubyte.gz"), std::string::npos);
  EXPECT_NE(d.status().message().find("train-labels-idx1-ubyte.gz"), std::string::npos);
  EXPECT_NE(d.status().message().find("5 images but 4 labels"), std::string::npos)
      << d.status().ToString();
}

TEST_F(IdxTest, LabelOutsideTheClassesIsAnError) {
  WriteSplit("train", 2, 2);
  WriteGz(dir_ / "train-labels-idx1-ubyte.gz", 0x801, {2}, {3, 12});
  auto d = LoadFashionMnist(dir_.string(), "train");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("label 1 is 12"), std::string::npos) << d.status().ToString();
}

TEST_F(IdxTest, BatcherPermutesDeterministicallyPerEpoch) {
  WriteSplit("train", 23, 23);
  auto d = LoadFashionMnist(dir_.string(), "train");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  Batcher a(*d, 5, 42), b(*d, 5, 42), c(*d, 5, 43);
  EXPECT_EQ(a.batches_per_epoch(), 4);  // 23 / 5, the remainder dropped
  auto p0 = a.Permutation(0);
  std::vector<int64_t> sorted = p0;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 23; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(b.Permutation(0), p0);
  EXPECT_NE(a.Permutation(1), p0);
  EXPECT_NE(c.Permutation(0), p0);
  for (int64_t k = 0; k < a.batches_per_epoch(); ++k) {
    Batch batch = a.Get(0, k);
    ASSERT_EQ(batch.images.shape(), TensorShape({5, 2, 3, 1}));
    for (int r = 0; r < 5; ++r) {
      const int64_t row = p0[k * 5 + r];
      EXPECT_EQ(batch.labels.data<int32_t>()[r], row % 10);
      EXPECT_FLOAT_EQ(batch.images.data<float>()[r * 6 + 1], (10 * row + 1) / 255.0f);
    }
  }
  Batcher eval(*d, 5, 0, /*shuffle=*/false, /*drop_remainder=*/false);
  EXPECT_EQ(eval.batches_per_epoch(), 5);
  Batch last = eval.Get(3, 4);
  ASSERT_EQ(last.labels.NumElements(), 3);
  EXPECT_EQ(last.labels.data<int32_t>()[0], 20 % 10);
}

// Each replica's share is the rows Get's batch has in its place; a
// remainder of fewer rows than replicas is left out.
TEST_F(IdxTest, SharesAreTheBatchsRowsInOrder) {
  WriteSplit("train", 23, 23);
  auto d = LoadFashionMnist(dir_.string(), "train");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  Batcher a(*d, 7, 42), b(*d, 7, 42);
  for (int64_t k = 0; k < a.batches_per_epoch(); ++k) {
    const Batch whole = a.Get(1, k);
    const std::vector<Batch> shares = b.GetShares(1, k, 2);
    ASSERT_EQ(shares.size(), 2u);
    for (int64_t p = 0; p < 2; ++p) {
      ASSERT_EQ(shares[p].images.shape(), TensorShape({3, 2, 3, 1}));  // 7 / 2, the last row left out
      for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(shares[p].labels.data<int32_t>()[r], whole.labels.data<int32_t>()[p * 3 + r]);
        for (int px = 0; px < 6; ++px) {
          EXPECT_EQ(shares[p].images.data<float>()[r * 6 + px], whole.images.data<float>()[(p * 3 + r) * 6 + px]);
        }
      }
    }
  }
}

TEST(FashionMnistTest, LoadsTheRealDataset) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  if (!fs::exists(dir + "/train-images-idx3-ubyte.gz")) GTEST_SKIP() << dir << " is not here";
  for (auto [split, n] : {std::pair<const char*, int64_t>{"train", 60000}, {"t10k", 10000}}) {
    auto d = LoadFashionMnist(dir, split);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->images.shape(), TensorShape({n, 28, 28, 1}));
    EXPECT_EQ(d->labels.NumElements(), n);
    std::set<int32_t> classes;
    for (int64_t i = 0; i < n; ++i) classes.insert(d->labels.data<int32_t>()[i]);
    EXPECT_EQ(classes.size(), 10u);
    EXPECT_EQ(*classes.begin(), 0);
    EXPECT_EQ(*classes.rbegin(), 9);
    const float* px = d->images.data<float>();
    auto [lo, hi] = std::minmax_element(px, px + d->images.NumElements());
    EXPECT_EQ(*lo, 0.0f);
    EXPECT_EQ(*hi, 1.0f);
  }
}

}  // namespace
}  // namespace tact::apps
