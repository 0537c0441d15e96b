#include "kernels/cpu/pooling_util.h"

#include <string>

namespace tact {

Status ReadPoolAttrs(OpKernelConstruction* ctx, PoolAttrs* attrs) {
  TACT_RETURN_IF_ERROR(ctx->GetAttr("ksize", &attrs->ksize));
  TACT_RETURN_IF_ERROR(CheckNhwcWindowList(attrs->ksize, "ksize"));
  TACT_RETURN_IF_ERROR(ctx->GetAttr("strides", &attrs->strides));
  TACT_RETURN_IF_ERROR(CheckNhwcWindowList(attrs->strides, "strides"));
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

StatusOr<PoolDims> ComputePoolDims(const TensorShape& input, const PoolAttrs& attrs) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be rank 4 (NHWC), got shape ",
                                   input.DebugString());
  }
  PoolDims d;
  d.batch = input.dim_size(0);
  d.in_rows = input.dim_size(1);
  d.in_cols = input.dim_size(2);
  d.depth = input.dim_size(3);
  d.window_rows = attrs.ksize[1];
  d.window_cols = attrs.ksize[2];
  d.stride_rows = attrs.strides[1];
  d.stride_cols = attrs.strides[2];
  StatusOr<WindowDim> rows =
      ComputeWindowDim(d.in_rows, d.window_rows, d.stride_rows, 1, attrs.padding, "rows");
  StatusOr<WindowDim> cols =
      ComputeWindowDim(d.in_cols, d.window_cols, d.stride_cols, 1, attrs.padding, "cols");
  for (const auto* r : {&rows, &cols}) {
    if (!r->ok()) {
      return errors::InvalidArgument(r->status().message(), " (input ", input.DebugString(),
                                     ")");
    }
  }
  d.out_rows = rows->output;
  d.pad_rows = rows->pad_before;
  d.out_cols = cols->output;
  d.pad_cols = cols->pad_before;
  return d;
}

}  // namespace tact
