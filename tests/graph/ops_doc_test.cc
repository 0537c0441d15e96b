// docs/ops.md lists every op the registry holds, and names no op that it
// does not: a user who reads it finds what a graph file may name.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "graph/op_registry.h"

namespace tact {
namespace {

// CTest sets TACT_SOURCE_DIR; run by hand, the binary falls back to the
// tree it was configured from (tests/CMakeLists.txt).
std::string OpsDoc() {
  const char* env = std::getenv("TACT_SOURCE_DIR");
  const std::string source = env != nullptr && *env ? env : TACT_SOURCE_DIR_DEFAULT;
  std::ifstream in(source + "/docs/ops.md");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every `Name` in backquotes that could be an op's (a capital, then letters
// and digits).
std::set<std::string> NamesInBackquotes(const std::string& doc) {
  static const std::regex kName("`([A-Z][A-Za-z0-9]*)`");
  std::set<std::string> names;
  for (std::sregex_iterator it(doc.begin(), doc.end(), kName), end; it != end; ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

// Not the runtime's own ops (a leading _) nor the ones tests register
// (GraphTestAdd, TestNoGradient, ...).
bool IsUsersOp(const std::string& op) { return op[0] != '_' && op.find("Test") == std::string::npos; }

TEST(OpsDocTest, ListsEveryRegisteredOpAndNoOther) {
  const std::string doc = OpsDoc();
  ASSERT_FALSE(doc.empty()) << "docs/ops.md not found";
  const std::set<std::string> listed = NamesInBackquotes(doc);
  int ops = 0;
  for (const std::string& op : OpRegistry::Global()->ListOps()) {
    if (!IsUsersOp(op)) continue;
    ++ops;
    EXPECT_EQ(listed.count(op), 1u) << "op '" << op << "' is registered but not in docs/ops.md";
  }
  EXPECT_GT(ops, 150);
  // The builders that are not ops themselves, which the doc also names.
  const std::set<std::string> builders = {"Cond", "WhileLoop"};
  for (const std::string& name : listed) {
    if (builders.count(name) > 0) continue;
    EXPECT_TRUE(OpRegistry::Global()->LookUp(name).ok())
        << "docs/ops.md names '" << name << "', which is not a registered op";
  }
}

}  // namespace
}  // namespace tact
