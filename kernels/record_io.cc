#include "kernels/record_io.h"

#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tact {
namespace {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), a byte at a time.
std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}

void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void PutU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(p[i]);
  return v;
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(p[i]);
  return v;
}

// A record longer than this is taken for a corrupt length.
constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 31;

}  // namespace

uint32_t Crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> table = MakeTable();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : data) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t MaskedCrc32c(std::string_view data) {
  const uint32_t crc = Crc32c(data);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Create(const std::string& path) {
  std::unique_ptr<RecordWriter> w(new RecordWriter());
  w->path_ = path;
  w->file_ = std::fopen(path.c_str(), "wb");
  if (w->file_ == nullptr) {
    return errors::InvalidArgument("record file '", path, "': cannot create: ", std::strerror(errno));
  }
  return w;
}

RecordWriter::~RecordWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

Status RecordWriter::Write(std::string_view record) {
  if (file_ == nullptr) return errors::FailedPrecondition("record file '", path_, "' is closed");
  char head[12];
  PutU64(head, record.size());
  PutU32(head + 8, MaskedCrc32c(std::string_view(head, 8)));
  char tail[4];
  PutU32(tail, MaskedCrc32c(record));
  if (std::fwrite(head, 1, sizeof head, file_) != sizeof head ||
      std::fwrite(record.data(), 1, record.size(), file_) != record.size() ||
      std::fwrite(tail, 1, sizeof tail, file_) != sizeof tail) {
    return errors::Internal("record file '", path_, "': write failed: ", std::strerror(errno));
  }
  return Status::OK();
}

Status RecordWriter::Flush() {
  if (file_ == nullptr) return errors::FailedPrecondition("record file '", path_, "' is closed");
  if (std::fflush(file_) != 0) {
    return errors::Internal("record file '", path_, "': write failed: ", std::strerror(errno));
  }
  return Status::OK();
}

Status RecordWriter::Close() {
  if (file_ == nullptr) return Status::OK();
  const bool ok = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || !closed) return errors::Internal("record file '", path_, "': close failed");
  return Status::OK();
}

StatusOr<std::unique_ptr<InputFile>> InputFile::Open(const std::string& path) {
  std::unique_ptr<InputFile> f(new InputFile());
  f->path_ = path;
  f->gz_ = gzopen(path.c_str(), "rb");
  if (f->gz_ == nullptr) {
    return errors::NotFound("input file '", path, "': cannot open: ", std::strerror(errno));
  }
  gzbuffer(static_cast<gzFile>(f->gz_), 1 << 16);
  return f;
}

InputFile::~InputFile() {
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
}

Status InputFile::Read(size_t n, std::string* out) {
  out->resize(n);
  size_t done = 0;
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    const int got = gzread(static_cast<gzFile>(gz_), out->data() + done, chunk);
    if (got < 0) {
      int err = 0;
      const char* msg = gzerror(static_cast<gzFile>(gz_), &err);
      return errors::DataLoss("input file '", path_, "': read failed at byte ", offset_ + done, ": ", msg);
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  out->resize(done);
  offset_ += done;
  return Status::OK();
}

StatusOr<bool> ReadRecord(InputFile* file, std::string* record) {
  const uint64_t at = file->offset();
  std::string head;
  TACT_RETURN_IF_ERROR(file->Read(12, &head));
  if (head.empty()) return false;
  auto corrupt = [&](const char* what) {
    return errors::DataLoss("record file '", file->path(), "': the record at byte ", at, " ", what);
  };
  if (head.size() < 12) return corrupt("is cut short in its length");
  if (GetU32(head.data() + 8) != MaskedCrc32c(std::string_view(head.data(), 8))) {
    return corrupt("has a length that fails its checksum");
  }
  const uint64_t length = GetU64(head.data());
  if (length > kMaxRecordBytes) return corrupt("claims an impossible length");
  TACT_RETURN_IF_ERROR(file->Read(length + 4, record));
  if (record->size() < length + 4) return corrupt("is cut short in its data");
  const uint32_t crc = GetU32(record->data() + length);
  record->resize(length);
  if (crc != MaskedCrc32c(*record)) return corrupt("has data that fails its checksum");
  return true;
}

}  // namespace tact
