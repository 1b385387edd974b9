//===- ConvIndex.h - A convolution as an implicit GEMM ----------*- C++ -*-===//
//
// Part of the Quilt project. The index maps between a convolution's GEMM
// view (M = N*OH*OW, N = F, K = R*S*C) and its operands, shared by the host
// and GPU code generators so that both read and write the same elements:
//
//   GEMM row m     <-> output pixel (n, oh, ow), m = (n * OH + oh) * OW + ow
//   GEMM column k  <-> filter tap (r, s, c) in the filter's K order:
//                      nhwc (HWCF, K x F): k = (r * S + s) * C + c
//                      nchw (FCHW, F x K): k = (c * R + r) * S + s
//   A(m, k)        =   image (n, h, w, c) nhwc / (n, c, h, w) nchw with
//                      h = oh * stride_h + r * dilation_h,
//                      w = ow * stride_w + s * dilation_w
//   C(m, f)        =   output (n, oh, ow, f) nhwc / (n, f, oh, ow) nchw
//
// linalg convolutions do not pad, so every (m, k) inside the GEMM view reads
// inside the image once the operand checks (OperandChecks.cpp) have passed.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_CONVINDEX_H
#define QUILT_CONVERSION_UTILS_CONVINDEX_H

#include "Conversion/Utils/IndexMath.h"
#include "Dialect/UKernel/IR/UKernelOps.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::ukernel {

/// Output pixel (n, oh, ow) of a GEMM row.
struct ConvPixel {
  Value n, oh, ow;
};

/// Filter tap (r, s, c) of a GEMM column.
struct ConvTap {
  Value r, s, c;
};

/// The sizes and attributes that map a convolution's GEMM view to its
/// operands.
struct ConvGeometry {
  ContractionKind kind = ContractionKind::conv2d_nhwc;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  /// Output sizes: images, height, width, filters (F).
  Value images, outH, outW, filters;
  /// Image channels (C) and filter height and width (R, S).
  Value channels, filterR, filterS;

  /// Divide in 32 bits (pixel, tap): for GPU kernels, where a 64-bit
  /// division is a subroutine that needs a stack frame. The caller makes
  /// sure M, K and OH*OW are below 2^32 (fitsDivide32).
  bool divide32 = false;

  bool nhwc() const { return kind == ContractionKind::conv2d_nhwc; }
  /// i1: GEMM rows below `rowsEnd`, K and OH*OW fit the 32-bit divisions.
  Value fitsDivide32(IndexMath &im, Value rowsEnd, Value k) const;

  /// The kind, strides and dilations of a conv dispatch (no sizes).
  static ConvGeometry fromAttributes(DispatchOp op);
  /// Everything, read from the dispatch's image, 4-D filter and output.
  static ConvGeometry fromOperands(OpBuilder &b, Location loc, DispatchOp op,
                                   Value image, Value filter, Value output);

  /// GEMM-view sizes: M = N*OH*OW, K = R*S*C.
  Value gemmM(IndexMath &im) const;
  Value gemmK(IndexMath &im) const;

  /// Output pixel of GEMM row `m`.
  ConvPixel pixel(IndexMath &im, Value m) const;
  /// Filter tap of GEMM column `k`, in this kind's K order.
  ConvTap tap(IndexMath &im, Value k) const;
  /// Image element A(m, k) reads for `pixel` and `tap`.
  SmallVector<Value, 4> imageIndex(IndexMath &im, const ConvPixel &pixel,
                                   const ConvTap &tap) const;
  /// Output element of `pixel` and filter `f` (C(m, f)).
  SmallVector<Value, 4> outputIndex(const ConvPixel &pixel, Value f) const;
};

/// Output pixel (n, oh, ow) of GEMM row `m`: m = (n * outH + oh) * outW + ow.
ConvPixel convOutputPixel(IndexMath &im, Value m, Value outH, Value outW);

/// Output element of `pixel` and filter `f`: (n, oh, ow, f) for
/// conv2d_nhwc, (n, f, oh, ow) for conv2d_nchw.
SmallVector<Value, 4> convOutputIndex(ContractionKind kind,
                                      const ConvPixel &pixel, Value f);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_CONVINDEX_H
