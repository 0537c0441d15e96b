// Random graphs of every registered op, run through a Session, as a graph
// file a user wrote by hand would be: inputs mostly of the right types, attrs
// of the right kinds with values from the edges (0, -1, 2^40, empty lists,
// bad strings), constants with NaN, infinity and odd shapes. Whatever the
// graph, its Run ends, with values or with an error that names what is
// wrong, and the session runs the next step; its text and binary forms give
// it back whole. Before this test two such graphs waited forever and one
// allocated until the process was killed.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "actors/session.h"
#include "graph/graph_def_codec.h"
#include "graph/graph_def_text.h"
#include "graph/node_properties.h"
#include "graph/op_registry.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// What a graph may compute with; uint16 and the quantized types have few kernels.
const DataType kTypes[] = {DT_FLOAT,      DT_FLOAT, DT_DOUBLE, DT_INT32,    DT_INT32,
                           DT_INT64,      DT_BOOL,  DT_HALF,   DT_BFLOAT16, DT_COMPLEX64,
                           DT_COMPLEX128, DT_UINT8, DT_INT8,   DT_INT16,    DT_STRING};

// Ops left out: a Dequeue or a Read of an empty queue waits, as in
// TensorFlow, for an enqueue that no other Run makes, until the step's
// timeout (each would add that timeout to the test; their ending is tested
// in queue_session_test.cc); the checkpoint ops write files into the working
// directory; the runtime's own ops (a leading '_') are not for graph files.
// Nor are the ops that other tests of this binary register for themselves
// ("Test...", "SessionTest..."): their kernels trust their inputs, and
// AddressSanitizer caught TestCheapAdd reading past a shorter input here.
bool LeftOut(const std::string& op) {
  static const std::set<std::string> left_out = {"QueueDequeue", "QueueDequeueMany", "QueueDequeueUpTo",
                                                 "ReaderRead",   "ReaderReadUpTo",   "SaveShard",
                                                 "RestoreShard", "CommitCheckpoint"};
  return op.empty() || op[0] == '_' || op.rfind("Test", 0) == 0 || op.rfind("SessionTest", 0) == 0 ||
         left_out.count(op) > 0;
}

template <typename T>
void FillNumbers(Tensor* t, std::mt19937* rng) {
  static const double kValues[] = {0,
                                   1,
                                   -1,
                                   2,
                                   3,
                                   0.5,
                                   -7,
                                   1e30,
                                   std::numeric_limits<double>::quiet_NaN(),
                                   std::numeric_limits<double>::infinity()};
  T* p = t->data<T>();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    const double v = kValues[(*rng)() % (std::is_integral_v<T> ? 7 : 10)];
    if constexpr (std::is_same_v<T, bool>) {
      p[i] = v > 0;
    } else if constexpr (std::is_integral_v<T>) {
      p[i] = static_cast<T>(static_cast<int64_t>(v));
    } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      p[i] = T(static_cast<float>(v));
    } else {
      p[i] = static_cast<T>(v);
    }
  }
}

class RandomGraph {
 public:
  explicit RandomGraph(uint32_t seed) : rng_(seed) {}

  // A graph of a few constants and up to five random ops; the last op's
  // first output is the fetch (or the op itself the target, if it has none).
  GraphDef Make(const std::vector<const OpDef*>& ops) {
    for (int i = Pick(1, 3); i > 0; --i) Constant(Choose(kTypes));
    for (int i = Pick(1, 5); i > 0; --i) Add(*ops[rng_() % ops.size()]);
    return def_;
  }
  const std::string& last() const { return last_; }
  bool last_has_outputs() const { return last_has_outputs_; }

