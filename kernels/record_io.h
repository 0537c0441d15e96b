// Files of records, as input ops read them (paper 4.5). The record format
// is TensorFlow's TFRecord, so files written by either can be read by the
// other: each record is
//
//   uint64 length | uint32 masked CRC-32C of the length | data | uint32 masked CRC-32C of data
//
// little-endian, with a CRC masked as ((crc >> 15 | crc << 17) + 0xa282ead8)
// (a CRC of data that holds CRCs is then not trivially a constant). A
// reader refuses a record whose length or data fails its checksum, naming
// the file and the record's offset.
//
// InputFile reads any file through zlib, which reads a gzip file as its
// uncompressed bytes and a plain file as it is: the IDX files of
// Fashion-MNIST are read where Debian installs them, gzipped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "graph/status.h"

namespace tact {

uint32_t Crc32c(std::string_view data);
uint32_t MaskedCrc32c(std::string_view data);

class RecordWriter {
 public:
  static StatusOr<std::unique_ptr<RecordWriter>> Create(const std::string& path);
  ~RecordWriter();
  Status Write(std::string_view record);
  // Hands what was written to the kernel, so a reader of the growing file
  // sees every whole record.
  Status Flush();
  // Flushes and closes; the first write error, if any.
  Status Close();

 private:
  RecordWriter() = default;
  std::string path_;
  std::FILE* file_ = nullptr;
};

// Sequential bytes of one file (gzip or plain).
class InputFile {
 public:
  static StatusOr<std::unique_ptr<InputFile>> Open(const std::string& path);
  ~InputFile();
  // Up to `n` bytes into `out` (fewer only at the end of the file).
  Status Read(size_t n, std::string* out);
  const std::string& path() const { return path_; }
  uint64_t offset() const { return offset_; }

 private:
  InputFile() = default;
  std::string path_;
  void* gz_ = nullptr;  // gzFile
  uint64_t offset_ = 0;
};

// The next record of a record file: false at its clean end;
// DataLoss naming the file and the offset for a truncated or corrupt one.
StatusOr<bool> ReadRecord(InputFile* file, std::string* record);

}  // namespace tact
