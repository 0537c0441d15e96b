#include "apps/train/data/idx.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

namespace tact::apps {
namespace {

constexpr int kImageDims = 3;
constexpr int kLabelDims = 1;
// A bound on any dimension, so a corrupt header cannot ask for terabytes.
constexpr uint32_t kMaxDim = 1u << 24;

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads exactly n bytes; InvalidArgument naming the file and `what` if the
// stream ends early or is corrupt. Where `what` is read in parts, `before`
// bytes of it came before these and it has `whole` in all.
Status ReadExactly(gzFile f, const std::string& path, const char* what, void* out, size_t n,
                   size_t before = 0, size_t whole = 0) {
  size_t done = 0;
  auto* p = static_cast<unsigned char*>(out);
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    const int got = gzread(f, p + done, chunk);
    if (got < 0) {
      int err = 0;
      const char* msg = gzerror(f, &err);
      return errors::InvalidArgument("IDX file '", path, "': corrupt gzip data reading ", what,
                                     ": ", msg ? msg : "unknown error");
    }
    if (got == 0) {
      return errors::InvalidArgument("IDX file '", path, "' is truncated: reading ", what, " needs ",
                                     std::max(whole, n), " bytes, only ", before + done, " present");
    }
    done += static_cast<size_t>(got);
  }
  return Status::OK();
}

uint32_t BigEndian(const unsigned char* b) {
  return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | uint32_t(b[3]);
}

// Opens `path`, checks the magic for `dims` dimensions of uint8, and returns
// the sizes; the stream is left at the first element.
StatusOr<std::vector<int64_t>> OpenIdx(const std::string& path, int dims, GzFile* file) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errors::NotFound("IDX file '", path, "' does not exist");
  file->reset(gzopen(path.c_str(), "rb"));
  if (!*file) return errors::NotFound("cannot open IDX file '", path, "': ", std::strerror(errno));
  unsigned char magic[4];
  TACT_RETURN_IF_ERROR(ReadExactly(file->get(), path, "the magic number", magic, 4));
  const uint32_t want = 0x00000800u | uint32_t(dims);
  if (BigEndian(magic) != want) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%08x", BigEndian(magic));
    char wbuf[16];
    std::snprintf(wbuf, sizeof(wbuf), "0x%08x", want);
    return errors::InvalidArgument("IDX file '", path, "' has magic number ", buf, ", expected ",
                                   wbuf, " (uint8 with ", dims, " dimensions)");
  }
  std::vector<int64_t> sizes(dims);
  for (int i = 0; i < dims; ++i) {
    unsigned char b[4];
    TACT_RETURN_IF_ERROR(ReadExactly(file->get(), path, "the header", b, 4));
    const uint32_t d = BigEndian(b);
    if (d > kMaxDim || (i > 0 && d == 0)) {
      return errors::InvalidArgument("IDX file '", path, "' has an implausible dimension ", i,
                                     " of size ", d);
    }
    sizes[i] = d;
  }
  return sizes;
}

}  // namespace

StatusOr<Tensor> ReadIdxImages(const std::string& path) {
  GzFile f;
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, OpenIdx(path, kImageDims, &f));
  const int64_t n = sizes[0], rows = sizes[1], cols = sizes[2];
  // Out of memory is an error naming the file, not an abort (`ulimit -v`).
  StatusOr<Tensor> images = Tensor::Allocate(CpuAllocator(), DT_FLOAT, TensorShape({n, rows, cols, 1}));
  if (!images.ok()) return images.status().WithPrefix("IDX file '" + path + "': ");
  // The pixels pass through a small buffer: a copy of all of them held the
  // data set a second time.
  float* out = images->data<float>();
  unsigned char pixels[1 << 16];
  for (int64_t done = 0, total = images->NumElements(); done < total;) {
    const int64_t chunk = std::min<int64_t>(total - done, sizeof(pixels));
    TACT_RETURN_IF_ERROR(ReadExactly(f.get(), path, "the pixels", pixels, static_cast<size_t>(chunk),
                                     static_cast<size_t>(done), static_cast<size_t>(total)));
    for (int64_t i = 0; i < chunk; ++i) out[done + i] = pixels[i] * (1.0f / 255.0f);
    done += chunk;
  }
  return images;
}

