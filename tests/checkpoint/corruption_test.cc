// Damaged and mismatched checkpoints are refused with an error that names
// the file and the variable, and the latest good one is found instead.
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "checkpoint_test_util.h"

namespace tact {
namespace {

using testing::CheckpointDirTest;
using testing::Contains;
using testing::DenseModel;
using testing::RandomTensor;
using testing::Save;
using testing::SpecsOf;
using testing::Variables;

class CorruptionTest : public CheckpointDirTest {
 protected:
  // Where the data of `dataset` starts in the HDF5 file `path`.
  static int64_t DataOffset(const std::string& path, const std::string& dataset) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
    const haddr_t offset = H5Dget_offset(d);
    H5Dclose(d);
    H5Fclose(f);
    return offset == HADDR_UNDEF ? -1 : static_cast<int64_t>(offset);
  }
  static void FlipByte(const std::string& path, int64_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(offset);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(offset);
    f.write(&c, 1);
  }
  // Makes step's manifest one from before the metadata checksum, so that
  // the checks behind it (each variable's checksum, the index checksum)
  // are what finds the damage.
  void DropMetadataChecksums(int64_t step) {
    const std::string path = Path("ckpt-" + std::to_string(step) + ".manifest");
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
    for (nlohmann::json& shard : j["shards"]) {
      ASSERT_TRUE(shard.contains("metadata"));
      shard.erase("metadata");
    }
    std::ofstream(path, std::ios::trunc) << j.dump(1);
  }
  const std::string kShard10 = "ckpt-10.shard-0-of-1.h5";
  const std::string kShard20 = "ckpt-20.shard-0-of-1.h5";
};

TEST_F(CorruptionTest, AFlippedDataByteIsAChecksumErrorNamingTheVariable) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  TACT_ASSERT_OK(Save(dir(), 20, DenseModel(20)));
  const int64_t offset = DataOffset(Path(kShard20), "dense_1/kernel/:value");
  ASSERT_GT(offset, 0);
  FlipByte(Path(kShard20), offset + 5);

  StatusOr<Checkpoint> c = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0)));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(c.status(), "checksum mismatch")) << c.status().ToString();
  EXPECT_TRUE(Contains(c.status(), "'dense_1/kernel'")) << c.status().ToString();
  EXPECT_TRUE(Contains(c.status(), Path(kShard20))) << c.status().ToString();
  EXPECT_FALSE(VerifyCheckpoint(dir(), 20).ok());
  // Describing reads no data, so it cannot tell.
  EXPECT_TRUE(DescribeCheckpoint(dir(), 20).ok());

  // The previous good checkpoint is used, and why the newer was refused kept.
  StatusOr<Checkpoint> good = ReadLatestGoodCheckpoint(dir(), SpecsOf(DenseModel(0)));
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(good->step, 10);
  EXPECT_TRUE(good->variables[0].second.BitwiseEqual(DenseModel(10)[0].second));
  ASSERT_EQ(good->refused.size(), 1u);
  EXPECT_TRUE(Contains(good->refused[0], "dense_1/kernel"));
}

// HDF5 1.10 crashed (SIGSEGV in H5F__accum_read) on shards with a few bytes
// of their metadata changed: every byte is either checked before HDF5 opens
// the file or part of a variable's elements, checked by its checksum.
TEST_F(CorruptionTest, EveryFlippedByteIsFoundAndMetadataBeforeHdf5OpensTheFile) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  TACT_ASSERT_OK(Save(dir(), 20, DenseModel(20)));
  const auto size = static_cast<int64_t>(std::filesystem::file_size(Path(kShard20)));
  int metadata = 0, data = 0;
  for (int64_t offset = 0; offset < size; offset += 41) {
    FlipByte(Path(kShard20), offset);
    Status s = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0))).status();
    EXPECT_EQ(s.code(), Code::kDataLoss) << "byte " << offset << ": " << s.ToString();
    if (Contains(s, "(not opened: HDF5 can crash on damaged metadata)")) {
      ++metadata;
    } else {
      EXPECT_TRUE(Contains(s, "checksum mismatch")) << "byte " << offset << ": " << s.ToString();
      ++data;
    }
    FlipByte(Path(kShard20), offset);  // back as it was
  }
  EXPECT_GT(metadata, 0);
  EXPECT_GT(data, 0);
  TACT_ASSERT_OK(VerifyCheckpoint(dir(), 20));
}

