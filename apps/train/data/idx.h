// Reading IDX files (the MNIST / Fashion-MNIST format), gzip-compressed or
// not, into Tensors, and a deterministic shuffling batcher over them.
//
//   auto train = LoadFashionMnist("/usr/share/datasets/fashion-mnist", "train");
//   if (!train.ok()) return train.status();      // names the bad file
//   Batcher batches(*train, /*batch_size=*/64, /*seed=*/1);
//   for (int64_t b = 0; b < batches.batches_per_epoch(); ++b) {
//     Batch batch = batches.Get(/*epoch=*/0, b);  // images [64,28,28,1], labels [64]
//   }
//
// IDX: a big-endian header (magic 0x0000080N with N the number of
// dimensions, then N uint32 sizes) followed by the uint8 elements. Reading
// goes through zlib's gzread, which also passes plain files through.
// Every error (missing file, bad magic, truncated data, images and labels of
// different counts) is an InvalidArgument or NotFound naming the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/status.h"
#include "graph/tensor.h"

namespace tact::apps {

struct Dataset {
  Tensor images;  // float [N, rows, cols, 1] in [0, 1]
  Tensor labels;  // int32 [N]
  int64_t size() const { return labels.IsInitialized() ? labels.NumElements() : 0; }
};

// An idx3 file (magic 0x00000803) as float [N, rows, cols, 1], pixel / 255.
StatusOr<Tensor> ReadIdxImages(const std::string& path);
// An idx1 file (magic 0x00000801) as int32 [N].
StatusOr<Tensor> ReadIdxLabels(const std::string& path);

// "<dir>/<split>-images-idx3-ubyte.gz" and "<dir>/<split>-labels-idx1-ubyte.gz"
// with split "train" or "t10k"; labels must lie in 0..9.
StatusOr<Dataset> LoadFashionMnist(const std::string& dir, const std::string& split);

struct Batch {
  Tensor images;  // float [B, rows, cols, 1]
  Tensor labels;  // int32 [B]
};

// Batches of a Dataset in an order that is a pure function of (seed,
// epoch): each epoch is a fresh permutation (Fisher-Yates on
// std::mt19937_64, whose output the standard fixes), the same on every
// platform and run. Not thread-safe (it caches the current epoch's order).
class Batcher {
 public:
  // batch_size >= 1. drop_remainder: the last partial batch of an epoch is
  // left out (fixed shapes for training); otherwise it is returned short.
  // shuffle = false keeps the dataset's order (evaluation).
  Batcher(Dataset data, int64_t batch_size, uint64_t seed, bool shuffle = true,
          bool drop_remainder = true);

  int64_t batches_per_epoch() const;
  // Batch `index` (0 <= index < batches_per_epoch()) of epoch `epoch`.
  Batch Get(int64_t epoch, int64_t index);
  // The same batch as `parts` equal shares, gathered straight into a tensor
  // each (one model replica's feed apiece): share k holds rows
  // [k*n, (k+1)*n) of Get's batch, n = its size / parts, and a remainder
  // of fewer than `parts` rows is left out. parts >= 1.
  std::vector<Batch> GetShares(int64_t epoch, int64_t index, int64_t parts);
  // The order of epoch `epoch`: a permutation of [0, N).
  std::vector<int64_t> Permutation(int64_t epoch) const;

 private:
  Dataset data_;
  int64_t batch_size_;
  uint64_t seed_;
  bool shuffle_;
  bool drop_remainder_;
  int64_t cached_epoch_ = -1;
  std::vector<int64_t> order_;
};

}  // namespace tact::apps
