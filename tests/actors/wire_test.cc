// The runtime's wire messages: Cap'n Proto round trips, hostile bytes, and
// the same bytes through CAF's own serializer as remoting will use them.
#include "actors/wire.h"

#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include "actors/wire_auth.h"
#include "actors/wire_caf.h"
#include "graph/ops/all_ops.h"
#include "schemas/runtime.capnp.h"

namespace tact {
namespace {

NamedTensors SomeTensors() {
  Tensor s(DT_STRING, {2});
  s.data<std::string>()[0] = "alpha";
  s.data<std::string>()[1] = std::string(300, 'z');
  return {{"x:0", Tensor::FromVector<float>({1.5f, -2, 3}, {3})}, {"names:0", s},
          {"scalar:0", Tensor::Scalar<int64_t>(-7)}};
}

void ExpectSameTensors(const NamedTensors& a, const NamedTensors& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(a[i].second.BitwiseEqual(b[i].second)) << a[i].first;
  }
}

TEST(WireTest, EveryMessageRoundTrips) {
  Scope s = Scope::NewRootScope();
  Relu(s, MatMul(s, Placeholder(s, DT_FLOAT), Variable(s, {3, 3})));
  WireRegisterPartition reg{"p1", "/job:worker/replica:0/task:1/device:CPU:0", *s.ToGraphDef(),
                            42, "shared", {"x:0"}, {"relu:0", "w:1"}, 2, -77, {"attr;c;value"}};
  WireRegisterPartition reg2;
  ASSERT_TRUE(Decode(*Encode(reg), &reg2).ok());
  EXPECT_EQ(reg2.handle, "p1");
  EXPECT_EQ(reg2.device, reg.device);
  EXPECT_EQ(reg2.incarnation, 42u);
  EXPECT_EQ(reg2.container, "shared");
  EXPECT_EQ(reg2.feeds, reg.feeds);
  EXPECT_EQ(reg2.fetches, reg.fetches);
  EXPECT_TRUE(reg2.graph == reg.graph);
  EXPECT_EQ(reg2.partitions_in_task, 2u);
  EXPECT_EQ(reg2.linked_step, -77);
  EXPECT_EQ(reg2.linked_attrs, reg.linked_attrs);

  WireRunStep run{17, "p1", SomeTensors(), true, {"big:0"}, 40123, 3};
  WireRunStep run2;
  ASSERT_TRUE(Decode(*Encode(run), &run2).ok());
  EXPECT_EQ(run2.step_id, 17);
  EXPECT_EQ(run2.reply_port, 40123);
  EXPECT_EQ(run2.reply_epoch, 3u);
  EXPECT_TRUE(run2.collect_stats);
  EXPECT_EQ(run2.linked_feeds, run.linked_feeds);
  ExpectSameTensors(run.feeds, run2.feeds);

  WireStepDone done{17, "p1", errors::Aborted("node 'x' (op 'Y'): gone"), SomeTensors(), {}, {"huge:0"}};
  NodeExecStats st;
  st.node_name = "relu";
  st.device = "/job:w/replica:0/task:1/device:CPU:2";
  st.start_ns = 5;
  st.output_bytes = {16, -1};
  st.end_ns = 9;
  done.stats.push_back(st);
  WireStepDone done2;
  ASSERT_TRUE(Decode(*Encode(done), &done2).ok());
  EXPECT_EQ(done2.status, done.status);
  EXPECT_EQ(done2.linked_fetches, done.linked_fetches);
  ExpectSameTensors(done.fetched, done2.fetched);
  ASSERT_EQ(done2.stats.size(), 1u);
  EXPECT_EQ(done2.stats[0].node_name, "relu");
  EXPECT_EQ(done2.stats[0].end_ns, 9);
  EXPECT_EQ(done2.stats[0].device, st.device);
  EXPECT_EQ(done2.stats[0].output_bytes, st.output_bytes);

  WireRendezvousTensor rt{3, "a;0;b;t", Tensor::FromVector<double>({1e300, -0.0})};
  WireRendezvousTensor rt2;
  ASSERT_TRUE(Decode(*Encode(rt), &rt2).ok());
  EXPECT_EQ(rt2.key, rt.key);
  EXPECT_TRUE(rt2.tensor.BitwiseEqual(rt.tensor));
  // A dead tensor (control flow) is a message with no tensor in it.
  WireRendezvousTensor dead{4, "a;0;b;t;9c:2", Tensor()};
  WireRendezvousTensor dead2{0, "", Tensor::Scalar<float>(1)};
  ASSERT_TRUE(Decode(*Encode(dead), &dead2).ok());
  EXPECT_EQ(dead2.key, dead.key);
  EXPECT_FALSE(dead2.tensor.IsInitialized());

  WireAbortStep ab{9, errors::Unavailable("task 1 lost")};
  WireAbortStep ab2;
  ASSERT_TRUE(Decode(*Encode(ab), &ab2).ok());
  EXPECT_EQ(ab2.status, ab.status);

  WireDeregisterPartition dr{"partition_3f2a_17"};
  WireDeregisterPartition dr2;
  ASSERT_TRUE(Decode(*Encode(dr), &dr2).ok());
  EXPECT_EQ(dr2.handle, dr.handle);
  // One that names no partition would drop nothing: refused, saying so.
  Status no_handle = Decode(*Encode(WireDeregisterPartition{}), &dr2);
  EXPECT_EQ(no_handle.code(), Code::kInvalidArgument) << no_handle.ToString();
  EXPECT_NE(no_handle.message().find("DeregisterPartition"), std::string::npos) << no_handle.ToString();

  WireHealthPing hp{5, 123456, 2};
  WireHealthPing hp2;
  ASSERT_TRUE(Decode(*Encode(hp), &hp2).ok());
  EXPECT_EQ(hp2.sequence, 5u);
  EXPECT_EQ(hp2.sent_micros, 123456);

  WireTaskInfo info{"/job:ps/replica:0/task:0", 99, {"/job:ps/replica:0/task:0/device:CPU:0"}, 40123};
  WireTaskInfo info2;
  ASSERT_TRUE(Decode(*Encode(info), &info2).ok());
  EXPECT_EQ(info2.task, info.task);
  EXPECT_EQ(info2.incarnation, 99u);
  EXPECT_EQ(info2.devices, info.devices);
  EXPECT_EQ(info2.link_port, 40123);
}

TEST(WireTest, TheTasksConnectionTalkRoundTripsWithBinaryProofs) {
  // Payloads and proofs are raw bytes: NULs and high bytes survive.
  const std::string payload("\0\xff\x01random", 9), proof(32, '\0');
  WireDescribe d{payload, proof};
  WireDescribe d2;
  ASSERT_TRUE(Decode(*Encode(d), &d2).ok());
  EXPECT_EQ(d2.payload, payload);
  EXPECT_EQ(d2.proof, proof);

  WireIntroduce in{{"/job:worker/replica:0/task:1", "/job:worker/replica:0/task:2"},
                   {{"/job:ps/replica:0/task:0", 7}, {"/job:worker/replica:0/task:1", ~uint64_t{0}}}};
  WireIntroduce in2;
  ASSERT_TRUE(Decode(*Encode(in), &in2).ok());
  EXPECT_EQ(in2.forget, in.forget);
  EXPECT_EQ(in2.current, in.current);
  WireIntroduced done;
  EXPECT_TRUE(Decode(*Encode(WireIntroduced{}), &done).ok());

  WireHello h{"/job:worker/replica:0/task:0", 40999, payload, proof};
  WireHello h2;
  ASSERT_TRUE(Decode(*Encode(h), &h2).ok());
  EXPECT_EQ(h2.task, h.task);
  EXPECT_EQ(h2.link_port, 40999);
  EXPECT_EQ(h2.payload, payload);
  EXPECT_EQ(h2.proof, proof);

  const std::string bytes = *Encode(h);
  Status s = Decode(std::string_view(bytes).substr(0, bytes.size() / 2 / 8 * 8), &h2);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find("Hello"), std::string::npos) << s.message();
}