// A manifest from before the metadata checksum is read as before.
TEST_F(CorruptionTest, AManifestWithoutAMetadataChecksumIsStillRead) {
  TACT_ASSERT_OK(Save(dir(), 20, DenseModel(20)));
  DropMetadataChecksums(20);
  StatusOr<Checkpoint> c = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0)));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  for (size_t i = 0; i < c->variables.size(); ++i) {
    EXPECT_TRUE(c->variables[i].second.BitwiseEqual(DenseModel(20)[i].second)) << c->variables[i].first;
  }
}

TEST_F(CorruptionTest, AFlippedStringByteIsFound) {
  const Variables vars = {{"vocab", Tensor::FromVector<std::string>({"alpha", "beta", "gamma"})}};
  TACT_ASSERT_OK(Save(dir(), 10, vars));
  // Variable-length strings live in the global heap, not at the dataset's
  // offset: find "beta" in the file.
  std::ifstream in(Path(kShard10), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const size_t at = bytes.find("beta");
  ASSERT_NE(at, std::string::npos);
  FlipByte(Path(kShard10), at + 1);
  // Strings live among HDF5's metadata (the heap), so the metadata check
  // finds this; behind it, the variable's own checksum.
  Status damaged = ReadCheckpoint(dir(), 10, SpecsOf(vars)).status();
  EXPECT_EQ(damaged.code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(damaged, "is damaged: its HDF5 metadata")) << damaged.ToString();
  DropMetadataChecksums(10);
  Status s = ReadCheckpoint(dir(), 10, SpecsOf(vars)).status();
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(s, "'vocab'")) << s.ToString();
}

TEST_F(CorruptionTest, ATruncatedShardIsRefusedBeforeHdf5ReadsIt) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  TACT_ASSERT_OK(Save(dir(), 20, DenseModel(20)));
  const auto size = std::filesystem::file_size(Path(kShard20));
  std::filesystem::resize_file(Path(kShard20), size / 2);
  Status s = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0))).status();
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(s, "truncated")) << s.ToString();
  EXPECT_TRUE(Contains(s, Path(kShard20))) << s.ToString();
  EXPECT_EQ(*LatestGoodCheckpoint(dir(), SpecsOf(DenseModel(0))), 10);
}

TEST_F(CorruptionTest, ATruncatedShardCannotBeCommitted) {
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 20, 0, 1, DenseModel(20)));
  std::filesystem::resize_file(Path(kShard20), 100);
  Status s = CommitCheckpoint(dir(), 20, 1);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_TRUE(Contains(s, Path(kShard20))) << s.ToString();
  EXPECT_TRUE(ListCheckpoints(dir())->empty());
}

TEST_F(CorruptionTest, AMissingShardIsRefused) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 20, 0, 2, DenseModel(20)));
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 20, 1, 2, {{"other", Tensor::Scalar<float>(2)}}));
  TACT_ASSERT_OK(CommitCheckpoint(dir(), 20, 2));
  std::filesystem::remove(Path("ckpt-20.shard-1-of-2.h5"));
  std::vector<VariableSpec> specs = SpecsOf(DenseModel(0));
  specs.push_back({"other", DT_FLOAT, {}});
  Status s = ReadCheckpoint(dir(), 20, specs).status();
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_TRUE(Contains(s, "ckpt-20.shard-1-of-2.h5")) << s.ToString();
  // Step 10 is intact but lacks "other": of another graph, so nothing to
  // fall back to; both reasons given.
  Status none = ReadLatestGoodCheckpoint(dir(), specs).status();
  EXPECT_EQ(none.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(none, "shard-1-of-2") && Contains(none, "'other'")) << none.ToString();
}

TEST_F(CorruptionTest, ADamagedManifestIsRefused) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  TACT_ASSERT_OK(Save(dir(), 20, DenseModel(20)));
  std::ofstream(Path("ckpt-20.manifest"), std::ios::trunc) << "{\"format\": \"tact-checkpoint-1\", \"st";
  Status s = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0))).status();
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(s, "ckpt-20.manifest")) << s.ToString();
  EXPECT_EQ(*LatestGoodCheckpoint(dir(), SpecsOf(DenseModel(0))), 10);
}

