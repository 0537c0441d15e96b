// Input ops through a Session (paper 4.5; graph/ops/io_ops.h): records
// written by RecordWriter come back through TFRecordReader in order and
// with their keys, across files; corruption is DataLoss naming the file and
// the byte; lines of text; DecodeRaw; and a read waiting on an empty
// filename queue ends with the step's timeout, the session usable after.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "actors/session.h"
#include "graph/ops/all_ops.h"
#include "kernels/record_io.h"

namespace tact {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/input_ops_" + std::to_string(getpid()) + "_" + name;
}

TEST(RecordIoTest, Crc32cOfTheStandardCheckString) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);  // the CRC-32C check value
  EXPECT_EQ(Crc32c(""), 0u);
}

// A filename queue holding `files`, closed; and a session of the graph.
struct Pipeline {
  Scope s = Scope::NewRootScope();
  Output queue;
  std::unique_ptr<Session> session;

  void Start(const std::vector<std::string>& files) {
    queue = FIFOQueue(s.WithOpName("files"), {DT_STRING});
    QueueEnqueueMany(s.WithOpName("fill"), queue, {Const(s, Tensor::FromVector<std::string>(files))});
    QueueClose(s.WithOpName("close"), queue);
  }
  // Fills the filename queue and closes it.
  void Fill() {
    ASSERT_TRUE(session->Run({}, {}, {"fill"}).ok());
    ASSERT_TRUE(session->Run({}, {}, {"close"}).ok());
  }
  void Open(SessionOptions o = {}) {
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto created = Session::Create(o);
    ASSERT_TRUE(created.ok());
    session = std::move(created).value();
    ASSERT_TRUE(session->Extend(*s.ToGraphDef()).ok());
  }
};