TEST(WireTest, HostileBytesAreErrorsNeverCrashes) {
  const std::string good = *Encode(WireRunStep{1, "p", SomeTensors(), false, {}});
  for (size_t len = 0; len < good.size(); len += 8) {
    WireRunStep m;
    Status s = Decode(std::string_view(good).substr(0, len), &m);
    EXPECT_FALSE(s.ok()) << len;
  }
  std::string flipped = good;
  for (size_t i = 8; i < flipped.size(); i += 13) flipped[i] ^= 0x5a;
  WireRunStep m;
  (void)Decode(flipped, &m);  // may decode or not; must not crash
  WireRunStep half;
  Status s = Decode(std::string_view(good).substr(0, good.size() / 2 / 8 * 8), &half);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find("RunStep"), std::string::npos) << s.message();
}

TEST(WireTest, ThroughCafsSerializerAsRemotingSendsThem) {
  caf::actor_system_config cfg;
  AddRuntimeMessageTypes(cfg);
  UseClusterSecret(cfg, "the cluster's secret, 16+ chars");
  caf::actor_system sys{cfg};
  WireRunStep run{11, "p9", SomeTensors(), false, {}};
  caf::message msg = caf::make_message(run);
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  ASSERT_FALSE(sink(msg));
  // The Cap'n Proto bytes travelled, not just a type name.
  EXPECT_GT(buf.size(), Encode(run)->size());
  caf::message back;
  caf::binary_deserializer source{sys, buf};
  ASSERT_FALSE(source(back));
  ASSERT_TRUE(back.match_elements<WireRunStep>());
  const WireRunStep& got = back.get_as<WireRunStep>(0);
  EXPECT_EQ(got.step_id, 11);
  EXPECT_EQ(got.handle, "p9");
  ExpectSameTensors(run.feeds, got.feeds);
  // A message cut short in transit: CAF's message reader yields an empty
  // message rather than an error; nothing half-decoded is delivered.
  std::vector<char> cut(buf.begin(), buf.begin() + buf.size() / 2);
  caf::message junk;
  caf::binary_deserializer partial{sys, cut};
  (void)partial(junk);
  EXPECT_FALSE(junk.match_elements<WireRunStep>());
  // Our own reader of one message reports the damage.
  std::vector<char> one;
  caf::binary_serializer one_sink{sys, one};
  ASSERT_FALSE(one_sink(run));
  for (size_t len : {one.size() / 2, one.size() - 8, size_t{4}}) {
    std::vector<char> bytes(one.begin(), one.begin() + len);
    WireRunStep x;
    caf::binary_deserializer reader{sys, bytes};
    EXPECT_TRUE(static_cast<bool>(reader(x))) << len;
  }
  // A length prefix over the limit is refused before anything is allocated.
  std::vector<char> huge;
  caf::binary_serializer huge_sink{sys, huge};
  uint64_t n = kMaxWireMessageBytes + 1;
  ASSERT_FALSE(huge_sink(n));
  WireRunStep y;
  caf::binary_deserializer huge_reader{sys, huge};
  auto err = huge_reader(y);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(caf::to_string(err).find("over the limit"), std::string::npos) << caf::to_string(err);
}

