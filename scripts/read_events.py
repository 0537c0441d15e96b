#!/usr/bin/env python3
"""Prints an events file (the summaries tact writes for TensorBoard) as
JSON lines, one per Event, read with protobuf's own parser (Debian's
python3-protobuf) from the fields of TensorFlow's event.proto and
summary.proto, every record's checksums checked:

  python3 scripts/read_events.py logs/events.out.tfevents.*

Without TensorBoard at hand it shows what a run logged; the tests use it
as the reference reader of tact's events files. Exits 1, naming the file
and offset, at a record whose length or data fails its checksum.
"""
import json
import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.json_format import MessageToDict

F = descriptor_pb2.FieldDescriptorProto


def _field(msg, name, number, kind, label=F.LABEL_OPTIONAL, type_name=None):
    f = msg.field.add(name=name, number=number, type=kind, label=label)
    if type_name:
        f.type_name = type_name


def _event_class():
    fd = descriptor_pb2.FileDescriptorProto(name="tact_events.proto", package="tensorflow", syntax="proto3")
    histo = fd.message_type.add(name="HistogramProto")
    for number, name in enumerate(["min", "max", "num", "sum", "sum_squares"], 1):
        _field(histo, name, number, F.TYPE_DOUBLE)
    _field(histo, "bucket_limit", 6, F.TYPE_DOUBLE, F.LABEL_REPEATED)
    _field(histo, "bucket", 7, F.TYPE_DOUBLE, F.LABEL_REPEATED)
    summary = fd.message_type.add(name="Summary")
    value = summary.nested_type.add(name="Value")
    _field(value, "tag", 1, F.TYPE_STRING)
    _field(value, "simple_value", 2, F.TYPE_FLOAT)
    _field(value, "histo", 5, F.TYPE_MESSAGE, type_name=".tensorflow.HistogramProto")
    _field(summary, "value", 1, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".tensorflow.Summary.Value")
    event = fd.message_type.add(name="Event")
    _field(event, "wall_time", 1, F.TYPE_DOUBLE)
    _field(event, "step", 2, F.TYPE_INT64)
    _field(event, "file_version", 3, F.TYPE_STRING)
    _field(event, "summary", 5, F.TYPE_MESSAGE, type_name=".tensorflow.Summary")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    descriptor = pool.FindMessageTypeByName("tensorflow.Event")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def masked_crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    offset = 0
    while offset < len(data):
        if len(data) - offset < 12:
            sys.exit(f"{path}: truncated record header at offset {offset}")
        length, length_crc = struct.unpack_from("<QI", data, offset)
        if masked_crc32c(data[offset:offset + 8]) != length_crc:
            sys.exit(f"{path}: bad length checksum at offset {offset}")
        body = data[offset + 12:offset + 12 + length]
        if len(body) != length or len(data) < offset + 16 + length:
            sys.exit(f"{path}: truncated record at offset {offset}")
        (data_crc,) = struct.unpack_from("<I", data, offset + 12 + length)
        if masked_crc32c(body) != data_crc:
            sys.exit(f"{path}: bad data checksum at offset {offset}")
        yield body
        offset += 16 + length


def main():
    event_class = _event_class()
    for path in sys.argv[1:]:
        for body in records(path):
            event = event_class()
            event.ParseFromString(body)
            print(json.dumps(MessageToDict(event, preserving_proto_field_name=True)))


if __name__ == "__main__":
    main()
