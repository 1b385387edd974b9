//===- ConvIndex.cpp - A convolution as an implicit GEMM ------------------===//
//
// Part of the Quilt project. See ConvIndex.h for the maps.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/ConvIndex.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::ukernel;

namespace {

/// x / y and x % y of non-negative indices, in 32 bits when `narrow`.
struct Divider {
  IndexMath &im;
  bool narrow;

  Value div(Value x, Value y) const { return op<arith::DivUIOp>(x, y); }
  Value rem(Value x, Value y) const { return op<arith::RemUIOp>(x, y); }

private:
  template <typename OpTy> Value op(Value x, Value y) const {
    if (!narrow)
      return OpTy::create(im.b, im.loc, x, y);
    Type i32 = im.b.getI32Type();
    auto cast = [&](Type to, Value v) -> Value {
      return arith::IndexCastUIOp::create(im.b, im.loc, to, v);
    };
    Value x32 = cast(i32, x);
    Value y32 = cast(i32, y);
    return cast(im.b.getIndexType(), OpTy::create(im.b, im.loc, x32, y32));
  }
};

ConvPixel outputPixel(const Divider &d, Value m, Value outH, Value outW) {
  Value pixels = d.im.mul(outH, outW);
  Value q = d.rem(m, pixels);
  return {d.div(m, pixels), d.div(q, outW), d.rem(q, outW)};
}

} // namespace

ConvPixel mlir::ukernel::convOutputPixel(IndexMath &im, Value m, Value outH,
                                         Value outW) {
  return outputPixel(Divider{im, /*narrow=*/false}, m, outH, outW);
}

SmallVector<Value, 4> mlir::ukernel::convOutputIndex(ContractionKind kind,
                                                     const ConvPixel &pixel,
                                                     Value f) {
  if (kind == ContractionKind::conv2d_nhwc)
    return {pixel.n, pixel.oh, pixel.ow, f};
  return {pixel.n, f, pixel.oh, pixel.ow};
}

ConvGeometry ConvGeometry::fromAttributes(DispatchOp op) {
  ConvGeometry g;
  g.kind = op.getKind();
  if (std::optional<ArrayRef<int64_t>> strides = op.getStrides()) {
    g.strideH = (*strides)[0];
    g.strideW = (*strides)[1];
  }
  if (std::optional<ArrayRef<int64_t>> dilations = op.getDilations()) {
    g.dilationH = (*dilations)[0];
    g.dilationW = (*dilations)[1];
  }
  return g;
}

ConvGeometry ConvGeometry::fromOperands(OpBuilder &b, Location loc,
                                        DispatchOp op, Value image,
                                        Value filter, Value output) {
  ConvGeometry g = fromAttributes(op);
  bool nhwc = g.nhwc();
  auto dim = [&](Value v, int64_t d) -> Value {
    return memref::DimOp::create(b, loc, v, d);
  };
  // image NHWC / NCHW, filter RSCF (HWCF) / FCRS, output NHWF / NFHW.
  g.images = dim(output, 0);
  g.outH = dim(output, nhwc ? 1 : 2);
  g.outW = dim(output, nhwc ? 2 : 3);
  g.filters = dim(output, nhwc ? 3 : 1);
  g.channels = dim(image, nhwc ? 3 : 1);
  g.filterR = dim(filter, nhwc ? 0 : 2);
  g.filterS = dim(filter, nhwc ? 1 : 3);
  return g;
}

Value ConvGeometry::gemmM(IndexMath &im) const {
  return im.mul(images, im.mul(outH, outW));
}

Value ConvGeometry::gemmK(IndexMath &im) const {
  return im.mul(im.mul(filterR, filterS), channels);
}

Value ConvGeometry::fitsDivide32(IndexMath &im, Value rowsEnd,
                                 Value k) const {
  // C, R, S <= K and OW <= OH*OW whenever there is anything to divide.
  Value limit = im.c(int64_t(1) << 32);
  Value ok = im.lt(rowsEnd, limit);
  for (Value v : {k, im.mul(outH, outW)})
    ok = arith::AndIOp::create(im.b, im.loc, ok, im.lt(v, limit));
  return ok;
}

ConvPixel ConvGeometry::pixel(IndexMath &im, Value m) const {
  return outputPixel(Divider{im, divide32}, m, outH, outW);
}

ConvTap ConvGeometry::tap(IndexMath &im, Value k) const {
  Divider d{im, divide32};
  ConvTap t;
  if (nhwc()) { // k = (r * S + s) * C + c
    t.c = d.rem(k, channels);
    Value rs = d.div(k, channels);
    t.s = d.rem(rs, filterS);
    t.r = d.div(rs, filterS);
  } else { // k = (c * R + r) * S + s
    t.s = d.rem(k, filterS);
    Value cr = d.div(k, filterS);
    t.r = d.rem(cr, filterR);
    t.c = d.div(cr, filterR);
  }
  return t;
}

SmallVector<Value, 4> ConvGeometry::imageIndex(IndexMath &im,
                                               const ConvPixel &pixel,
                                               const ConvTap &tap) const {
  // One op per statement: the order of evaluation of a call's arguments
  // (and with it the order of the ops in the output) is the compiler's.
  Value dilatedR = im.mul(tap.r, im.c(dilationH));
  Value stridedH = im.mul(pixel.oh, im.c(strideH));
  Value h = im.add(stridedH, dilatedR);
  Value dilatedS = im.mul(tap.s, im.c(dilationW));
  Value stridedW = im.mul(pixel.ow, im.c(strideW));
  Value w = im.add(stridedW, dilatedS);
  if (nhwc())
    return {pixel.n, h, w, tap.c};
  return {pixel.n, tap.c, h, w};
}

SmallVector<Value, 4> ConvGeometry::outputIndex(const ConvPixel &pixel,
                                                Value f) const {
  return convOutputIndex(kind, pixel, f);
}