TEST(InputOpsTest, RecordsComeBackInOrderWithTheirKeysAcrossFiles) {
  const std::vector<std::string> files = {TempPath("a.rec"), TempPath("b.rec")};
  std::vector<std::string> written;
  for (size_t f = 0; f < files.size(); ++f) {
    auto w = RecordWriter::Create(files[f]);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (int i = 0; i < 5; ++i) {
      std::string r(static_cast<size_t>(i * 300), static_cast<char>('a' + f));  // the first is empty
      if (!r.empty()) r[0] = static_cast<char>(i);
      ASSERT_TRUE((*w)->Write(r).ok());
      written.push_back(r);
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  Pipeline p;
  p.Start(files);
  auto reader = TFRecordReader(p.s.WithOpName("reader"));
  auto read = ReaderRead(p.s.WithOpName("read"), reader, p.queue);
  auto batch = ReaderReadUpTo(p.s.WithOpName("batch"), reader, p.queue, int64_t{3});
  p.Open();
  p.Fill();
  // One by one for the first 4, then in threes (across the files' border).
  size_t next = 0;
  for (; next < 4; ++next) {
    auto out = p.session->Run({}, {read.key.name(), read.value.name()}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].scalar<std::string>(), files[0] + ":" + std::to_string(next));
    EXPECT_EQ((*out)[1].scalar<std::string>(), written[next]);
  }
  while (next < written.size()) {
    auto out = p.session->Run({}, {batch.keys.name(), batch.values.name()}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const int64_t n = (*out)[1].NumElements();
    ASSERT_EQ(n, std::min<int64_t>(3, static_cast<int64_t>(written.size() - next)));
    for (int64_t i = 0; i < n; ++i, ++next) {
      EXPECT_EQ((*out)[1].data<std::string>()[i], written[next]) << next;
      EXPECT_EQ((*out)[0].data<std::string>()[i], files[next / 5] + ":" + std::to_string(next % 5));
    }
  }
  auto end = p.session->Run({}, {read.value.name()}, {});
  EXPECT_EQ(end.status().code(), Code::kOutOfRange) << end.status().ToString();
  const std::string named =
      "node 'read' (op 'ReaderRead'): the reader's filename queue is closed and empty: ";
  EXPECT_EQ(end.status().message().rfind(named, 0), 0u) << end.status().ToString();
  for (const auto& f : files) std::remove(f.c_str());
}

TEST(InputOpsTest, ACorruptOrCutRecordIsDataLossNamingTheFileAndTheByte) {
  const std::string path = TempPath("bad.rec");
  {
    auto w = RecordWriter::Create(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Write("first").ok());
    ASSERT_TRUE((*w)->Write("second record").ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t second = 12 + 5 + 4;  // where the second record starts
  auto read_all = [&](const std::string& content) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    Pipeline p;
    p.Start({path});
    auto read = ReaderRead(p.s, TFRecordReader(p.s), p.queue);
    p.Open();
    p.Fill();
    Status last;
    for (int i = 0; i < 3 && last.ok(); ++i) last = p.session->Run({}, {read.value.name()}, {}).status();
    return last;
  };
  std::string flipped = bytes;
  flipped[second + 12 + 3] ^= 0x40;  // a byte of the second record's data
  Status s = read_all(flipped);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("at byte " + std::to_string(second) + " has data that fails its checksum"),
            std::string::npos)
      << s.ToString();
  s = read_all(bytes.substr(0, bytes.size() - 6));
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_NE(s.message().find("cut short"), std::string::npos) << s.ToString();
  s = read_all(bytes);
  EXPECT_EQ(s.code(), Code::kOutOfRange) << "the intact file reads to its end: " << s.ToString();
  std::remove(path.c_str());
}

TEST(InputOpsTest, TextLinesAfterAHeaderTheLastWithoutANewline) {
  const std::string path = TempPath("lines.txt");
  std::ofstream(path) << "name,value\nalpha,1\n\nbeta,2";
  Pipeline p;
  p.Start({path});
  auto read = ReaderReadUpTo(p.s, TextLineReader(p.s, 1), p.queue, int64_t{10});
  p.Open();
  p.Fill();
  auto out = p.session->Run({}, {read.values.name()}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].NumElements(), 3);
  EXPECT_EQ((*out)[0].data<std::string>()[0], "alpha,1");
  EXPECT_EQ((*out)[0].data<std::string>()[1], "");
  EXPECT_EQ((*out)[0].data<std::string>()[2], "beta,2");
  std::remove(path.c_str());
}

TEST(InputOpsTest, DecodeRawReadsBytesAsNumbersEitherEndian) {
  Scope s = Scope::NewRootScope();
  const float values[2] = {1.5f, -2.25f};
  std::string le(reinterpret_cast<const char*>(values), sizeof values);
  std::string be = le;
  std::reverse(be.begin(), be.begin() + 4);
  std::reverse(be.begin() + 4, be.end());
  auto little = DecodeRaw(s, Tensor::FromVector<std::string>({le, le}), DT_FLOAT);
  auto big = DecodeRaw(s, Tensor::Scalar<std::string>(be), DT_FLOAT, false);
  auto uneven = DecodeRaw(s.WithOpName("uneven"), Tensor::FromVector<std::string>({le, "abc"}), DT_UINT8);
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  auto out = (*session)->Run({}, {little.name(), big.name()}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 2}));
  EXPECT_EQ((*out)[0].data<float>()[3], -2.25f);
  EXPECT_EQ((*out)[1].shape(), TensorShape({2}));
  EXPECT_EQ((*out)[1].data<float>()[0], 1.5f);
  auto bad = (*session)->Run({}, {uneven.name()}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("one length"), std::string::npos) << bad.status().ToString();
}

TEST(InputOpsTest, AReadWaitingOnAnEmptyQueueEndsWithTheStepTimeout) {
  Pipeline p;
  p.queue = FIFOQueue(p.s.WithOpName("files"), {DT_STRING});
  auto read = ReaderRead(p.s, FixedLengthRecordReader(p.s, 4), p.queue);
  auto size = QueueSize(p.s.WithOpName("size"), p.queue);
  SessionOptions o;
  o.operation_timeout_ms = 300;
  p.Open(o);
  auto out = p.session->Run({}, {read.value.name()}, {});
  EXPECT_EQ(out.status().code(), Code::kDeadlineExceeded) << out.status().ToString();
  auto after = p.session->Run({}, {size.name()}, {});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)[0].scalar<int32_t>(), 0);
}

}  // namespace
}  // namespace tact