TEST_F(CorruptionTest, MetadataExtentsBeyondTheFileOrOutOfOrderAreADamagedManifest) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  TACT_ASSERT_OK(Save(dir(), 20, DenseModel(20)));
  const std::string path = Path("ckpt-20.manifest");
  std::ifstream in(path);
  const nlohmann::json good = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  const int64_t bytes = good["shards"][0]["bytes"].get<int64_t>();
  const nlohmann::json bad_extents[] = {{{0, bytes + 1}}, {{100, 10}, {50, 10}}, {{-1, 10}}, {{0, 0}}};
  for (const nlohmann::json& extents : bad_extents) {
    nlohmann::json j = good;
    j["shards"][0]["metadata"]["extents"] = extents;
    std::ofstream(path, std::ios::trunc) << j.dump(1);
    Status s = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0))).status();
    EXPECT_EQ(s.code(), Code::kDataLoss) << extents.dump();
    EXPECT_TRUE(Contains(s, "checkpoint manifest '" + path + "' is damaged: metadata extent"))
        << s.ToString();
    EXPECT_EQ(*LatestGoodCheckpoint(dir(), SpecsOf(DenseModel(0))), 10);
  }
}

TEST_F(CorruptionTest, AShardSwappedForAnotherIsRefused) {
  // Same names, other values: the index checksum in the manifest differs.
  TACT_ASSERT_OK(Save(dir(), 20, DenseModel(20)));
  const std::string kept = Path("kept.h5");
  std::filesystem::copy_file(Path(kShard20), kept);
  std::filesystem::remove(Path("ckpt-20.manifest"));
  std::filesystem::remove(Path(kShard20));
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 20, 0, 1, DenseModel(21)));
  TACT_ASSERT_OK(CommitCheckpoint(dir(), 20, 1));
  const auto size = std::filesystem::file_size(Path(kShard20));
  std::filesystem::rename(kept, Path(kShard20));
  ASSERT_EQ(std::filesystem::file_size(Path(kShard20)), size);  // so the size check passes
  // Its checksum attributes differ, so its metadata does; behind that check,
  // the index checksum.
  Status damaged = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0))).status();
  EXPECT_EQ(damaged.code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(damaged, "is damaged: its HDF5 metadata")) << damaged.ToString();
  DropMetadataChecksums(20);
  Status s = ReadCheckpoint(dir(), 20, SpecsOf(DenseModel(0))).status();
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(s, "do not match the manifest")) << s.ToString();
}

TEST_F(CorruptionTest, AMismatchWithTheGraphNamesTheVariable) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  std::vector<VariableSpec> specs = SpecsOf(DenseModel(0));

  auto wrong_dtype = specs;
  wrong_dtype[0].dtype = DT_DOUBLE;
  Status s = ReadCheckpoint(dir(), 10, wrong_dtype).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "'dense_1/kernel'") && Contains(s, "float [4,3]") && Contains(s, "double [4,3]"))
      << s.ToString();
  EXPECT_TRUE(Contains(s, Path(kShard10))) << s.ToString();

  auto wrong_shape = specs;
  wrong_shape[1].shape = TensorShape({4});
  s = ReadCheckpoint(dir(), 10, wrong_shape).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "'dense_1/bias'") && Contains(s, "[4]")) << s.ToString();

  auto missing = specs;
  missing.push_back({"dense_2/kernel", DT_FLOAT, {3, 2}});
  s = ReadCheckpoint(dir(), 10, missing).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "no variable 'dense_2/kernel'")) << s.ToString();

  auto fewer = specs;
  fewer.pop_back();
  s = ReadCheckpoint(dir(), 10, fewer).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "'global_step'") && Contains(s, "does not have")) << s.ToString();
  EXPECT_TRUE(ReadCheckpoint(dir(), 10, fewer, /*allow_other_variables=*/true).ok());

  // Another graph's checkpoint is no damaged one to skip: the directory is
  // not this graph's, though step 10 fits it.
  Variables newer = DenseModel(20);
  newer.push_back({"dense_2/kernel", Tensor::Scalar<float>(1)});
  TACT_ASSERT_OK(Save(dir(), 20, newer));
  const Status other = LatestGoodCheckpoint(dir(), specs).status();
  EXPECT_EQ(other.code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(other, "are not of this graph") && Contains(other, "'dense_2/kernel'"))
      << other.ToString();
}

TEST_F(CorruptionTest, NotAnHdf5FileIsADataLossNamingIt) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  const auto size = std::filesystem::file_size(Path(kShard10));
  {
    std::ofstream f(Path(kShard10), std::ios::trunc | std::ios::binary);
    f << std::string(size, 'x');
  }
  Status s = ReadCheckpoint(dir(), 10, SpecsOf(DenseModel(0))).status();
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(s, Path(kShard10))) << s.ToString();
}

}  // namespace
}  // namespace tact
