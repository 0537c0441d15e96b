// An Einsum equation ("bij,bjk->bik", "...d,de->...e", "ij->ji") parsed
// and checked once, for the op's shape function, its kernel and its
// gradient, which all need the same reading of it.
//
// A label is a letter (a-z, A-Z); "..." stands for the dimensions that no
// letter names. Each operand has its own ellipsis dimensions, and they
// broadcast against each other by NumPy's rules (right-aligned; 1 pairs with
// any size); a letter's dimensions must be equal wherever it appears, as in
// TensorFlow. Spaces are ignored. Without "->" the output is NumPy's
// implicit one: "..." (if an operand has it), then every letter that appears
// exactly once, in alphabetical order (capitals first). A label of an
// operand that is not in the output is summed over.
//
// Not supported, with an error that says so: a letter twice in one operand
// (a diagonal, "ii->i"), a letter twice in the output, an output letter that
// no operand has.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "graph/status.h"
#include "graph/tensor_shape.h"

namespace tact {

struct EinsumEquation {
  // A subscript's entries: letters as 0-51 (A-Z, then a-z,
  // ASCII's order), "..." as this.
  static constexpr int kEllipsis = -1;
  // The first broadcast ellipsis dimension's label in ExpandAxes; the next
  // ones follow it.
  static constexpr int kFirstEllipsisLabel = 52;

  std::vector<std::vector<int>> inputs;  // one subscript per operand
  std::vector<int> output;

  // Number of letters (not "...") in `subscript`.
  static int NamedCount(const std::vector<int>& subscript);
  static bool HasEllipsis(const std::vector<int>& subscript);
};

// Parses `equation` for `num_inputs` operands. InvalidArgument, quoting the
// equation, for anything it cannot read or does not support (see above).
StatusOr<EinsumEquation> ParseEinsumEquation(const std::string& equation, int num_inputs);

// The subscript as text: "...ij".
std::string SubscriptString(const std::vector<int>& subscript);
// "ab,bc->ac": the equation of `inputs` and `output` as text.
std::string EquationString(const std::vector<std::vector<int>>& inputs,
                           const std::vector<int>& output);

// The sizes an equation's labels take for given operand shapes; -1 where a
// shape leaves a size unknown.
struct EinsumDims {
  std::array<int64_t, 52> letter_size;
  // The broadcast ellipsis dimensions, and whether their number is known
  // (every operand with "..." has a known rank).
  std::vector<int64_t> ellipsis;
  bool ellipsis_known = true;
  // Each operand's own number of ellipsis dimensions (-1 unknown).
  std::vector<int> operand_ellipsis_rank;

  // The size of a label of ExpandAxes.
  int64_t LabelSize(int label) const;
};

// Checks the operand shapes against the equation: each operand's rank (its
// letters, plus any number of dimensions for "..."), a letter's size
// wherever it appears, the ellipsis dimensions' broadcast. InvalidArgument
// naming the operand, the letter and the shapes otherwise.
StatusOr<EinsumDims> ResolveEinsumDims(const EinsumEquation& eq,
                                       const std::vector<PartialTensorShape>& shapes);

// The output's shape (unknown rank if the output has "..." whose rank is
// unknown).
PartialTensorShape EinsumOutputShape(const EinsumEquation& eq, const EinsumDims& dims);

// A subscript's dimensions as labels: letters as themselves, and its
// `own_rank` ellipsis dimensions as the last `own_rank` of the broadcast
// ones, kFirstEllipsisLabel + ellipsis_rank - own_rank, ... (right-aligned).
// For the output, own_rank is ellipsis_rank.
std::vector<int> ExpandAxes(const std::vector<int>& subscript, int own_rank, int ellipsis_rank);

}  // namespace tact
