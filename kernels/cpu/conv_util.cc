#include "kernels/cpu/conv_util.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <string>

#include "kernels/cpu/kernel_util.h"

namespace tact {

Status ReadConvAttrs(OpKernelConstruction* ctx, ConvAttrs* attrs) {
  TACT_RETURN_IF_ERROR(ctx->GetAttr("strides", &attrs->strides));
  TACT_RETURN_IF_ERROR(CheckNhwcWindowList(attrs->strides, "strides"));
  attrs->dilations = {1, 1, 1, 1};
  if (ctx->HasAttr("dilations")) {
    TACT_RETURN_IF_ERROR(ctx->GetAttr("dilations", &attrs->dilations));
  }
  TACT_RETURN_IF_ERROR(CheckNhwcWindowList(attrs->dilations, "dilations"));
  std::string padding, format;
  TACT_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  TACT_ASSIGN_OR_RETURN(attrs->padding, PaddingFromString(padding));
  TACT_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != "NHWC") {
    return errors::InvalidArgument("data_format '", format,
                                   "' is not supported on CPU; use 'NHWC'");
  }
  return Status::OK();
}

StatusOr<Conv2DDims> ComputeConv2DDims(const TensorShape& input, const TensorShape& filter,
                                       const ConvAttrs& attrs) {
  if (input.dims() != 4 || filter.dims() != 4) {
    return errors::InvalidArgument("input must be rank 4 (NHWC) and filter rank 4 (HWIO), got "
                                   "input ", input.DebugString(), " and filter ",
                                   filter.DebugString());
  }
  if (input.dim_size(3) != filter.dim_size(2)) {
    return errors::InvalidArgument("input depth ", input.dim_size(3),
                                   " does not match filter input depth ", filter.dim_size(2),
                                   ": input ", input.DebugString(), ", filter ",
                                   filter.DebugString());
  }
  Conv2DDims d;
  d.batch = input.dim_size(0);
  d.in_rows = input.dim_size(1);
  d.in_cols = input.dim_size(2);
  d.in_depth = input.dim_size(3);
  d.filter_rows = filter.dim_size(0);
  d.filter_cols = filter.dim_size(1);
  d.out_depth = filter.dim_size(3);
  d.stride_rows = attrs.strides[1];
  d.stride_cols = attrs.strides[2];
  d.dilation_rows = attrs.dilations[1];
  d.dilation_cols = attrs.dilations[2];
  StatusOr<WindowDim> rows = ComputeWindowDim(d.in_rows, d.filter_rows, d.stride_rows,
                                              d.dilation_rows, attrs.padding, "rows");
  StatusOr<WindowDim> cols = ComputeWindowDim(d.in_cols, d.filter_cols, d.stride_cols,
                                              d.dilation_cols, attrs.padding, "cols");
  for (const auto* r : {&rows, &cols}) {
    if (!r->ok()) {
      return errors::InvalidArgument(r->status().message(), " (input ", input.DebugString(),
                                     ", filter ", filter.DebugString(), ")");
    }
  }
  d.out_rows = rows->output;
  d.pad_rows = rows->pad_before;
  d.out_cols = cols->output;
  d.pad_cols = cols->pad_before;
  // OpenBLAS here takes 32-bit dimensions; the GEMMs' largest are these.
  if (d.batch * std::max(d.out_pixels(), d.in_rows * d.in_cols) > INT_MAX ||
      d.patch_size() > INT_MAX || d.out_depth > INT_MAX) {
    return errors::InvalidArgument("convolution of input ", input.DebugString(), " and filter ",
                                   filter.DebugString(), " is too large for 32-bit BLAS");
  }
  return d;
}

Status CheckOutBackprop(const TensorShape& out_backprop, const Conv2DDims& d) {
  const TensorShape want({d.batch, d.out_rows, d.out_cols, d.out_depth});
  if (out_backprop != want) {
    return errors::InvalidArgument("out_backprop has shape ", out_backprop.DebugString(),
                                   " but the convolution's output is ", want.DebugString());
  }
  return Status::OK();
}

StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes, const char* what) {
  if (sizes.dims() != 1 || sizes.NumElements() != 4) {
    return errors::InvalidArgument(what, " must be a vector of 4 elements, got shape ",
                                   sizes.shape().DebugString());
  }
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIntVector(sizes, what));
  StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) {
    return errors::InvalidArgument(what, " is not a valid shape: ", shape.status().message());
  }
  return shape;
}

StatusOr<Conv2DDims> StartConvBackprop(OpKernelContext* ctx, const ConvAttrs& attrs,
                                       ConvBackprop kind, bool depthwise, Tensor** out) {
  const bool input = kind == ConvBackprop::kInput;
  TACT_ASSIGN_OR_RETURN(TensorShape sized, ShapeFromSizes(ctx->input(input ? 0 : 1),
                                                          input ? "input_sizes" : "filter_sizes"));
  const TensorShape& given = ctx->input(input ? 1 : 0).shape();
  TACT_ASSIGN_OR_RETURN(Conv2DDims d, input ? ComputeConv2DDims(sized, given, attrs)
                                            : ComputeConv2DDims(given, sized, attrs));
  Conv2DDims output = d;
  if (depthwise) output.out_depth = d.in_depth * d.out_depth;
  TACT_RETURN_IF_ERROR(CheckOutBackprop(ctx->input(2).shape(), output));
  TACT_RETURN_IF_ERROR(ctx->allocate_output(0, sized, out));
  return d;
}

namespace {

// The taps kx in [*begin, *end) of output column `ox` that land inside the
// input; taps outside read (im2col) or drop (col2im) padding.
void InBoundsTaps(const Conv2DDims& d, int64_t ox, int64_t* begin, int64_t* end) {
  const int64_t ix0 = ox * d.stride_cols - d.pad_cols;
  int64_t b = 0, e = d.filter_cols;
  while (b < e && ix0 + b * d.dilation_cols < 0) ++b;
  while (e > b && ix0 + (e - 1) * d.dilation_cols >= d.in_cols) --e;
  *begin = b;
  *end = e;
}

}  // namespace

// With dilation 1 the in-bounds taps of one filter row read one contiguous
// run of the input row ((end - begin) * depth elements), so each run is a
// single copy or add loop; with depth 1 (a first layer) a copy per tap
// would cost more than the copying.
template <typename T>
void Im2Col(const Conv2DDims& d, const T* image, T* col) {
  const int64_t depth = d.in_depth;
  const int64_t row_len = d.filter_cols * depth;
  for (int64_t oy = 0; oy < d.out_rows; ++oy) {
    for (int64_t ox = 0; ox < d.out_cols; ++ox) {
      int64_t kb, ke;
      InBoundsTaps(d, ox, &kb, &ke);
      const int64_t ix0 = ox * d.stride_cols - d.pad_cols;
      T* dst = col + (oy * d.out_cols + ox) * d.patch_size();
      for (int64_t ky = 0; ky < d.filter_rows; ++ky, dst += row_len) {
        const int64_t iy = oy * d.stride_rows - d.pad_rows + ky * d.dilation_rows;
        if (iy < 0 || iy >= d.in_rows || kb >= ke) {
          std::fill(dst, dst + row_len, T(0));
          continue;
        }
        std::fill(dst, dst + kb * depth, T(0));
        std::fill(dst + ke * depth, dst + row_len, T(0));
        const T* src_row = image + iy * d.in_cols * depth;
        if (d.dilation_cols == 1) {
          const T* src = src_row + (ix0 + kb) * depth;
          const int64_t len = (ke - kb) * depth;
          for (int64_t j = 0; j < len; ++j) dst[kb * depth + j] = src[j];
        } else {
          for (int64_t kx = kb; kx < ke; ++kx) {
            const T* src = src_row + (ix0 + kx * d.dilation_cols) * depth;
            for (int64_t c = 0; c < depth; ++c) dst[kx * depth + c] = src[c];
          }
        }
      }
    }
  }
}