StatusOr<Tensor> ReadIdxLabels(const std::string& path) {
  GzFile f;
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, OpenIdx(path, kLabelDims, &f));
  std::vector<unsigned char> bytes(static_cast<size_t>(sizes[0]));
  TACT_RETURN_IF_ERROR(ReadExactly(f.get(), path, "the labels", bytes.data(), bytes.size()));
  StatusOr<Tensor> labels = Tensor::Allocate(CpuAllocator(), DT_INT32, TensorShape({sizes[0]}));
  if (!labels.ok()) return labels.status().WithPrefix("IDX file '" + path + "': ");
  for (size_t i = 0; i < bytes.size(); ++i) labels->data<int32_t>()[i] = bytes[i];
  return labels;
}

StatusOr<Dataset> LoadFashionMnist(const std::string& dir, const std::string& split) {
  if (split != "train" && split != "t10k") {
    return errors::InvalidArgument("Fashion-MNIST split must be 'train' or 't10k', got '", split,
                                   "'");
  }
  const std::string images_path = dir + "/" + split + "-images-idx3-ubyte.gz";
  const std::string labels_path = dir + "/" + split + "-labels-idx1-ubyte.gz";
  Dataset d;
  TACT_ASSIGN_OR_RETURN(d.images, ReadIdxImages(images_path));
  TACT_ASSIGN_OR_RETURN(d.labels, ReadIdxLabels(labels_path));
  if (d.images.dim_size(0) != d.labels.NumElements()) {
    return errors::InvalidArgument("IDX files '", images_path, "' and '", labels_path,
                                   "' disagree: ", d.images.dim_size(0), " images but ",
                                   d.labels.NumElements(), " labels");
  }
  for (int64_t i = 0; i < d.labels.NumElements(); ++i) {
    const int32_t l = d.labels.data<int32_t>()[i];
    if (l < 0 || l > 9) {
      return errors::InvalidArgument("IDX file '", labels_path, "': label ", i, " is ", l,
                                     ", outside 0..9");
    }
  }
  return d;
}

Batcher::Batcher(Dataset data, int64_t batch_size, uint64_t seed, bool shuffle, bool drop_remainder)
    : data_(std::move(data)),
      batch_size_(std::max<int64_t>(1, batch_size)),
      seed_(seed),
      shuffle_(shuffle),
      drop_remainder_(drop_remainder) {}

int64_t Batcher::batches_per_epoch() const {
  const int64_t n = data_.size();
  return drop_remainder_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

std::vector<int64_t> Batcher::Permutation(int64_t epoch) const {
  std::vector<int64_t> order(data_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  if (!shuffle_) return order;
  // One generator per epoch, keyed by (seed, epoch) through splitmix64 so
  // neighbouring seeds and epochs give unrelated streams.
  uint64_t z = seed_ + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(epoch + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  std::mt19937_64 rng(z ^ (z >> 31));
  // Fisher-Yates with a multiply-shift draw in [0, i]: std::shuffle and
  // std::uniform_int_distribution differ between standard libraries.
  for (size_t i = order.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>((static_cast<unsigned __int128>(rng()) * i) >> 64);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

Batch Batcher::Get(int64_t epoch, int64_t index) { return std::move(GetShares(epoch, index, 1).front()); }

std::vector<Batch> Batcher::GetShares(int64_t epoch, int64_t index, int64_t parts) {
  if (epoch != cached_epoch_) {
    order_ = Permutation(epoch);
    cached_epoch_ = epoch;
  }
  parts = std::max<int64_t>(parts, 1);
  const int64_t n = data_.size();
  if (n == 0 || data_.images.dims() == 0) return std::vector<Batch>(static_cast<size_t>(parts));
  const int64_t begin = std::clamp<int64_t>(index * batch_size_, 0, n);
  const int64_t end = std::min(n, begin + batch_size_);
  const int64_t share = (end - begin) / parts;
  std::vector<int64_t> dims = data_.images.shape().dim_sizes();
  const int64_t per = dims.empty() || dims[0] == 0 ? 0 : data_.images.NumElements() / dims[0];
  dims[0] = share;
  const float* src = data_.images.data<float>();
  std::vector<Batch> out;
  for (int64_t p = 0; p < parts; ++p) {
    Batch b{Tensor(DT_FLOAT, TensorShape(dims)), Tensor(DT_INT32, TensorShape({share}))};
    float* dst = b.images.data<float>();
    for (int64_t k = 0; k < share; ++k) {
      const int64_t row = order_[begin + p * share + k];
      std::memcpy(dst + k * per, src + row * per, sizeof(float) * per);
      b.labels.data<int32_t>()[k] = data_.labels.data<int32_t>()[row];
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace tact::apps
