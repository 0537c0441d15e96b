#include "actors/link_frame.h"

#include <capnp/message.h>
#include <capnp/orphan.h>
#include <kj/exception.h>

#include <algorithm>
#include <cstring>

#include "actors/wire_caf.h"
#include "actors/wire_counts.h"
#include "schemas/runtime.capnp.h"

namespace tact {
namespace {

// A Data blob holds fewer than 2^29 bytes, so a tensor's bytes go in chunks.
constexpr size_t kChunkBytes = size_t{256} << 20;
constexpr size_t kWordBytes = sizeof(capnp::word);
// Segment 0 holds a key, a shape and a few words per chunk; more is not a frame.
constexpr size_t kMaxHeadWords = kMaxLinkKeyBytes / kWordBytes + 1024;
constexpr size_t kMaxChunks = (kMaxWireMessageBytes + kChunkBytes - 1) / kChunkBytes;
constexpr kj::byte kZeros[kWordBytes] = {};

size_t Words(size_t bytes) { return (bytes + kWordBytes - 1) / kWordBytes; }

size_t ChunkCount(size_t bytes) { return (bytes + kChunkBytes - 1) / kChunkBytes; }

// How a frame of `bytes` bytes carries them: in data segments of their
// own (the number of chunks), inline in segment 0, or not at all (lent).
struct Layout {
  size_t data_segments = 0;
  size_t chunks = 0;  // entries of LinkFrame.chunks
};
Layout LayoutOf(size_t bytes, bool lent) {
  if (lent || bytes == 0) return {0, 0};
  if (bytes <= kMaxInlineLinkBytes) return {0, 1};
  return {ChunkCount(bytes), ChunkCount(bytes)};
}

size_t ChunkSize(size_t bytes, size_t i) { return std::min(kChunkBytes, bytes - i * kChunkBytes); }

void AppendU32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), sizeof v); }

}  // namespace

bool LinkFrameCarries(DataType dtype) { return dtype != DT_STRING && DataTypeSize(dtype) > 0; }

