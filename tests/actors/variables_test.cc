// Variables through the executor: state that lives across steps, refs that
// are read where a plain input needs the value, containers.
#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"
#include "kernels/resource_mgr.h"
#include "tests/actors/executor_test_util.h"

namespace tact {
namespace {

using test::FetchKey;
using test::kDev;

// Runs `ex` once with no feeds; returns the fetches named in `fetch`.
StatusOr<std::vector<Tensor>> Step(const Executor& ex, const std::vector<std::string>& fetch,
                                   const std::string& container) {
  auto rv = NewLocalRendezvous();
  Executor::Args args;
  args.rendezvous = rv.get();
  args.default_container = &container;
  TACT_RETURN_IF_ERROR(ex.Run(args));
  std::vector<Tensor> out;
  for (const std::string& f : fetch) {
    TACT_ASSIGN_OR_RETURN(Tensor t, rv->Recv(FetchKey(f)));
    out.push_back(t);
  }
  return out;
}

TEST(VariablesTest, Figure1AgainstAHandComputedResult) {
  auto device = NewCpuDevice(kDev, 2);
  const std::string container = ResourceMgr::Global()->NewPrivateContainerName("test");
  // Initialise W [2,3] and b [3].
  Scope init = Scope::NewRootScope();
  auto W = Variable(init, {2, 3});
  auto b = Variable(init.WithOpName("b"), {3});
  test::Fetch(init, Assign(init, W, Tensor::FromVector<float>({1, -2, 3, -4, 5, -6}, {2, 3})), "w");
  test::Fetch(init, Assign(init, b, Tensor::FromVector<float>({0.5f, 0.5f, -10})), "b");
  auto init_ex = test::MakeExecutor(init, device.get());
  ASSERT_NE(init_ex, nullptr);
  ASSERT_TRUE(Step(*init_ex, {}, container).ok());
  // relu(x W + b) with x = [[1, 2]] in a second graph naming the same variables.
  Scope s = Scope::NewRootScope();
  auto W2 = Variable(s, {2, 3});
  auto b2 = Variable(s.WithOpName("b"), {3});
  auto x = Const(s, Tensor::FromVector<float>({1, 2}, {1, 2}));
  test::Fetch(s, Relu(s, Add(s, MatMul(s, x, W2), b2)), "relu");
  auto ex = test::MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  auto out = Step(*ex, {"relu"}, container);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // x W = [1-8, -2+10, 3-12] = [-7, 8, -9]; + b = [-6.5, 8.5, -19]; relu = [0, 8.5, 0].
  const Tensor& r = (*out)[0];
  ASSERT_EQ(r.shape(), TensorShape({1, 3}));
  EXPECT_EQ(r.data<float>()[0], 0.0f);
  EXPECT_EQ(r.data<float>()[1], 8.5f);
  EXPECT_EQ(r.data<float>()[2], 0.0f);
  ResourceMgr::Global()->Reset(container);
}

TEST(VariablesTest, AssignAddOverAThousandStepsGivesExactlyAThousand) {
  auto device = NewCpuDevice(kDev, 2);
  const std::string container = ResourceMgr::Global()->NewPrivateContainerName("test");
  Scope s = Scope::NewRootScope();
  auto v = Variable(s, {}, DT_INT64);
  test::Fetch(s, Assign(s, v, Tensor::Scalar<int64_t>(0)), "init");
  auto init = test::MakeExecutor(s, device.get());
  Scope s2 = Scope::NewRootScope();
  auto v2 = Variable(s2, {}, DT_INT64);
  test::Fetch(s2, Identity(s2, AssignAdd(s2, v2, Tensor::Scalar<int64_t>(1))), "v");
  auto add = test::MakeExecutor(s2, device.get());
  ASSERT_TRUE(init && add);
  ASSERT_TRUE(Step(*init, {}, container).ok());
  StatusOr<std::vector<Tensor>> last = Status::OK();
  for (int i = 0; i < 1000; ++i) {
    last = Step(*add, {"v"}, container);
    ASSERT_TRUE(last.ok()) << last.status().ToString();
  }
  EXPECT_EQ((*last)[0].scalar<int64_t>(), 1000);
  ResourceMgr::Global()->Reset(container);
}

// AssignAdd and AssignSub on the 16-bit and complex types: half and
// bfloat16 add in float and round once (1 + 0.25 is exact in both).
TEST(VariablesTest, AssignAddAndSubOnSixteenBitAndComplexTypes) {
  auto device = NewCpuDevice(kDev, 2);
  auto check = [&](const Tensor& start, const Tensor& delta, const Tensor& after_add) {
    SCOPED_TRACE(DataTypeString(start.dtype()));
    const std::string container = ResourceMgr::Global()->NewPrivateContainerName("test");
    Scope s = Scope::NewRootScope();
    test::Fetch(s, Assign(s, Variable(s, {}, start.dtype()), start), "init");
    auto init = test::MakeExecutor(s, device.get());
    Scope s2 = Scope::NewRootScope();
    auto v = Variable(s2, {}, start.dtype());
    test::Fetch(s2, Identity(s2, AssignAdd(s2, v, delta)), "add");
    auto add = test::MakeExecutor(s2, device.get());
    Scope s3 = Scope::NewRootScope();
    test::Fetch(s3, Identity(s3, AssignSub(s3, Variable(s3, {}, start.dtype()), delta)), "sub");
    auto sub = test::MakeExecutor(s3, device.get());
    ASSERT_TRUE(init && add && sub);
    ASSERT_TRUE(Step(*init, {}, container).ok());
    auto added = Step(*add, {"add"}, container);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    EXPECT_EQ((*added)[0].DebugString(), after_add.DebugString());
    auto back = Step(*sub, {"sub"}, container);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ((*back)[0].DebugString(), start.DebugString());
    ResourceMgr::Global()->Reset(container);
  };
  check(Tensor::Scalar<half>(half(1.0f)), Tensor::Scalar<half>(half(0.25f)),
        Tensor::Scalar<half>(half(1.25f)));
  check(Tensor::Scalar<bfloat16>(bfloat16(1.0f)), Tensor::Scalar<bfloat16>(bfloat16(0.25f)),
        Tensor::Scalar<bfloat16>(bfloat16(1.25f)));
  check(Tensor::Scalar<complex64>({1, 2}), Tensor::Scalar<complex64>({0.5f, -1}),
        Tensor::Scalar<complex64>({1.5f, 1}));
}

TEST(VariablesTest, ReadingAnUninitialisedVariableNamesIt) {
  auto device = NewCpuDevice(kDev, 1);
  const std::string container = ResourceMgr::Global()->NewPrivateContainerName("test");
  Scope s = Scope::NewRootScope();
  auto W = Variable(s.WithOpName("W"), {2});
  test::Fetch(s, Identity(s.WithOpName("read"), W), "r");
  auto ex = test::MakeExecutor(s, device.get());
  ASSERT_NE(ex, nullptr);
  auto out = Step(*ex, {"r"}, container);
  EXPECT_EQ(out.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(out.status().message().find("node 'read' (op 'Identity'): input 0: variable 'W' is "
                                        "read before it was initialized"),
            std::string::npos)
      << out.status().message();
}

TEST(VariablesTest, AssignChecksTheShapeAndReportsInitialisation) {
  auto device = NewCpuDevice(kDev, 1);
  const std::string container = ResourceMgr::Global()->NewPrivateContainerName("test");
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v"), {3});
  test::Fetch(s, IsVariableInitialized(s, v), "before");
  auto check = test::MakeExecutor(s, device.get());
  EXPECT_FALSE((*Step(*check, {"before"}, container))[0].scalar<bool>());
  Scope bad = Scope::NewRootScope();
  test::Fetch(bad, Assign(bad, Variable(bad.WithOpName("v"), {3}),
                          Tensor::FromVector<float>({1, 2})), "a");
  auto assign = test::MakeExecutor(bad, device.get());
  auto out = Step(*assign, {"a"}, container);
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("cannot assign a value of shape [2] to variable 'v' of "
                                        "shape [3]"),
            std::string::npos)
      << out.status().message();
  EXPECT_FALSE((*Step(*check, {"before"}, container))[0].scalar<bool>());
}

TEST(VariablesTest, NamedContainersAreSharedPrivateOnesAreNotAndResetDrops) {
  auto device = NewCpuDevice(kDev, 1);
  const std::string session_a = ResourceMgr::Global()->NewPrivateContainerName("a");
  const std::string session_b = ResourceMgr::Global()->NewPrivateContainerName("b");
  auto build = [&](const std::string& container) {
    Scope s = Scope::NewRootScope();
    auto v = Variable(s.WithOpName("counter"), {}, DT_INT32, container);
    test::Fetch(s, Identity(s, AssignAdd(s, v, Tensor::Scalar<int32_t>(1))), "v");
    Scope i = Scope::NewRootScope();
    test::Fetch(i, Assign(i, Variable(i.WithOpName("counter"), {}, DT_INT32, container),
                          Tensor::Scalar<int32_t>(0)), "i");
    return std::make_pair(test::MakeExecutor(i, device.get()), test::MakeExecutor(s, device.get()));
  };
  // "shared" is named by both sessions: one variable.
  auto [init, add] = build("shared");
  ASSERT_TRUE(Step(*init, {}, session_a).ok());
  ASSERT_TRUE(Step(*add, {"v"}, session_a).ok());
  EXPECT_EQ((*Step(*add, {"v"}, session_b))[0].scalar<int32_t>(), 2);
  // The default (empty) container is each session's own.
  auto [pinit, padd] = build("");
  ASSERT_TRUE(Step(*pinit, {}, session_a).ok());
  ASSERT_TRUE(Step(*pinit, {}, session_b).ok());
  ASSERT_TRUE(Step(*padd, {"v"}, session_a).ok());
  EXPECT_EQ((*Step(*padd, {"v"}, session_a))[0].scalar<int32_t>(), 2);
  EXPECT_EQ((*Step(*padd, {"v"}, session_b))[0].scalar<int32_t>(), 1);
  // Reset drops the shared variable: it must be initialised again.
  EXPECT_EQ(ResourceMgr::Global()->Reset("shared"), 1);
  EXPECT_EQ(Step(*add, {"v"}, session_a).status().code(), Code::kFailedPrecondition);
  ResourceMgr::Global()->Reset(session_a);
  ResourceMgr::Global()->Reset(session_b);
}

TEST(VariablesTest, AnUpdateNeverChangesAValueReadEarlier) {
  auto device = NewCpuDevice(kDev, 1);
  const std::string container = ResourceMgr::Global()->NewPrivateContainerName("test");
  Scope s = Scope::NewRootScope();
  auto v = Variable(s, {2});
  auto init_value = Tensor::FromVector<float>({1, 2});
  test::Fetch(s, Assign(s, v, init_value), "i");
  auto init = test::MakeExecutor(s, device.get());
  ASSERT_TRUE(Step(*init, {}, container).ok());
  Scope u = Scope::NewRootScope();
  auto v2 = Variable(u, {2});
  auto read = Identity(u.WithOpName("read"), v2);
  // The update runs after the read (control edge) but while the read's
  // output is still alive for the fetch.
  test::Fetch(u, read, "before");
  auto upd = AssignAdd(u.WithControlDependencies({read}), v2, Tensor::FromVector<float>({10, 10}));
  test::Fetch(u, Identity(u, upd), "after");
  auto ex = test::MakeExecutor(u, device.get());
  auto out = Step(*ex, {"before", "after"}, container);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<float>()[1], 2.0f);
  EXPECT_EQ((*out)[1].data<float>()[1], 12.0f);
  // The Const the first Assign took its value from is untouched too.
  EXPECT_EQ(init_value.data<float>()[0], 1.0f);
  ResourceMgr::Global()->Reset(container);
}

}  // namespace
}  // namespace tact
