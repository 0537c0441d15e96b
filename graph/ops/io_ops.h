// Input ops (paper 4.5): readers that read records from files on the
// device that runs them, and DecodeRaw to turn a record's bytes into
// numbers. A reader takes its files from a queue of filenames (a FIFOQueue
// of strings, fed by a QueueRunner); batching goes through the queues of
// graph/ops/data_flow_ops.h.
//
//   auto files = FIFOQueue(s, {DT_STRING});
//   auto reader = FixedLengthRecordReader(s, /*record_bytes=*/784, /*header_bytes=*/16);
//   auto read = ReaderReadUpTo(s, reader, files, int64_t{100});
//   auto pixels = DecodeRaw(s, read.values, DT_UINT8);   // [n, 784]
#pragma once

#include <string>

#include "graph/op_builder.h"

namespace tact {

// Readers are resources in a container (like a queue): shared_name ""
// means the node's name.
struct ReaderOptions {
  std::string container;
  std::string shared_name;
};
// Records of record_bytes after a header, until a footer (the IDX files).
Output FixedLengthRecordReader(const Scope& scope, int64_t record_bytes, int64_t header_bytes = 0,
                               int64_t footer_bytes = 0, const ReaderOptions& options = {});
// Lines of text, without their "\n", after skip_header_lines.
Output TextLineReader(const Scope& scope, int64_t skip_header_lines = 0, const ReaderOptions& options = {});
// Records of the TFRecord format (kernels/record_io.h), checksums checked.
Output TFRecordReader(const Scope& scope, const ReaderOptions& options = {});

struct ReaderReadOutputs {
  Output key;    // string: "<file>:<index>"
  Output value;  // string: the record
};
// The next record; at the end of the input (the queue closed and empty),
// OutOfRange.
ReaderReadOutputs ReaderRead(const Scope& scope, Input reader, Input queue);
struct ReaderReadUpToOutputs {
  Output keys;    // string [n]
  Output values;  // string [n]
};
// The next num_records (int64) records, fewer only at the end of the input.
ReaderReadUpToOutputs ReaderReadUpTo(const Scope& scope, Input reader, Input queue, Input num_records);

// Each string's bytes as numbers of out_type: shape bytes.shape + [n]; every
// string must hold the same number of bytes, a multiple of out_type's size.
Output DecodeRaw(const Scope& scope, Input bytes, DataType out_type, bool little_endian = true);

}  // namespace tact
