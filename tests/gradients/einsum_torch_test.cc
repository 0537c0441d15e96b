// Einsum against torch.einsum (Debian's python3-torch) in float64: the
// values, and the gradient of sum(y^2)/2 with respect to every operand,
// for the products models use (attention, dense layers over "...", batched
// products stored in every order), NumPy's implicit output, broadcasting
// "...", labels that one operand sums alone, three operands chained by the
// builder, and complex operands. Skipped, saying so, where PyTorch is not
// installed (scripts/setup_peers.sh installs it).
#include <gtest/gtest.h>

#include <sstream>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/gradients/torch_reference.h"

namespace tact {
namespace {

struct Case {
  std::string equation;
  std::vector<TensorShape> shapes;
  bool complex = false;  // operand i is x_i + i * (x_i / 2 - 1)
};

std::vector<Case> Cases() {
  return {
      {"ij,jk->ik", {{3, 4}, {4, 5}}},
      {"ij,kj->ik", {{3, 4}, {5, 4}}},   // the second operand read transposed, no copy
      {"ji,jk->ik", {{4, 3}, {4, 5}}},   // the first read transposed
      {"ji,kj->ki", {{4, 3}, {5, 4}}},   // the product transposed into the output
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
      {"bhqd,bhkd->bhqk", {{2, 2, 3, 4}, {2, 2, 5, 4}}},
      {"bhqk,bhkd->bhqd", {{2, 2, 3, 5}, {2, 2, 5, 4}}},
      {"bqhd,bkhd->bhqk", {{2, 3, 2, 4}, {2, 5, 2, 4}}},  // both copied into order
      {"...d,de->...e", {{2, 3, 4}, {4, 5}}},
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}},  // "..." [2,1] with [5]
      {"...i,...i->i", {{1, 3}, {4, 3}}},                 // summed over broadcast "..."
      {"i...j,jk->i...k", {{2, 3, 4}, {4, 5}}},           // "..." in the middle
      {"ij->ji", {{3, 4}}},
      {"ij->", {{3, 4}}},
      {"ij->j", {{3, 4}}},
      {"ijk->kj", {{2, 3, 4}}},
      {"ji", {{3, 4}}},        // implicit: "ij", a transposition
      {"ij,jk", {{3, 4}, {4, 5}}},
      {"Ab,bA", {{3, 4}, {4, 3}}},  // implicit: every label twice, a scalar
      {"i,j->ij", {{3}, {4}}},
      {"i,i->", {{5}, {5}}},
      {"ij,ij->ij", {{3, 4}, {3, 4}}},
      {"ij,ij->i", {{3, 4}, {3, 4}}},
      {"ijk,jl->il", {{2, 3, 4}, {3, 5}}},  // k summed by the first operand alone
      {"ij,kl->ik", {{2, 3}, {4, 5}}},      // each sums one label alone
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}},
      {"bi,bj,bk->bijk", {{2, 3}, {2, 2}, {2, 2}}},
      {"ij,jk->ik", {{3, 4}, {4, 5}}, true},
      {"bqd,bkd->bqk", {{2, 3, 4}, {2, 5, 4}}, true},
      {"ij->j", {{3, 4}}, true},
      {"ij,kj->ik", {{0, 4}, {5, 4}}},  // an empty operand
      {"ij,jk->ik", {{3, 0}, {0, 5}}},  // an empty contraction: zeros
  };
}

class EinsumTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::TorchAvailable()) {
      GTEST_SKIP() << "PyTorch is not installed (scripts/setup_peers.sh installs it)";
    }
  }
};

