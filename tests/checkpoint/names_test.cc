// Every TensorFlow-style variable name can be checkpointed
// (docs/checkpoints.md): a variable and its optimizer slots under it, names
// that are prefixes of others, dots, spaces and UTF-8; and h5py, the
// reference reader, finds each one by its name with the values written.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "checkpoint_test_util.h"

namespace tact {
namespace {

using testing::CheckpointDirTest;
using testing::RandomTensor;
using testing::SpecsOf;
using testing::Variables;

using CheckpointNamesTest = CheckpointDirTest;

Variables NamesUsersWrite() {
  const std::vector<std::string> names = {
      "mlp/dense/kernel",       "mlp/dense/kernel/Adam", "mlp/dense/kernel/Adam_1",
      "mlp/dense/kernel/Momentum", "mlp/dense/bias",   "mlp/dense/bias/Adam",
      "a",                      "a/b",                   "ab",
      "critic/value/kernel",    "critic/value",          "k/:value",
      "with.dots/x.y",          "with space/and more",   "unicod\xc3\xa9/\xe5\x90\x8d\xe5\x89\x8d",
      "per%cent/co:lon",        "beta1_power",           "mlp/dense/kernel/RMSProp",
      "mlp/dense/kernel/RMSProp_1", "mlp/dense/kernel/Adagrad"};
  Variables vars;
  uint32_t seed = 11;
  for (const std::string& n : names) vars.emplace_back(n, RandomTensor(DT_FLOAT, {3, 2}, seed++));
  return vars;
}

TEST_F(CheckpointNamesTest, AVariableItsSlotsAndEveryKindOfNameRoundTrip) {
  const Variables vars = NamesUsersWrite();
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 5, 0, 1, vars));
  TACT_ASSERT_OK(CommitCheckpoint(dir(), 5, 1));
  StatusOr<Checkpoint> c = ReadCheckpoint(dir(), 5, SpecsOf(vars));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->variables.size(), vars.size());
  for (const auto& [name, want] : vars) {
    bool found = false;
    for (const auto& [got_name, got] : c->variables) {
      if (got_name != name) continue;
      found = true;
      EXPECT_TRUE(got.BitwiseEqual(want)) << name;
    }
    EXPECT_TRUE(found) << name;
  }
}

TEST_F(CheckpointNamesTest, AnOverlongNameIsRefusedNamingIt) {
  Status s = WriteCheckpointShard(dir(), 1, 0, 1, {{std::string(5000, 'n'), Tensor::Scalar<float>(1)}});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("longer than 4096"), std::string::npos) << s.ToString();
}

// h5py, from Debian's python3-h5py, reads each variable at the path the
// layout gives its name, checks the name attribute, and prints its values.
TEST_F(CheckpointNamesTest, H5pyFindsEachVariableByItsNameWithTheValuesWritten) {
  const Variables vars = NamesUsersWrite();
  TACT_ASSERT_OK(WriteCheckpointShard(dir(), 9, 0, 1, vars));
  const std::string file = Path("ckpt-9.shard-0-of-1.h5");
  const std::string script = Path("read.py");
  std::ofstream(script) << R"(import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert f.attrs["format"] == b"tact-checkpoint-2" or f.attrs["format"] == "tact-checkpoint-2"
def path(name):
    parts = [p.replace("%", "%25").replace(":", "%3A") for p in name.split("/")]
    return "/".join(parts) + "/:value"
for name in sys.stdin.read().split("\n")[:-1]:
    d = f[path(name)]
    stored = d.attrs["name"]
    stored = stored.decode() if isinstance(stored, bytes) else stored
    assert stored == name, (stored, name)
    print(name + "=" + ",".join(repr(float(x)) for x in d[()].ravel()))
)";
  std::string names;
  for (const auto& [name, t] : vars) names += name + "\n";
  std::ofstream(Path("names.txt")) << names;
  const std::string cmd = "/usr/bin/python3 " + script + " " + file + " < " + Path("names.txt") + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  std::istringstream lines(out);
  std::string line;
  size_t i = 0;
  for (; std::getline(lines, line) && i < vars.size(); ++i) {
    const auto& [name, t] = vars[i];
    ASSERT_EQ(line.rfind(name + "=", 0), 0u) << line;
    std::istringstream values(line.substr(name.size() + 1));
    std::string cell;
    int64_t k = 0;
    while (std::getline(values, cell, ',')) {
      ASSERT_LT(k, t.NumElements()) << name;
      const float got = static_cast<float>(std::strtod(cell.c_str(), nullptr));
      const float expect = t.data<float>()[k];
      if (std::isnan(expect)) {
        EXPECT_TRUE(std::isnan(got)) << name << "[" << k << "]";
      } else {
        EXPECT_EQ(got, expect) << name << "[" << k << "]";
      }
      ++k;
    }
    EXPECT_EQ(k, t.NumElements()) << name;
  }
  EXPECT_EQ(i, vars.size()) << out;
}

}  // namespace
}  // namespace tact
