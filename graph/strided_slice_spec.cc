#include "graph/strided_slice_spec.h"

#include <algorithm>

namespace tact {
namespace {

bool Bit(int64_t mask, int i) { return i < 63 && ((mask >> i) & 1) != 0; }

}  // namespace


Status BuildDenseSlice(int rank, std::vector<int64_t> begin, std::vector<int64_t> end,
                       std::vector<int64_t> strides, SliceMasks m, std::vector<DenseDim>* dense,
                       std::vector<int>* gather) {
  int n = static_cast<int>(begin.size());
  int ellipsis_at = -1;
  for (int i = 0; i < n; ++i) {
    if (!Bit(m.ellipsis, i)) continue;
    if (ellipsis_at >= 0) {
      return errors::InvalidArgument("ellipsis_mask ", m.ellipsis,
                                     " has more than one bit set: multiple ellipses");
    }
    ellipsis_at = i;
  }
  if (ellipsis_at < 0) {  // the implied "..." at the end
    begin.push_back(0);
    end.push_back(0);
    strides.push_back(1);
    ellipsis_at = n++;
    m.ellipsis = int64_t{1} << ellipsis_at;
  }
  int new_axes_after = 0;
  for (int i = ellipsis_at + 1; i < n; ++i) new_axes_after += Bit(m.new_axis, i) ? 1 : 0;
  dense->assign(rank, DenseDim());
  int full = 0;
  for (int i = 0; i < n; ++i) {
    if (i == ellipsis_at) {
      const int next = std::min(rank, rank - (n - i) + 1 + new_axes_after);
      for (; full < next; ++full) {
        (*dense)[full].begin_masked = (*dense)[full].end_masked = true;
        gather->push_back(full);
      }
    } else if (Bit(m.new_axis, i)) {
      gather->push_back(kNewSliceAxis);
    } else {
      if (full == rank) {
        return errors::InvalidArgument("the slice spec indexes more dimensions than the input's ",
                                       rank);
      }
      DenseDim& d = (*dense)[full];
      d.begin = begin[i];
      d.end = end[i];
      d.stride = strides[i];
      d.begin_masked = Bit(m.begin, i);
      d.end_masked = Bit(m.end, i);
      d.shrink = Bit(m.shrink, i);
      gather->push_back(d.shrink ? kShrinkSliceAxis : full);
      ++full;
    }
  }
  return Status::OK();
}

Status ResolveSliceDim(const DenseDim& d, int index, int64_t dim, int64_t* first, int64_t* size) {
  if (d.stride == 0) return errors::InvalidArgument("stride of dimension ", index, " is 0");
  if (d.shrink) {
    const int64_t x = d.begin < 0 ? dim + d.begin : d.begin;
    if (x < 0 || x >= dim) {
      return errors::InvalidArgument("index ", d.begin, " is out of bounds for dimension ", index,
                                     " of size ", dim);
    }
    *first = x;
    *size = 1;
    return Status::OK();
  }
  // Stepping forward an index lies in [0, dim]; backward in [-1, dim - 1]
  // (-1 as an end means "past the first element", not "the last one").
  const bool fwd = d.stride > 0;
  const int64_t lo = fwd ? 0 : -1, hi = fwd ? dim : dim - 1;
  auto canonical = [&](int64_t x, bool masked, bool is_begin) {
    if (masked) return (is_begin == fwd) ? lo : hi;
    const int64_t x_fwd = x < 0 ? dim + x : x;
    return std::clamp(x_fwd, lo, hi);
  };
  const int64_t b = canonical(d.begin, d.begin_masked, true);
  const int64_t e = canonical(d.end, d.end_masked, false);
  const int64_t interval = e - b;
  *first = b;
  if (interval == 0 || (interval < 0) != (d.stride < 0)) {
    *size = 0;
  } else {
    *size = interval / d.stride + (interval % d.stride != 0 ? 1 : 0);
  }
  return Status::OK();
}

}  // namespace tact