// A registration's answer and a failed reply cross as Cap'n Proto: the
// handle and device, never the in-process actor; the failure's code and
// message, inside the CAF error that answers the request.
TEST(WireTest, ARegistrationsAnswerAndAFailureCrossAsCapnProto) {
  caf::actor_system_config cfg;
  AddRuntimeMessageTypes(cfg);
  UseClusterSecret(cfg, "the cluster's secret, 16+ chars");
  caf::actor_system sys{cfg};
  WirePartitionRegistered registered{"p3", "/job:w/replica:0/task:1/device:CPU:0", std::any(42)};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  ASSERT_FALSE(sink(caf::make_message(registered)));
  caf::message back;
  caf::binary_deserializer source{sys, buf};
  ASSERT_FALSE(source(back));
  ASSERT_TRUE(back.match_elements<WirePartitionRegistered>());
  const auto& got = back.get_as<WirePartitionRegistered>(0);
  EXPECT_EQ(got.handle, "p3");
  EXPECT_EQ(got.device, registered.device);
  EXPECT_FALSE(got.local_partition.has_value());

  const Status why = errors::FailedPrecondition("partition 'p3': no kernel for node 'x'");
  caf::error err = ToCafError(why);
  std::vector<char> ebuf;
  caf::binary_serializer esink{sys, ebuf};
  ASSERT_FALSE(esink(err));
  caf::error err_back;
  caf::binary_deserializer esource{sys, ebuf};
  ASSERT_FALSE(esource(err_back));
  EXPECT_EQ(FromCafError(err_back), why);
  // A Failure must carry an error.
  WireFailure ok_failure{Status::OK()};
  StatusOr<std::string> bytes = Encode(ok_failure);
  ASSERT_TRUE(bytes.ok());
  WireFailure decoded;
  EXPECT_EQ(Decode(*bytes, &decoded).code(), Code::kInvalidArgument);
}

