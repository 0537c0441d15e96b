// The Fashion-MNIST IDX files, gzipped where Debian installs them, read by
// input ops (FixedLengthRecordReader + DecodeRaw, batched through a
// RandomShuffleQueue) give the images and labels the trainer's own IDX
// loader (apps/train/data/idx.h) gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sys/stat.h>

#include "actors/session.h"
#include "apps/train/data/idx.h"
#include "apps/train/train_options.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

TEST(InputOpsIdxTest, RecordsOfTheIdxFilesAreTheLoadersImagesAndLabels) {
  const std::string dir = apps::kDefaultDataDir;
  const std::string images = dir + "/t10k-images-idx3-ubyte.gz";
  const std::string labels = dir + "/t10k-labels-idx1-ubyte.gz";
  struct stat st;
  if (stat(images.c_str(), &st) != 0) GTEST_SKIP() << images << " is not installed (scripts/setup.sh)";
  auto want = apps::LoadFashionMnist(dir, "t10k");
  ASSERT_TRUE(want.ok()) << want.status().ToString();

  Scope s = Scope::NewRootScope();
  auto image_files = FIFOQueue(s.WithOpName("image_files"), {DT_STRING});
  auto label_files = FIFOQueue(s.WithOpName("label_files"), {DT_STRING});
  QueueEnqueue(s.WithOpName("fill_images"), image_files, {Const(s, Tensor::Scalar<std::string>(images))});
  QueueEnqueue(s.WithOpName("fill_labels"), label_files, {Const(s, Tensor::Scalar<std::string>(labels))});
  auto pixels = ReaderReadUpTo(s, FixedLengthRecordReader(s, 28 * 28, 16), image_files, int64_t{500});
  auto label_bytes = ReaderReadUpTo(s, FixedLengthRecordReader(s, 1, 8), label_files, int64_t{500});
  // pixel * (1/255), as the loader scales them.
  auto x = Mul(s, Cast(s, DecodeRaw(s, pixels.values, DT_UINT8), DT_FLOAT), 1.0f / 255.0f);
  auto y = Cast(s, Reshape(s, DecodeRaw(s, label_bytes.values, DT_UINT8), {-1}), DT_INT32);
  // Examples go through a shuffling queue, as a training pipeline batches them.
  auto shuffle = RandomShuffleQueue(s.WithOpName("examples"), {DT_FLOAT, DT_INT32}, 0, 7,
                                    {PartialTensorShape({784}), PartialTensorShape({})});
  QueueEnqueueMany(s.WithOpName("enqueue"), shuffle, {x, y});
  QueueClose(s.WithOpName("close"), shuffle);
  auto batch = QueueDequeueMany(s, shuffle, 100, {DT_FLOAT, DT_INT32});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"fill_images"}).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"fill_labels"}).ok());
  for (int i = 0; i < 20; ++i) {
    Status st = (*session)->Run({}, {}, {"enqueue"}).status();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  ASSERT_TRUE((*session)->Run({}, {}, {"close"}).ok());
  // Every image of the test set comes out once, with its own label: each
  // (image, label) is matched against the loader's by the image's bytes.
  std::map<std::vector<float>, std::vector<int32_t>> expected;
  const float* all = want->images.data<float>();
  for (int64_t i = 0; i < want->size(); ++i) {
    expected[std::vector<float>(all + i * 784, all + (i + 1) * 784)].push_back(
        want->labels.data<int32_t>()[i]);
  }
  int64_t seen = 0;
  for (int b = 0; b < 100; ++b) {
    auto out = (*session)->Run({}, {batch[0].name(), batch[1].name()}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int64_t i = 0; i < 100; ++i, ++seen) {
      const float* img = (*out)[0].data<float>() + i * 784;
      auto it = expected.find(std::vector<float>(img, img + 784));
      ASSERT_NE(it, expected.end()) << "an image the loader does not have";
      auto& options = it->second;
      auto label = std::find(options.begin(), options.end(), (*out)[1].data<int32_t>()[i]);
      ASSERT_NE(label, options.end()) << "an image with another label than the loader's";
      options.erase(label);
    }
  }
  EXPECT_EQ(seen, 10000);
  auto end = (*session)->Run({}, {batch[0].name()}, {});
  EXPECT_EQ(end.status().code(), Code::kOutOfRange);
}

}  // namespace
}  // namespace tact