StatusOr<std::unique_ptr<EncodedLinkFrame>> EncodeLinkFrame(int64_t step_id, const std::string& key,
                                                            const Tensor& tensor, const LentBytes& lent) {
  if (key.size() > kMaxLinkKeyBytes) {
    return errors::InvalidArgument("a tensor link key of ", key.size(), " bytes is over the limit of ",
                                   kMaxLinkKeyBytes);
  }
  if (tensor.dims() > kMaxLinkRank) {
    return errors::InvalidArgument("tensor '", key, "' has rank ", tensor.dims(), ", over the tensor links' limit of ",
                                   kMaxLinkRank);
  }
  // A dead tensor (control flow) travels as a frame with no dtype, shape
  // or bytes.
  const bool dead = !tensor.IsInitialized();
  if (!dead && !LinkFrameCarries(tensor.dtype())) {
    return errors::InvalidArgument("tensor '", key, "' of ", DataTypeString(tensor.dtype()),
                                   " has no flat bytes for a tensor link");
  }
  const size_t bytes = tensor.TotalBytes();
  const Layout layout = LayoutOf(bytes, lent.id != 0);
  const size_t chunks = layout.data_segments;
  // Segment 0 is made large enough for everything but the data segments,
  // so that those are the only other segments.
  const bool inline_bytes = layout.chunks == 1 && chunks == 0;
  const size_t head_words =
      64 + key.size() / kWordBytes + tensor.dims() + 4 * layout.chunks + (inline_bytes ? Words(bytes) : 0);
  auto f = std::make_unique<EncodedLinkFrame>();
  const auto* data = static_cast<const kj::byte*>(tensor.raw_data());
  // The usual frame's segment 0 is built on the stack.
  constexpr size_t kScratchWords = 256 + kMaxInlineLinkBytes / kWordBytes;
  capnp::word scratch[kScratchWords] = {};  // capnp requires a zeroed first segment
  std::vector<capnp::word> heap;
  if (head_words > kScratchWords) heap.resize(head_words);
  kj::ArrayPtr<capnp::word> first = head_words > kScratchWords
                                        ? kj::arrayPtr(heap.data(), heap.size())
                                        : kj::arrayPtr(scratch, kScratchWords);
  try {
    capnp::MallocMessageBuilder message(first, capnp::AllocationStrategy::FIXED_SIZE);
    auto root = message.initRoot<schema::LinkFrame>();
    root.setStepId(step_id);
    root.setKey(capnp::Text::Reader(key.data(), key.size()));
    root.setDtype(static_cast<int32_t>(tensor.dtype()));
    root.setDead(dead);
    auto shape = root.initShape(static_cast<unsigned>(tensor.dims()));
    for (int d = 0; d < tensor.dims(); ++d) shape.set(static_cast<unsigned>(d), tensor.dim_size(d));
    if (lent.id != 0) {
      auto l = root.initLent();
      l.setId(lent.id);
      l.setAddress(lent.address);
      l.setTokenAddress(lent.token_address);
    }
    auto list = root.initChunks(static_cast<unsigned>(layout.chunks));
    if (inline_bytes) list.set(0, capnp::Data::Reader(data, bytes));
    for (size_t i = 0; i < chunks; ++i) {
      // The tensor's own bytes become a segment; nothing is copied.
      list.adopt(static_cast<unsigned>(i), message.getOrphanage().referenceExternalData(
                                               capnp::Data::Reader(data + i * kChunkBytes, ChunkSize(bytes, i))));
    }
    kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>> segments = message.getSegmentsForOutput();
    if (segments.size() != 1 + chunks) {
      return errors::Internal("tensor '", key, "': a link frame of ", segments.size(), " segments, expected ",
                              1 + chunks);
    }
    f->head.reserve(4 * (segments.size() + 2) + segments[0].size() * kWordBytes);
    AppendU32(&f->head, static_cast<uint32_t>(segments.size() - 1));
    for (const auto& s : segments) AppendU32(&f->head, static_cast<uint32_t>(s.size()));
    if (segments.size() % 2 == 0) AppendU32(&f->head, 0);  // the table fills whole words
    f->head.append(reinterpret_cast<const char*>(segments[0].begin()), segments[0].size() * kWordBytes);
    f->parts.push_back({f->head.data(), f->head.size()});
    for (size_t i = 0; i < chunks; ++i) {
      const size_t n = ChunkSize(bytes, i);
      if (reinterpret_cast<const kj::byte*>(segments[1 + i].begin()) != data + i * kChunkBytes) {
        return errors::Internal("tensor '", key, "': chunk ", i, " is not its own segment");
      }
      f->parts.push_back({const_cast<kj::byte*>(data + i * kChunkBytes), n});
      // Zeros, not whatever follows the tensor in memory, pad it to a word.
      if (n % kWordBytes != 0) f->parts.push_back({const_cast<kj::byte*>(kZeros), kWordBytes - n % kWordBytes});
    }
  } catch (const kj::Exception& e) {
    return errors::InvalidArgument("tensor '", key, "' cannot be framed: ", e.getDescription().cStr());
  }
  return f;
}