// One task with two incarnations says nothing about which process is
// gone: refused, naming the task and the field.
TEST(WireTest, AnIntroduceNamingATaskTwiceIsRefused) {
  capnp::MallocMessageBuilder message;
  auto current = message.initRoot<schema::Introduce>().initCurrent(2);
  for (unsigned i = 0; i < 2; ++i) {
    current[i].setTask("/job:worker/replica:0/task:1");
    current[i].setIncarnation(i + 1);
  }
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  const kj::ArrayPtr<const char> chars = words.asChars();
  WireIntroduce decoded;
  const Status s = Decode(std::string_view(chars.begin(), chars.size()), &decoded);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("task '/job:worker/replica:0/task:1' twice in 'current'"), std::string::npos)
      << s.ToString();
}

// Bytes signed in one cluster do not decode in another, nor in a process
// without a secret; a process without one cannot send.
TEST(WireTest, OnlyTheSameClusterSecretReadsAMessage) {
  auto system_with = [](const std::string& secret) {
    auto cfg = std::make_unique<caf::actor_system_config>();
    AddRuntimeMessageTypes(*cfg);
    if (!secret.empty()) UseClusterSecret(*cfg, secret);
    return cfg;
  };
  auto cfg_a = system_with("secret of cluster A, long enough");
  auto cfg_b = system_with("secret of cluster B, long enough");
  auto cfg_none = system_with("");
  caf::actor_system a{*cfg_a}, b{*cfg_b}, none{*cfg_none};
  WireRunStep run{3, "p", SomeTensors(), false, {}};
  std::vector<char> buf;
  caf::binary_serializer sink{a, buf};
  ASSERT_FALSE(sink(run));
  auto read = [&](caf::actor_system& sys, std::vector<char> bytes) {
    WireRunStep x;
    caf::binary_deserializer source{sys, bytes};
    return caf::to_string(source(x));
  };
  EXPECT_EQ(read(a, buf), "none");
  EXPECT_NE(read(b, buf).find("not signed with this cluster's secret"), std::string::npos) << read(b, buf);
  EXPECT_NE(read(none, buf).find("has no cluster secret"), std::string::npos) << read(none, buf);
  // One flipped byte of the message or of its tag: refused.
  for (size_t at : {size_t{20}, buf.size() - 3}) {
    std::vector<char> tampered = buf;
    tampered[at] ^= 1;
    EXPECT_NE(read(a, tampered).find("Unauthenticated"), std::string::npos) << at;
  }
  std::vector<char> out;
  caf::binary_serializer unsigned_sink{none, out};
  EXPECT_TRUE(static_cast<bool>(unsigned_sink(run)));
}

}  // namespace
}  // namespace tact