template <typename T>
void Col2Im(const Conv2DDims& d, const T* col, T* image) {
  const int64_t depth = d.in_depth;
  const int64_t row_len = d.filter_cols * depth;
  for (int64_t oy = 0; oy < d.out_rows; ++oy) {
    for (int64_t ox = 0; ox < d.out_cols; ++ox) {
      int64_t kb, ke;
      InBoundsTaps(d, ox, &kb, &ke);
      const int64_t ix0 = ox * d.stride_cols - d.pad_cols;
      const T* src = col + (oy * d.out_cols + ox) * d.patch_size();
      for (int64_t ky = 0; ky < d.filter_rows; ++ky, src += row_len) {
        const int64_t iy = oy * d.stride_rows - d.pad_rows + ky * d.dilation_rows;
        if (iy < 0 || iy >= d.in_rows) continue;
        T* dst_row = image + iy * d.in_cols * depth;
        if (d.dilation_cols == 1) {
          T* dst = dst_row + (ix0 + kb) * depth;
          const int64_t len = (ke - kb) * depth;
          for (int64_t j = 0; j < len; ++j) dst[j] += src[kb * depth + j];
        } else {
          for (int64_t kx = kb; kx < ke; ++kx) {
            T* dst = dst_row + (ix0 + kx * d.dilation_cols) * depth;
            for (int64_t c = 0; c < depth; ++c) dst[c] += src[kx * depth + c];
          }
        }
      }
    }
  }
}

ConvBatchSplit SplitConvBatch(const Conv2DDims& d, size_t element_size) {
  // Half of this machine's 512 KiB L2 per core: the GEMM's packed panels
  // need the rest. Measured on the tutorial CNN: see docs/performance.md.
  constexpr int64_t kBufferBytes = int64_t{256} << 10;
  // At most this many groups: enough for the threads to balance, few enough
  // that the filter gradient's per-group partial sums stay small.
  constexpr int64_t kMaxGroups = 16;
  ConvBatchSplit s;
  const int64_t per_image =
      std::max<int64_t>(d.out_pixels() * d.patch_size() * static_cast<int64_t>(element_size), 1);
  s.chunk = std::clamp<int64_t>(kBufferBytes / per_image, 1, std::max<int64_t>(d.batch, 1));
  const int64_t chunks = (d.batch + s.chunk - 1) / s.chunk;
  s.chunks_per_group = std::max<int64_t>((chunks + kMaxGroups - 1) / kMaxGroups, 1);
  s.groups = (d.batch + s.images_per_group() - 1) / s.images_per_group();
  return s;
}

template <typename T>
Status ForEachConvChunk(OpKernelContext* ctx, const Conv2DDims& d, const ConvBatchSplit& split,
                        const std::function<void(int64_t group, int64_t b0, int64_t n, T* col)>& fn) {
  const int64_t col_elements = split.chunk * d.out_pixels() * d.patch_size();
  std::mutex mu;
  Status status;
  const int64_t group_cost = split.images_per_group() * col_elements * d.out_depth;
  ParallelFor(ctx, split.groups, group_cost, [&](int64_t begin, int64_t end) {
    Tensor col;
    Status s = ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({col_elements}), &col);
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      if (status.ok()) status = s;
      return;
    }
    for (int64_t g = begin; g < end; ++g) {
      const int64_t g_end = std::min(d.batch, (g + 1) * split.images_per_group());
      for (int64_t b0 = g * split.images_per_group(); b0 < g_end; b0 += split.chunk) {
        fn(g, b0, std::min(split.chunk, g_end - b0), col.data<T>());
      }
    }
  });
  return status;
}

template Status ForEachConvChunk<float>(
    OpKernelContext*, const Conv2DDims&, const ConvBatchSplit&,
    const std::function<void(int64_t, int64_t, int64_t, float*)>&);
template Status ForEachConvChunk<double>(
    OpKernelContext*, const Conv2DDims&, const ConvBatchSplit&,
    const std::function<void(int64_t, int64_t, int64_t, double*)>&);
template void Im2Col<float>(const Conv2DDims&, const float*, float*);
template void Im2Col<double>(const Conv2DDims&, const double*, double*);
template void Col2Im<float>(const Conv2DDims&, const float*, float*);
template void Col2Im<double>(const Conv2DDims&, const double*, double*);

}  // namespace tact