namespace {

struct TensorHead {
  DataType dtype = DT_INVALID;
  TensorShape shape;
  uint64_t bytes = 0;
  bool dead = false;
};

// Reads what segment 0 says into *out and *head and checks it against the
// segment table (`sizes`). `reader`'s data segments need not hold their
// bytes yet: nothing here follows a chunk.
Status ReadHead(capnp::MessageReader& reader, const std::vector<uint32_t>& sizes, DecodedLinkFrame* out,
                TensorHead* head) {
  const size_t data_segments = sizes.size() - 1;
  auto root = reader.getRoot<schema::LinkFrame>();
  out->step_id = root.getStepId();
  const capnp::Text::Reader key = root.getKey();
  out->key.assign(key.begin(), key.size());
  const int32_t dtype = root.getDtype();
  const DataType type = static_cast<DataType>(dtype);
  if (root.getDead()) {
    if (dtype != 0 || root.getShape().size() != 0 || root.hasLent() || sizes.size() != 1 ||
        root.getChunks().size() != 0) {
      return errors::InvalidArgument("tensor '", out->key, "' is dead but has a dtype, shape or bytes");
    }
    out->lent = LentBytes{};
    *head = TensorHead{DT_INVALID, TensorShape(), 0, true};
    return Status::OK();
  }
  if (!IsValidDataType(type) || IsRefType(type) || !LinkFrameCarries(type)) {
    return errors::InvalidArgument("tensor '", out->key, "': dtype ", dtype, " is not carried by tensor links");
  }
  const auto dims = root.getShape();
  if (dims.size() > static_cast<unsigned>(kMaxLinkRank)) {
    return errors::InvalidArgument("tensor '", out->key, "': rank ", dims.size(), " is over the limit of ",
                                   kMaxLinkRank);
  }
  std::vector<int64_t> d;
  for (int64_t dim : dims) d.push_back(dim);
  StatusOr<TensorShape> shape = TensorShape::FromDims(d);
  if (!shape.ok()) return shape.status().WithPrefix("tensor '" + out->key + "': ");
  const uint64_t bytes = static_cast<uint64_t>(shape->num_elements()) * DataTypeSize(type);
  if (bytes > kMaxWireMessageBytes) {
    return errors::InvalidArgument("tensor '", out->key, "' of ", bytes, " bytes is over the size limit");
  }
  out->lent = LentBytes{};
  if (root.hasLent()) {
    auto l = root.getLent();
    out->lent = LentBytes{l.getId(), l.getAddress(), l.getTokenAddress()};
    if (out->lent.id == 0) return errors::InvalidArgument("tensor '", out->key, "': lent with id 0");
  }
  const Layout layout = LayoutOf(bytes, out->lent.id != 0);
  const size_t chunks = layout.data_segments;
  if (data_segments != chunks || root.getChunks().size() != layout.chunks) {
    return errors::InvalidArgument("tensor '", out->key, "': ", data_segments, " data segments and ",
                                   root.getChunks().size(), " chunks where its shape and dtype (", bytes,
                                   " bytes", out->lent.id != 0 ? ", lent" : "", ") make ", chunks, " and ",
                                   layout.chunks);
  }
  if (layout.chunks == 1 && chunks == 0 && root.getChunks()[0].size() != bytes) {
    return errors::InvalidArgument("tensor '", out->key, "': ", root.getChunks()[0].size(),
                                   " bytes inline where its shape and dtype make ", bytes);
  }
  for (size_t i = 0; i < chunks; ++i) {
    if (sizes[1 + i] != Words(ChunkSize(bytes, i))) {
      return errors::InvalidArgument("tensor '", out->key, "': data segment ", i, " has ", sizes[1 + i],
                                     " words where its shape and dtype make ", Words(ChunkSize(bytes, i)));
    }
  }
  *head = TensorHead{type, *shape, bytes};
  return Status::OK();
}

// Every chunk must be exactly its own segment.
Status CheckChunks(capnp::MessageReader& reader, const std::vector<kj::ArrayPtr<const capnp::word>>& segments,
                   uint64_t bytes, const std::string& key) {
  auto list = reader.getRoot<schema::LinkFrame>().getChunks();
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    const capnp::Data::Reader d = list[static_cast<unsigned>(i)];
    if (d.begin() != reinterpret_cast<const kj::byte*>(segments[1 + i].begin()) || d.size() != ChunkSize(bytes, i)) {
      return errors::InvalidArgument("tensor '", key, "': chunk ", i, " is not its own data segment");
    }
  }
  return Status::OK();
}

// A link's reader reads frame after frame: what it needs for each is
// kept between them (one reader thread a link, so per thread).
struct ReadBuffers {
  std::vector<uint32_t> sizes;
  std::vector<capnp::word> head;
  std::vector<kj::ArrayPtr<const capnp::word>> segments;
};

