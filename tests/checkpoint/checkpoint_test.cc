// The checkpoint store on real HDF5 files: what is saved comes back bit for
// bit, and only committed checkpoints are ever seen.
#include <fstream>

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

using CheckpointTest = CheckpointDirTest;

void ExpectSameVariables(const Variables& want, const Checkpoint& got) {
  ASSERT_EQ(got.variables.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got.variables[i].first, want[i].first);
    EXPECT_TRUE(got.variables[i].second.BitwiseEqual(want[i].second))
        << want[i].first << ": " << got.variables[i].second.DebugString() << " vs "
        << want[i].second.DebugString();
  }
}

TEST_F(CheckpointTest, EveryDtypeRoundTripsBitwise) {
  Variables vars;
  uint32_t seed = 1;
  for (DataType dtype : AllDataTypes()) {
    if (dtype == DT_RESOURCE) continue;
    const std::string name = "types/" + DataTypeString(dtype);
    vars.emplace_back(name + "/matrix", RandomTensor(dtype, {3, 5}, seed++));
    vars.emplace_back(name + "/scalar", RandomTensor(dtype, {}, seed++));
    vars.emplace_back(name + "/empty", RandomTensor(dtype, {0, 4}, seed++));
    vars.emplace_back(name + "/rank4", RandomTensor(dtype, {2, 1, 3, 2}, seed++));
  }
  // Strings with NUL bytes cannot be C strings: they take the byte path.
  vars.emplace_back("strings/binary",
                    Tensor::FromVector<std::string>({std::string("a\0b", 3), "", std::string(1, '\0'),
                                                     "\xff\xfe utf-8? no"}));
  vars.emplace_back("strings/text", Tensor::FromVector<std::string>({"", "hello", "dense_1/kernel"}));
  TACT_ASSERT_OK(Save(dir(), 7, vars));

  StatusOr<Checkpoint> c = ReadCheckpoint(dir(), 7, SpecsOf(vars));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->step, 7);
  ExpectSameVariables(vars, *c);
  EXPECT_TRUE(VerifyCheckpoint(dir(), 7).ok());
}

TEST_F(CheckpointTest, ShardsAreReadTogetherOnceCommitted) {
  const Variables ps0 = {{"layer/w", RandomTensor(DT_FLOAT, {8, 8}, 1)}};
  const Variables ps1 = {{"layer/b", RandomTensor(DT_DOUBLE, {8}, 2)},
                         {"step", Tensor::Scalar<int64_t>(100)}};
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 100, 1, 2, ps1));
  // One shard of two: not a checkpoint, and cannot be committed.
  EXPECT_EQ(CommitCheckpoint(dir(), 100, 2).code(), Code::kNotFound);
  EXPECT_TRUE(ListCheckpoints(dir())->empty());
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 100, 0, 2, ps0));
  EXPECT_TRUE(ListCheckpoints(dir())->empty());  // written, not committed
  TACT_ASSERT_OK(CommitCheckpoint(dir(), 100, 2));
  EXPECT_EQ(*ListCheckpoints(dir()), std::vector<int64_t>{100});

  Variables all = ps0;
  all.insert(all.end(), ps1.begin(), ps1.end());
  StatusOr<Checkpoint> c = ReadCheckpoint(dir(), 100, SpecsOf(all));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ExpectSameVariables(all, *c);
  // A ps task restores its own variables only.
  StatusOr<Checkpoint> mine = ReadCheckpoint(dir(), 100, SpecsOf(ps1), /*allow_other_variables=*/true);
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  ExpectSameVariables(ps1, *mine);

  StatusOr<CheckpointInfo> info = DescribeCheckpoint(dir(), 100);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->shards.size(), 2u);
  EXPECT_EQ(info->shards[1].file, "ckpt-100.shard-1-of-2.h5");
  ASSERT_EQ(info->variables.size(), 3u);
  EXPECT_EQ(info->variables[0].name, "layer/b");
  EXPECT_EQ(info->variables[0].shard, 1);
  EXPECT_EQ(info->variables[0].dtype, DT_DOUBLE);
}

