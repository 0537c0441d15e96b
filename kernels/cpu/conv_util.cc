#include "kernels/cpu/conv_util.h"

#include <algorithm>
#include <climits>
#include <cstring>
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

template <typename T>
void Im2Col(const Conv2DDims& d, const T* image, T* col) {
  const int64_t depth = d.in_depth;
  for (int64_t oy = 0; oy < d.out_rows; ++oy) {
    for (int64_t ox = 0; ox < d.out_cols; ++ox) {
      T* dst = col + (oy * d.out_cols + ox) * d.patch_size();
      for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
        const int64_t iy = oy * d.stride_rows - d.pad_rows + ky * d.dilation_rows;
        for (int64_t kx = 0; kx < d.filter_cols; ++kx, dst += depth) {
          const int64_t ix = ox * d.stride_cols - d.pad_cols + kx * d.dilation_cols;
          if (iy < 0 || iy >= d.in_rows || ix < 0 || ix >= d.in_cols) {
            std::fill(dst, dst + depth, T(0));
          } else {
            std::memcpy(dst, image + (iy * d.in_cols + ix) * depth, depth * sizeof(T));
          }
        }
      }
    }
  }
}

template <typename T>
void Col2Im(const Conv2DDims& d, const T* col, T* image) {
  const int64_t depth = d.in_depth;
  for (int64_t oy = 0; oy < d.out_rows; ++oy) {
    for (int64_t ox = 0; ox < d.out_cols; ++ox) {
      const T* src = col + (oy * d.out_cols + ox) * d.patch_size();
      for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
        const int64_t iy = oy * d.stride_rows - d.pad_rows + ky * d.dilation_rows;
        for (int64_t kx = 0; kx < d.filter_cols; ++kx, src += depth) {
          const int64_t ix = ox * d.stride_cols - d.pad_cols + kx * d.dilation_cols;
          if (iy < 0 || iy >= d.in_rows || ix < 0 || ix >= d.in_cols) continue;
          T* dst = image + (iy * d.in_cols + ix) * depth;
          for (int64_t c = 0; c < depth; ++c) dst[c] += src[c];
        }
      }
    }
  }
}

int64_t ImagesPerChunk(const Conv2DDims& d, size_t element_size) {
  constexpr int64_t kBufferBytes = int64_t{32} << 20;
  const int64_t per_image =
      std::max<int64_t>(d.out_pixels() * d.patch_size() * static_cast<int64_t>(element_size), 1);
  return std::clamp<int64_t>(kBufferBytes / per_image, 1, std::max<int64_t>(d.batch, 1));
}

template void Im2Col<float>(const Conv2DDims&, const float*, float*);
template void Im2Col<double>(const Conv2DDims&, const double*, double*);
template void Col2Im<float>(const Conv2DDims&, const float*, float*);
template void Col2Im<double>(const Conv2DDims&, const double*, double*);

}  // namespace tact