// ReadLinkFrame's work; the link closed is Cancelled.
Status ReadFrame(const ReadExact& read, DecodedLinkFrame* out) {
  thread_local ReadBuffers b;
  const Status ended = errors::Cancelled("the tensor link closed");
  uint32_t more = 0;
  if (!read(&more, sizeof more)) return ended;
  if (more > kMaxChunks) {
    return errors::InvalidArgument("a link frame of ", uint64_t{more} + 1, " segments (at most ", kMaxChunks + 1, ")");
  }
  b.sizes.resize(more + 1);
  if (!read(b.sizes.data(), b.sizes.size() * sizeof(uint32_t))) return ended;
  if (b.sizes.size() % 2 == 0) {
    uint32_t pad = 0;
    if (!read(&pad, sizeof pad)) return ended;
  }
  if (b.sizes[0] == 0 || b.sizes[0] > kMaxHeadWords) {
    return errors::InvalidArgument("a link frame's segment 0 of ", b.sizes[0], " words (1 to ", kMaxHeadWords, ")");
  }
  b.head.resize(b.sizes[0]);
  if (!read(b.head.data(), b.head.size() * kWordBytes)) return ended;
  // The data segments' bytes go straight into the tensor, allocated once
  // segment 0 has been checked against the table; the reader follows no
  // chunk before they are there.
  uint64_t data_words = 0;
  for (size_t i = 1; i < b.sizes.size(); ++i) data_words += b.sizes[i];
  if (data_words * kWordBytes > kMaxWireMessageBytes + kWordBytes * kMaxChunks) {
    return errors::InvalidArgument("a link frame of ", data_words, " data words is over the size limit");
  }
  std::shared_ptr<TensorBuffer> buffer;
  char* data = nullptr;
  if (data_words > 0) {
    StatusOr<Tensor> raw = Tensor::Allocate(CpuAllocator(), DT_UINT8, TensorShape({static_cast<int64_t>(data_words * kWordBytes)}));
    if (!raw.ok()) return raw.status().WithPrefix("a link frame: ");
    buffer = raw->buffer();
    data = static_cast<char*>(raw->raw_data());
  }
  b.segments.assign(1, kj::ArrayPtr<const capnp::word>(b.head.data(), b.head.size()));
  size_t offset = 0;
  for (size_t i = 1; i < b.sizes.size(); ++i) {
    b.segments.emplace_back(reinterpret_cast<const capnp::word*>(data + offset), b.sizes[i]);
    offset += size_t{b.sizes[i]} * kWordBytes;
  }
  capnp::ReaderOptions options;
  options.traversalLimitInWords = 8 * b.head.size() + 1024 + data_words;
  options.nestingLimit = 8;
  try {
    capnp::SegmentArrayMessageReader reader(
        kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>>(b.segments.data(), b.segments.size()), options);
    TensorHead h;
    TACT_RETURN_IF_ERROR(ReadHead(reader, b.sizes, out, &h));
    if (h.dead) {
      out->tensor = Tensor();
    } else if (b.sizes.size() == 1 && out->lent.id == 0 && h.bytes > 0) {
      // Inline in segment 0 (checked to be exactly the tensor's size).
      TACT_ASSIGN_OR_RETURN(out->tensor, Tensor::Allocate(CpuAllocator(), h.dtype, h.shape));
      const capnp::Data::Reader d = reader.getRoot<schema::LinkFrame>().getChunks()[0];
      std::memcpy(out->tensor.raw_data(), d.begin(), d.size());
    } else if (out->lent.id == 0 && h.bytes > 0) {
      // Chunk k starts at k * kChunkBytes: every chunk but the last is a
      // whole number of words, so the chunks are the tensor's bytes in order.
      if (!read(data, data_words * kWordBytes)) return ended;
      TACT_RETURN_IF_ERROR(CheckChunks(reader, b.segments, h.bytes, out->key));
      out->tensor = Tensor(h.dtype, h.shape, std::move(buffer));
    } else {
      TACT_ASSIGN_OR_RETURN(out->tensor, Tensor::Allocate(CpuAllocator(), h.dtype, h.shape));
    }
  } catch (const kj::Exception& e) {
    return errors::InvalidArgument("malformed link frame: ", e.getDescription().cStr());
  }
  return Status::OK();
}

}  // namespace

Status ReadLinkFrame(const ReadExact& read, DecodedLinkFrame* out) {
  const Status s = ReadFrame(read, out);
  if (s.code() != Code::kCancelled) CountDecode("LinkFrame", s.ok());  // Cancelled: the link closed
  return s;
}

}  // namespace tact