TEST_F(EinsumTorchTest, ValuesAndGradientsMatchPyTorch) {
  const std::vector<Case> cases = Cases();
  std::ostringstream script;
  script << test::kTorchPreamble << "def ri(y):\n    return y.real + 2 * y.imag\n";
  std::vector<std::vector<std::vector<double>>> tact(cases.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case& k = cases[c];
    SCOPED_TRACE(k.equation);
    Scope s = Scope::NewRootScope();
    std::vector<Output> xs;
    std::vector<Input> operands;
    std::vector<Tensor> values;
    std::string names;
    for (size_t i = 0; i < k.shapes.size(); ++i) {
      xs.push_back(Placeholder(s, DT_DOUBLE, k.shapes[i]));
      values.push_back(RandomDoubles(k.shapes[i], 11 + 7 * c + i));
      operands.push_back(k.complex ? Complex(s, xs[i], Sub(s, Mul(s, xs[i], 0.5), 1.0)) : xs[i]);
      std::ostringstream x;
      x << "x" << i;
      script << x.str() << " = " << test::TorchTensor(values[i]) << ".requires_grad_()\n";
      std::ostringstream operand;
      operand << ", ";
      if (k.complex) {
        operand << "torch.complex(" << x.str() << ", " << x.str() << " * 0.5 - 1)";
      } else {
        operand << x.str();
      }
      names += operand.str();
    }
    Output y = Einsum(s, k.equation, operands);
    if (k.complex) y = Add(s, Real(s, y), Mul(s, Imag(s, y), 2.0));
    Output loss = Mul(s, Sum(s, Square(s, y), Range(s, 0, Rank(s, y), 1)), 0.5);
    std::vector<Output> grads;
    ASSERT_TRUE(AddSymbolicGradients(s, {loss}, xs, {}, &grads).ok()) << s.status().ToString();
    std::vector<Output> fetches = {y};
    fetches.insert(fetches.end(), grads.begin(), grads.end());
    auto got = RunGraph(s, xs, values, fetches);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (const Tensor& t : *got) tact[c].push_back(test::FlatDoubles(t));
    script << "y = torch.einsum('" << k.equation << "'" << names << ")\n"
           << (k.complex ? "y = ri(y)\n" : "") << "out(y)\n(y * y / 2).sum().backward()\n";
    for (size_t i = 0; i < k.shapes.size(); ++i) script << "out(x" << i << ".grad)\n";
  }
  auto torch = test::RunTorchScript(script.str());
  ASSERT_TRUE(torch.ok()) << torch.status().ToString();
  size_t line = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(cases[c].equation);
    for (size_t i = 0; i < tact[c].size(); ++i, ++line) {
      SCOPED_TRACE(i == 0 ? "values" : "gradient for operand " + std::to_string(i - 1));
      ASSERT_LT(line, torch->size());
      test::ExpectMatches(tact[c][i], (*torch)[line], 1e-10);
    }
  }
  EXPECT_EQ(line, torch->size());
}

// The builder's chain for three operands keeps only what later operands
// or the output need: "ij,jk,kl->il" contracts j first, into "ik".
TEST(EinsumChainTest, ThreeOperandsBecomeTwoEinsumsKeepingWhatIsNeeded) {
  Scope s = Scope::NewRootScope();
  Output a = Placeholder(s, DT_FLOAT, {2, 3}), b = Placeholder(s, DT_FLOAT, {3, 4});
  Output c = Placeholder(s, DT_FLOAT, {4, 5});
  Output y = Einsum(s, "ij,jk,kl->il", {a, b, c});
  ASSERT_TRUE(s.status().ok()) << s.status().ToString();
  std::string first;
  ASSERT_TRUE(GetAttr(y.node->input_edge(0)->src->attrs(), "equation", &first).ok());
  EXPECT_EQ(first, "ij,jk->ik");
  std::string last;
  ASSERT_TRUE(GetAttr(y.node->attrs(), "equation", &last).ok());
  EXPECT_EQ(last, "ik,kl->il");
  EXPECT_EQ(y.node->output_shape(0), PartialTensorShape({2, 5}));
}

// A gradient that would need a sum over "..." dimensions standing in the
// middle of a subscript, with shapes that do not rule out broadcasting,
// is an error that names the node and says what to do.
TEST(EinsumGradTest, AMiddleEllipsisThatMayBroadcastIsNamed) {
  Scope s = Scope::NewRootScope();
  Output a = Placeholder(s.WithOpName("a"), DT_DOUBLE);
  Output b = Placeholder(s.WithOpName("b"), DT_DOUBLE);
  Output y = Einsum(s.WithOpName("mix"), "i...j,...jk->i...k", {a, b});
  std::vector<Output> grads;
  Status st = AddSymbolicGradients(s, {Sum(s, y, Range(s, 0, Rank(s, y), 1))}, {a, b}, {}, &grads);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("Einsum 'mix'"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("put '...' first"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace tact