TEST_F(CheckpointTest, ACommittedCheckpointIsNeverRewritten) {
  TACT_ASSERT_OK(Save(dir(), 5, DenseModel(1)));
  EXPECT_EQ(WriteCheckpointShard(dir(), 5, 0, 1, DenseModel(2)).code(), Code::kAlreadyExists);
  ExpectSameVariables(DenseModel(1), *ReadCheckpoint(dir(), 5, SpecsOf(DenseModel(1))));
}

TEST_F(CheckpointTest, LeftoversOfAWriterThatDiedAreInvisible) {
  TACT_ASSERT_OK(Save(dir(), 10, DenseModel(10)));
  // A writer killed mid-file leaves its temporary file; one killed before the
  // commit leaves a whole shard without a manifest; one killed while writing
  // the manifest leaves a temporary manifest.
  std::ofstream(Path(".ckpt-20.shard-0-of-1.h5.tmp-4242-0")) << "half an HDF5 file";
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 30, 0, 1, DenseModel(30)));
  std::ofstream(Path(".ckpt-30.manifest.tmp-4242-1")) << "{\"format\":";
  EXPECT_EQ(*ListCheckpoints(dir()), std::vector<int64_t>{10});
  StatusOr<int64_t> latest = LatestGoodCheckpoint(dir(), SpecsOf(DenseModel(0)));
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(*latest, 10);
  EXPECT_EQ(ReadCheckpoint(dir(), 30, SpecsOf(DenseModel(0))).status().code(), Code::kNotFound);
  // Committing later makes it the latest.
  TACT_ASSERT_OK(CommitCheckpoint(dir(), 30, 1));
  EXPECT_EQ(*LatestGoodCheckpoint(dir(), SpecsOf(DenseModel(0))), 30);
}

TEST_F(CheckpointTest, NoTemporaryFileRemainsAfterWriting) {
  TACT_ASSERT_OK(Save(dir(), 1, DenseModel(1)));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ckpt-1.manifest", "ckpt-1.shard-0-of-1.h5"}));
}

TEST_F(CheckpointTest, PruneKeepsTheNewestK) {
  for (int64_t step : {100, 200, 300, 400, 500}) TACT_ASSERT_OK(Save(dir(), step, DenseModel(step)));
  std::ofstream(Path(".ckpt-150.shard-0-of-1.h5.tmp-4242-0")) << "dead writer";
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 250, 0, 1, DenseModel(1)));  // never committed
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 600, 0, 1, DenseModel(1)));  // being written
  TACT_ASSERT_OK(PruneCheckpoints(dir(), 2));
  EXPECT_EQ(*ListCheckpoints(dir()), (std::vector<int64_t>{400, 500}));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ckpt-400.manifest", "ckpt-400.shard-0-of-1.h5",
                                             "ckpt-500.manifest", "ckpt-500.shard-0-of-1.h5",
                                             "ckpt-600.shard-0-of-1.h5"}));
  ExpectSameVariables(DenseModel(400), *ReadCheckpoint(dir(), 400, SpecsOf(DenseModel(0))));
  EXPECT_EQ(PruneCheckpoints(dir(), 0).code(), Code::kInvalidArgument);
}

TEST_F(CheckpointTest, BadNamesAndArgumentsAreRefused) {
  for (const char* name : {"", "/abs", "a//b", "a/./b", "../up", "trailing/"}) {
    Status s = WriteCheckpointShard(dir(), 1, 0, 1, {{name, Tensor::Scalar<float>(1)}});
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name;
  }
  EXPECT_EQ(WriteCheckpointShard(dir(), 1, 2, 2, DenseModel(1)).code(), Code::kInvalidArgument);
  EXPECT_EQ(ListCheckpoints(Path("no_such_dir")).status().code(), Code::kNotFound);
  EXPECT_EQ(LatestGoodCheckpoint(dir(), {}).status().code(), Code::kNotFound);
  // Nothing above left a file behind.
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

}  // namespace
}  // namespace tact