 private:
  int Pick(int lo, int hi) { return lo + static_cast<int>(rng_() % (hi - lo + 1)); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename C>
  auto Choose(const C& c) -> decltype(*std::begin(c)) {
    return std::begin(c)[rng_() % std::size(c)];
  }
  template <typename T>
  T Choose(std::initializer_list<T> c) {
    return c.begin()[rng_() % c.size()];
  }

  std::vector<int64_t> RandomDims() {
    std::vector<int64_t> dims(Pick(0, 4));
    for (int64_t& d : dims) d = Pick(0, 4);
    return dims;
  }

  Tensor RandomTensor(DataType dtype) {
    Tensor t(dtype, TensorShape(RandomDims()));
    switch (dtype) {
      case DT_FLOAT:
        FillNumbers<float>(&t, &rng_);
        break;
      case DT_DOUBLE:
        FillNumbers<double>(&t, &rng_);
        break;
      case DT_INT32:
        FillNumbers<int32_t>(&t, &rng_);
        break;
      case DT_INT64:
        FillNumbers<int64_t>(&t, &rng_);
        break;
      case DT_BOOL:
        FillNumbers<bool>(&t, &rng_);
        break;
      case DT_HALF:
        FillNumbers<half>(&t, &rng_);
        break;
      case DT_BFLOAT16:
        FillNumbers<bfloat16>(&t, &rng_);
        break;
      case DT_COMPLEX64:
        FillNumbers<std::complex<float>>(&t, &rng_);
        break;
      case DT_COMPLEX128:
        FillNumbers<std::complex<double>>(&t, &rng_);
        break;
      case DT_UINT8:
        FillNumbers<uint8_t>(&t, &rng_);
        break;
      case DT_INT8:
        FillNumbers<int8_t>(&t, &rng_);
        break;
      case DT_INT16:
        FillNumbers<int16_t>(&t, &rng_);
        break;
      case DT_STRING:
        for (int64_t i = 0; i < t.NumElements(); ++i) t.data<std::string>()[i] = Choose({"", "a", "bc"});
        break;
      default:
        break;
    }
    return t;
  }

  std::string NewName(const char* prefix) { return prefix + std::to_string(def_.nodes.size()); }

  // A new Const of `dtype`; returns its output.
  std::string Constant(DataType dtype) {
    NodeDef n{NewName("c"), "Const", {}, "", {}};
    n.attrs["dtype"] = AttrValue::Type(dtype);
    n.attrs["value"] = AttrValue::FromTensor(RandomTensor(dtype));
    def_.nodes.push_back(n);
    outputs_.push_back({n.name + ":0", dtype});
    return n.name + ":0";
  }

  // A Variable and the Assign that initializes it; returns the Assign's
  // output, the variable's reference.
  std::string Variable(DataType dtype) {
    const Tensor init = RandomTensor(dtype);
    NodeDef v{NewName("v"), "Variable", {}, "", {}};
    v.attrs["dtype"] = AttrValue::Type(dtype);
    v.attrs["shape"] = AttrValue::Shape(PartialTensorShape(init.shape().dim_sizes()));
    def_.nodes.push_back(v);
    const std::string value = Constant(dtype);
    def_.nodes.back().attrs["value"] = AttrValue::FromTensor(init);
    NodeDef a{NewName("a"), "Assign", {v.name, value}, "", {}};
    a.attrs["T"] = AttrValue::Type(dtype);
    def_.nodes.push_back(a);
    return a.name + ":0";
  }

  // An output of `dtype` (a reference for a Ref arg), mostly one the graph
  // has, now and then one of another type.
  std::string Source(DataType dtype, bool ref) {
    if (ref) return Variable(dtype);
    if (Chance(0.03) && !outputs_.empty()) return Choose(outputs_).first;
    std::vector<std::string> have;
    for (const auto& [name, t] : outputs_) {
      if (t == dtype) have.push_back(name);
    }
    if (!have.empty() && Chance(0.8)) return Choose(have);
    return Constant(dtype);
  }

  AttrValue ValueOf(const OpDef::AttrDef& a) {
    const std::vector<int64_t> ints = {0, 1, 2, 3, -1, -2, 4, int64_t{1} << 40, -(int64_t{1} << 40)};
    std::vector<std::string> strings = {"", "x", "SAME", "VALID", "NHWC", "a/b"};
    for (const AttrValue& v : a.allowed_values) {
      if (v.kind() == AttrValue::Kind::kString) strings.push_back(v.s());
    }
    switch (a.kind) {
      case AttrValue::Kind::kInt:
        return AttrValue::Int(Choose(ints));
      case AttrValue::Kind::kFloat:
        return AttrValue::Float(Choose({0.0f, 0.5f, 1.0f, -1.0f, 1e30f}));
      case AttrValue::Kind::kBool:
        return AttrValue::Bool(Chance(0.5));
      case AttrValue::Kind::kString:
        return AttrValue::String(Choose(strings));
      case AttrValue::Kind::kType:
        return AttrValue::Type(Choose(kTypes));
      case AttrValue::Kind::kShape:
        return AttrValue::Shape(PartialTensorShape(RandomDims()));
      case AttrValue::Kind::kTensor:
        return AttrValue::FromTensor(RandomTensor(Choose({DT_FLOAT, DT_INT32})));
      case AttrValue::Kind::kIntList: {
        std::vector<int64_t> v(Choose({0, 2, 4, 4, 4, 5}));
        for (int64_t& x : v) x = Choose({1, 2, 0, -1, 3});
        return AttrValue::IntList(v);
      }
      case AttrValue::Kind::kFloatList:
        return AttrValue::FloatList({1.0f, -1.0f});
      case AttrValue::Kind::kStringList:
        return AttrValue::StringList({"f0", "f1"});
      case AttrValue::Kind::kTypeList:
        return AttrValue::TypeList({Choose(kTypes)});
      case AttrValue::Kind::kShapeList:
        return AttrValue::ShapeList({PartialTensorShape(RandomDims())});
      default:
        return AttrValue();
    }
  }

  // The types of an arg's tensors, deciding the attrs they depend on.
  std::vector<DataType> ArgTypes(const OpDef::ArgDef& arg, AttrMap* attrs) {
    if (!arg.type_list_attr.empty()) {
      if (!attrs->count(arg.type_list_attr)) {
        std::vector<DataType> types(Pick(0, 2));
        for (DataType& t : types) t = Choose({DT_FLOAT, DT_INT32, DT_INT64});
        (*attrs)[arg.type_list_attr] = AttrValue::TypeList(types);
      }
      return attrs->at(arg.type_list_attr).list_type();
    }
    DataType t = arg.type;
    if (!arg.type_attr.empty()) t = attrs->at(arg.type_attr).type();
    int64_t n = 1;
    if (!arg.number_attr.empty()) {
      if (!attrs->count(arg.number_attr)) (*attrs)[arg.number_attr] = AttrValue::Int(Pick(1, 3));
      n = attrs->at(arg.number_attr).i();
    }
    return std::vector<DataType>(n, t);
  }

  void Add(const OpDef& op) {
    NodeDef n{NewName("n"), op.name, {}, "", {}};
    // Type attrs first (from their allowed values), as the inputs follow them.
    for (const OpDef::AttrDef& a : op.attrs) {
      if (a.kind != AttrValue::Kind::kType) continue;
      std::vector<DataType> allowed;
      for (const AttrValue& v : a.allowed_values) allowed.push_back(v.type());
      n.attrs[a.name] = AttrValue::Type(allowed.empty() ? Choose(kTypes) : Choose(allowed));
    }
    for (const OpDef::ArgDef& arg : op.inputs) {
      for (DataType t : ArgTypes(arg, &n.attrs)) n.inputs.push_back(Source(t, arg.is_ref));
    }
    if (Chance(0.05) && !outputs_.empty())
      n.inputs.push_back("^" + ParseInputRef(Choose(outputs_).first)->node);
    for (const OpDef::AttrDef& a : op.attrs) {
      if (n.attrs.count(a.name)) {
        if (Chance(0.03)) n.attrs[a.name] = ValueOf(a);  // now and then a wrong count or type
        continue;
      }
      if (a.default_value && Chance(0.4)) continue;
      n.attrs[a.name] = ValueOf(a);
    }
    def_.nodes.push_back(n);
    last_ = n.name;
    last_has_outputs_ = false;
    auto props = NodeProperties::Create(n);
    if (!props.ok()) return;
    for (size_t i = 0; i < (*props)->output_types.size(); ++i) {
      last_has_outputs_ = true;
      const DataType t = (*props)->output_types[i];
      if (!IsRefType(t)) outputs_.push_back({n.name + ":" + std::to_string(i), t});
    }
  }

  std::mt19937 rng_;
  GraphDef def_;
  std::vector<std::pair<std::string, DataType>> outputs_;
  std::string last_;
  bool last_has_outputs_ = false;
};

// An error a user can act on names the node, the fetch, the attr or the
// file field it is about.
bool NamesWhatIsWrong(const std::string& message) {
  for (const char* what : {"node '", "fetch '", "attr '", "input ", "target '"}) {
    if (message.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(RandomGraphTest, EveryRunEndsWithValuesOrAClearErrorAndTheSessionGoesOn) {
  std::vector<const OpDef*> ops;
  for (const std::string& name : OpRegistry::Global()->ListOps()) {
    if (!LeftOut(name)) ops.push_back(*OpRegistry::Global()->LookUp(name));
  }
  ASSERT_GT(ops.size(), 100u);
  constexpr int kGraphs = 1500;
  int ran = 0, failed = 0;
  std::map<std::string, int> ops_that_ran;
  for (uint32_t seed = 1; seed <= kGraphs; ++seed) {
    RandomGraph random(seed);
    GraphDef def = random.Make(ops);
    // A node outside the random part: the session must still run it.
    NodeDef probe{"probe", "Const", {}, "", {}};
    probe.attrs["dtype"] = AttrValue::Type(DT_INT32);
    probe.attrs["value"] = AttrValue::FromTensor(Tensor::Scalar<int32_t>(42));
    def.nodes.push_back(probe);
    StatusOr<std::string> printed = GraphDefToText(def);
    ASSERT_TRUE(printed.ok()) << "seed " << seed << ": " << printed.status().ToString();
    const std::string text = *printed;
    // As a file holds it, text or binary, the graph comes back whole.
    StatusOr<GraphDef> from_text = GraphDefFromText(text);
    ASSERT_TRUE(from_text.ok()) << "seed " << seed << ": " << from_text.status().ToString() << "\n" << text;
    EXPECT_TRUE(*from_text == def) << "seed " << seed << "\n" << text;
    StatusOr<std::string> bytes = SerializeGraphDef(def);
    ASSERT_TRUE(bytes.ok()) << "seed " << seed << ": " << bytes.status().ToString();
    StatusOr<GraphDef> from_bytes = ParseGraphDef(*bytes);
    ASSERT_TRUE(from_bytes.ok()) << "seed " << seed << ": " << from_bytes.status().ToString();
    EXPECT_TRUE(*from_bytes == def) << "seed " << seed << "\n" << text;
    SessionOptions options;
    options.operation_timeout_ms = 20000;  // a hang fails the test instead of stopping it
    auto session = Session::Create(options);
    ASSERT_TRUE(session.ok());
    Status extended = (*session)->Extend(def);
    if (!extended.ok()) {
      EXPECT_TRUE(NamesWhatIsWrong(extended.message()))
          << "seed " << seed << ": " << extended.ToString() << "\n"
          << text;
      ASSERT_TRUE((*session)->Extend(GraphDef{{probe}}).ok()) << "seed " << seed;
    } else {
      const std::vector<std::string> fetches = {random.last() + ":0"};
      auto out = random.last_has_outputs() ? (*session)->Run({}, fetches, {})
                                           : (*session)->Run({}, {}, {random.last()});
      if (out.ok()) {
        ++ran;
      } else {
        ++failed;
        EXPECT_NE(out.status().code(), Code::kDeadlineExceeded) << "seed " << seed << "\n" << text;
        EXPECT_TRUE(NamesWhatIsWrong(out.status().message()))
            << "seed " << seed << ": " << out.status().ToString() << "\n"
            << text;
      }
    }
    auto after = (*session)->Run({}, {"probe:0"}, {});
    ASSERT_TRUE(after.ok()) << "seed " << seed << ": " << after.status().ToString() << "\n" << text;
    EXPECT_EQ((*after)[0].scalar<int32_t>(), 42) << "seed " << seed;
  }
  std::printf("%d graphs: %d ran, %d failed in Run, %d rejected by Extend\n", kGraphs, ran, failed,
              kGraphs - ran - failed);
  // The graphs reach the kernels, not only the checks before them.
  EXPECT_GT(ran, kGraphs / 10) << ran << " ran, " << failed << " failed in Run";
}

}  // namespace
}  // namespace tact
