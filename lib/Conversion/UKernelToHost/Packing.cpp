//===- Packing.cpp - Packing A blocks and B panels ------------------------===//
//
// Part of the Quilt project. Packing copies the operands' current blocks
// into contiguous f32 buffers in exactly the order the micro-kernel reads
// them, so its inner loop walks memory with unit stride whatever the
// operands' layouts and element types. Zero padding of the last micro-panel
// keeps the micro-kernel's arithmetic uniform: padded rows/columns compute
// zeros that the masked update of C never stores.
//
// Packing is a few percent of the work only if it runs at vector speed, so
// panels of operands with contiguous rows take one of two vector paths, by
// which dimension of the stored operand is contiguous:
//  - the panel dimension (B, or a transposed A): each k step of a panel is
//    a contiguous run of loads, stored as is;
//  - K (A, or a transposed B): 8 k steps of a group of panel rows are loaded
//    as rows and transposed in registers.
// The last, partial panel of a block takes the same paths with masked loads
// (lanes past the matrix read as zeros). The last k steps of the transposing
// path and operands with non-unit inner strides go element by element.
//
// A convolution's A is its image read as the im2col matrix, never
// materialized: element (m, k) is image[row offset(m) + k offset(k)], with
// the row offsets of an A block (output pixels) and the k offsets of a K
// block (filter taps) computed once per block into small index buffers.
// Each k step of a panel is then one masked gather of mr elements; an NHWC
// image with contiguous channels (C a multiple of 8) is read in runs of 8
// channels per row instead, transposed in registers like a K-contiguous A.
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

#include "Conversion/Utils/ConvIndex.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

namespace {

/// K steps one transposing vector step covers.
constexpr int64_t kTransposeDepth = 8;

/// One operand block to pack: element (p, kk), p along the panel dimension
/// (rows of A, columns of B), is stored at [pOrigin + p, kOrigin + kk] when
/// `kInner`, else at [kOrigin + kk, pOrigin + p].
struct PanelSource {
  Value memref;
  Value pOrigin, kOrigin;
  bool kInner;
  /// The stored operand's inner dimension has a static unit stride.
  bool contiguous;
  /// Micro-panel width: mr for A, nr for B.
  int64_t width;
  /// Elements per vector access along the panel dimension: a whole panel
  /// up to 16 elements, else the target's lanes (which divide nr).
  int64_t group;
};

SmallVector<Value> sourceIndex(IndexMath &im, const PanelSource &src, Value p,
                               Value kk) {
  Value pi = im.add(src.pOrigin, p), ki = im.add(src.kOrigin, kk);
  if (src.kInner)
    return {pi, ki};
  return {ki, pi};
}

/// `v` (a scalar or vector of operand elements) in the type packed panels
/// hold (computeTypeFor).
Value toF32(OpBuilder &b, Location loc, Value v) {
  Type elem = getElementTypeOrSelf(v.getType());
  Type packed = computeTypeFor(elem);
  if (elem == packed)
    return v;
  Type target = packed;
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    target = VectorType::get(vec.getShape(), packed);
  return arith::ExtFOp::create(b, loc, target, v);
}

/// Element-wise packing of k steps [kBegin, depth) of the panel at p0 with
/// `valid` real elements, zero-filling up to the panel width.
void packScalar(OpBuilder &b, Location loc, const PanelSource &src, Value p0,
                Value valid, Value kBegin, Value depth, Value panelBase,
                Value packed) {
  IndexMath im{b, loc};
  Value one = im.c(1), zero = im.c(0), widthV = im.c(src.width);
  Type packedType = cast<MemRefType>(packed.getType()).getElementType();
  Value zeroF = arith::ConstantOp::create(b, loc, packedType,
                                          b.getFloatAttr(packedType, 0));
  scf::ForOp::create(
      b, loc, kBegin, depth, one, ValueRange{},
      [&](OpBuilder &kb, Location kl, Value kk, ValueRange) {
        IndexMath km{kb, kl};
        Value dst = km.add(panelBase, km.mul(kk, widthV));
        scf::ForOp::create(
            kb, kl, zero, valid, one, ValueRange{},
            [&](OpBuilder &ib, Location il, Value e, ValueRange) {
              IndexMath em{ib, il};
              Value v = memref::LoadOp::create(
                  ib, il, src.memref, sourceIndex(em, src, em.add(p0, e), kk));
              memref::StoreOp::create(ib, il, toF32(ib, il, v), packed,
                                      ValueRange{em.add(dst, e)});
              scf::YieldOp::create(ib, il);
            });
        // Zero padding: only the last panel of a block iterates here.
        scf::ForOp::create(
            kb, kl, valid, widthV, one, ValueRange{},
            [&](OpBuilder &ib, Location il, Value e, ValueRange) {
              IndexMath em{ib, il};
              memref::StoreOp::create(ib, il, zeroF, packed,
                                      ValueRange{em.add(dst, e)});
              scf::YieldOp::create(ib, il);
            });
        scf::YieldOp::create(kb, kl);
      });
}

Value zeroVector(OpBuilder &b, Location loc, VectorType type) {
  return arith::ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 0)));
}

/// A panel whose panel dimension is contiguous: per k step, width / group
/// vector copies. A partial panel (`valid` < width, `masked`) loads only its
/// `valid` elements; the rest of the panel is zero-filled.
void packPanelContiguous(OpBuilder &b, Location loc, const PanelSource &src,
                         Value p0, Value valid, bool masked, Value depth,
                         Value panelBase, Value packed) {
  IndexMath im{b, loc};
  Type elem = cast<MemRefType>(src.memref.getType()).getElementType();
  auto loadType = VectorType::get({src.group}, elem);
  auto maskType = VectorType::get({src.group}, b.getI1Type());
  SmallVector<Value> masks;
  Value passThru;
  if (masked) {
    passThru = zeroVector(b, loc, loadType);
    for (int64_t g = 0; g < src.width; g += src.group)
      masks.push_back(vector::CreateMaskOp::create(
          b, loc, maskType, ValueRange{im.sub(valid, im.c(g))}));
  }
  scf::ForOp::create(
      b, loc, im.c(0), depth, im.c(1), ValueRange{},
      [&](OpBuilder &kb, Location kl, Value kk, ValueRange) {
        IndexMath km{kb, kl};
        Value dst = km.add(panelBase, km.mul(kk, km.c(src.width)));
        for (int64_t g = 0; g < src.width; g += src.group) {
          SmallVector<Value> index =
              sourceIndex(km, src, km.add(p0, km.c(g)), kk);
          Value v = masked ? Value(vector::MaskedLoadOp::create(
                                 kb, kl, loadType, src.memref, index,
                                 masks[g / src.group], passThru))
                           : Value(vector::LoadOp::create(kb, kl, loadType,
                                                          src.memref, index));
          vector::StoreOp::create(kb, kl, toF32(kb, kl, v), packed,
                                  ValueRange{km.add(dst, km.c(g))});
        }
        scf::YieldOp::create(kb, kl);
      });
}

/// A panel whose K dimension is contiguous: blocks of kTransposeDepth k
/// steps x `group` panel elements are loaded along K and transposed in
/// registers; in a partial panel (`masked`) the rows past `valid` are zeros.
/// Returns the first k step left for the element-wise path.
Value packKContiguous(OpBuilder &b, Location loc, const PanelSource &src,
                      Value p0, Value valid, bool masked, Value depth,
                      Value panelBase, Value packed) {
  IndexMath im{b, loc};
  Type elem = cast<MemRefType>(src.memref.getType()).getElementType();
  Type f32 = computeTypeFor(elem);
  auto rowType = VectorType::get({kTransposeDepth}, elem);
  auto maskType = VectorType::get({kTransposeDepth}, b.getI1Type());
  auto blockType = VectorType::get({src.group, kTransposeDepth}, f32);
  Value stepV = im.c(kTransposeDepth);
  // The largest multiple of the step within depth.
  Value whole = im.mul(arith::DivUIOp::create(b, loc, depth, stepV), stepV);
  // Row r of the panel is loaded whole or (past `valid`) not at all.
  SmallVector<Value> rowMasks;
  Value passThru;
  if (masked) {
    passThru = zeroVector(b, loc, rowType);
    for (int64_t r = 0; r < src.width; ++r) {
      Value size = arith::SelectOp::create(b, loc, im.lt(im.c(r), valid),
                                           stepV, im.c(0));
      rowMasks.push_back(
          vector::CreateMaskOp::create(b, loc, maskType, ValueRange{size}));
    }
  }
  scf::ForOp::create(
      b, loc, im.c(0), whole, stepV, ValueRange{},
      [&](OpBuilder &kb, Location kl, Value kk, ValueRange) {
        IndexMath km{kb, kl};
        for (int64_t g = 0; g < src.width; g += src.group) {
          Value block = zeroVector(kb, kl, blockType);
          for (int64_t r = 0; r < src.group; ++r) {
            SmallVector<Value> index =
                sourceIndex(km, src, km.add(p0, km.c(g + r)), kk);
            Value row = masked ? Value(vector::MaskedLoadOp::create(
                                     kb, kl, rowType, src.memref, index,
                                     rowMasks[g + r], passThru))
                               : Value(vector::LoadOp::create(
                                     kb, kl, rowType, src.memref, index));
            block = vector::InsertOp::create(kb, kl, toF32(kb, kl, row), block,
                                             ArrayRef<int64_t>{r});
          }
          Value transposed = vector::TransposeOp::create(
              kb, kl, block, ArrayRef<int64_t>{1, 0});
          if (src.group == src.width) {
            // The whole panel: its kTransposeDepth k steps are contiguous in
            // the packed buffer, one store of the flattened block.
            auto flatType =
                VectorType::get({kTransposeDepth * src.group}, f32);
            Value flat =
                vector::ShapeCastOp::create(kb, kl, flatType, transposed);
            Value dst = km.add(panelBase, km.mul(kk, km.c(src.width)));
            vector::StoreOp::create(kb, kl, flat, packed, ValueRange{dst});
            continue;
          }
          for (int64_t l = 0; l < kTransposeDepth; ++l) {
            Value column = vector::ExtractOp::create(kb, kl, transposed,
                                                     ArrayRef<int64_t>{l});
            Value dst = km.add(
                panelBase,
                km.add(km.mul(km.add(kk, km.c(l)), km.c(src.width)), km.c(g)));
            vector::StoreOp::create(kb, kl, column, packed, ValueRange{dst});
          }
        }
        scf::YieldOp::create(kb, kl);
      });
  return whole;
}

/// The vector paths for one panel (whole, or partial when `masked`).
void packPanelVector(OpBuilder &b, Location loc, const PanelSource &src,
                     Value p0, Value valid, bool masked, Value depth,
                     Value panelBase, Value packed) {
  if (!src.kInner) {
    packPanelContiguous(b, loc, src, p0, valid, masked, depth, panelBase,
                        packed);
    return;
  }
  Value rest = packKContiguous(b, loc, src, p0, valid, masked, depth,
                               panelBase, packed);
  packScalar(b, loc, src, p0, valid, rest, depth, panelBase, packed);
}

/// Packs a block `extent` long along the panel dimension and `depth` along
/// K into micro-panels of `width` elements (panel q at q * kc * width, k step
/// kk of it at + kk * width).
void packPanels(OpBuilder &b, Location loc, const KernelSpec &spec,
                const PanelSource &src, Value extent, Value depth,
                Value packed) {
  IndexMath im{b, loc};
  Value widthV = im.c(src.width), kcV = im.c(spec.kc);
  scf::ForOp::create(
      b, loc, im.c(0), extent, widthV, ValueRange{},
      [&](OpBuilder &pb, Location l, Value p0, ValueRange) {
        IndexMath pm{pb, l};
        Value valid = pm.min(widthV, pm.sub(extent, p0));
        // Panel p0 / width starts at (p0 / width) * kc * width = p0 * kc.
        Value panelBase = pm.mul(p0, kcV);
        if (!src.contiguous) {
          packScalar(pb, l, src, p0, valid, pm.c(0), depth, panelBase, packed);
          scf::YieldOp::create(pb, l);
          return;
        }
        scf::IfOp::create(
            pb, l, pm.eq(valid, widthV),
            [&](OpBuilder &tb, Location tl) {
              packPanelVector(tb, tl, src, p0, valid, /*masked=*/false, depth,
                              panelBase, packed);
              scf::YieldOp::create(tb, tl);
            },
            [&](OpBuilder &eb, Location el) {
              packPanelVector(eb, el, src, p0, valid, /*masked=*/true, depth,
                              panelBase, packed);
              scf::YieldOp::create(eb, el);
            });
        scf::YieldOp::create(pb, l);
      });
}

/// Packs an A block of a convolution from its image (see the file comment).
void packIm2col(OpBuilder &b, Location loc, const KernelSpec &spec,
                const ASource &a, Value row0, Value col0, Value rows,
                Value cols, Value packed) {
  IndexMath im{b, loc};
  bool nhwc = spec.kind == ContractionKind::conv2d_nhwc;
  Value zero = im.c(0), one = im.c(1);

  // Row offsets: output pixel (n, oh, ow) reads its window from image
  // element (n, oh * stride_h, ow * stride_w); the rows padding the last
  // panel point at the image's start and are masked off below.
  Value stepH = im.mul(a.strideH, im.c(spec.strideH));
  Value stepW = im.mul(a.strideW, im.c(spec.strideW));
  Value padded = im.mul(im.ceilDiv(rows, im.c(spec.mr)), im.c(spec.mr));
  scf::ForOp::create(
      b, loc, zero, padded, one, ValueRange{},
      [&](OpBuilder &rb, Location l, Value p, ValueRange) {
        IndexMath rm{rb, l};
        auto ifOp = scf::IfOp::create(
            rb, l, rm.lt(p, rows),
            [&](OpBuilder &tb, Location tl) {
              IndexMath tm{tb, tl};
              Value m = tm.add(a.rowOrigin, tm.add(row0, p));
              ConvPixel pixel = convOutputPixel(tm, m, a.outH, a.outW);
              Value off = tm.add(
                  a.imageOffset,
                  tm.add(tm.mul(pixel.n, a.strideN),
                         tm.add(tm.mul(pixel.oh, stepH),
                                tm.mul(pixel.ow, stepW))));
              scf::YieldOp::create(tb, tl, off);
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, a.imageOffset);
            });
        memref::StoreOp::create(rb, l, ifOp.getResult(0), a.rowOffsets,
                                ValueRange{p});
        scf::YieldOp::create(rb, l);
      });

  // K offsets: filter tap (r, s, c) reads image element (c, r * dilation_h,
  // s * dilation_w) of the window; k runs over (r, s, c) with c fastest
  // (nhwc) or (c, r, s) with s fastest (nchw).
  Value tapH = im.mul(a.strideH, im.c(spec.dilationH));
  Value tapW = im.mul(a.strideW, im.c(spec.dilationW));
  scf::ForOp::create(
      b, loc, zero, cols, one, ValueRange{},
      [&](OpBuilder &kb, Location l, Value kk, ValueRange) {
        IndexMath km{kb, l};
        Value k = km.add(col0, kk);
        Value r, s, c;
        if (nhwc) {
          c = km.rem(k, a.channels);
          Value t = km.div(k, a.channels);
          s = km.rem(t, a.filterS);
          r = km.div(t, a.filterS);
        } else {
          s = km.rem(k, a.filterS);
          Value t = km.div(k, a.filterS);
          r = km.rem(t, a.filterR);
          c = km.div(t, a.filterR);
        }
        Value off = km.add(km.mul(c, a.strideC),
                           km.add(km.mul(r, tapH), km.mul(s, tapW)));
        memref::StoreOp::create(kb, l, off, a.kOffsets, ValueRange{kk});
        scf::YieldOp::create(kb, l);
      });

  // NHWC with contiguous channels, C a multiple of kTransposeDepth and the
  // block starting at such a multiple: each run of kTransposeDepth k steps
  // lies in one filter tap, contiguous in the image. Those runs are loaded
  // as rows (one per panel row) and transposed in registers; the k steps
  // past the last whole run (or all, otherwise) take one gather each.
  Type elem = cast<MemRefType>(a.image.getType()).getElementType();
  Value runSteps = zero;
  if (nhwc) {
    Value depthV = im.c(kTransposeDepth);
    Value runsFit = im.eq(a.strideC, one);
    for (Value cond : {im.eq(im.rem(a.channels, depthV), zero),
                       im.eq(im.rem(col0, depthV), zero)})
      runsFit = arith::AndIOp::create(b, loc, runsFit, cond);
    runSteps = arith::SelectOp::create(
        b, loc, runsFit, im.mul(im.div(cols, depthV), depthV), zero);
  }
  auto runType = VectorType::get({kTransposeDepth}, elem);
  auto runMaskType = VectorType::get({kTransposeDepth}, b.getI1Type());
  auto blockType =
      VectorType::get({spec.mr, kTransposeDepth}, spec.computeType());
  auto flatType =
      VectorType::get({kTransposeDepth * spec.mr}, spec.computeType());

  // Gathers: one of mr elements per k step.
  auto valueType = VectorType::get({spec.mr}, elem);
  auto indexType = VectorType::get({spec.mr}, b.getIndexType());
  auto maskType = VectorType::get({spec.mr}, b.getI1Type());
  Value mrV = im.c(spec.mr), kcV = im.c(spec.kc);
  scf::ForOp::create(
      b, loc, zero, rows, mrV, ValueRange{},
      [&](OpBuilder &pb, Location l, Value p0, ValueRange) {
        IndexMath pm{pb, l};
        Value valid = pm.min(mrV, pm.sub(rows, p0));
        Value panelBase = pm.mul(p0, kcV);
        if (nhwc) {
          // Row r loads its run whole, or (past `valid`) not at all.
          SmallVector<Value> rowOffsets, runMasks;
          for (int64_t r = 0; r < spec.mr; ++r) {
            rowOffsets.push_back(memref::LoadOp::create(
                pb, l, a.rowOffsets, ValueRange{pm.add(p0, pm.c(r))}));
            Value size = arith::SelectOp::create(
                pb, l, pm.lt(pm.c(r), valid), pm.c(kTransposeDepth), pm.c(0));
            runMasks.push_back(vector::CreateMaskOp::create(pb, l, runMaskType,
                                                            ValueRange{size}));
          }
          Value runPassThru = zeroVector(pb, l, runType);
          scf::ForOp::create(
              pb, l, pm.c(0), runSteps, pm.c(kTransposeDepth), ValueRange{},
              [&](OpBuilder &kb, Location kl, Value kk, ValueRange) {
                IndexMath km{kb, kl};
                Value kOff =
                    memref::LoadOp::create(kb, kl, a.kOffsets, ValueRange{kk});
                Value block = zeroVector(kb, kl, blockType);
                for (int64_t r = 0; r < spec.mr; ++r) {
                  Value run = vector::MaskedLoadOp::create(
                      kb, kl, runType, a.image,
                      ValueRange{km.add(rowOffsets[r], kOff)}, runMasks[r],
                      runPassThru);
                  block = vector::InsertOp::create(kb, kl, toF32(kb, kl, run),
                                                   block, ArrayRef<int64_t>{r});
                }
                // k-major: the run's k steps are contiguous in the panel.
                Value transposed = vector::TransposeOp::create(
                    kb, kl, block, ArrayRef<int64_t>{1, 0});
                Value flat =
                    vector::ShapeCastOp::create(kb, kl, flatType, transposed);
                vector::StoreOp::create(
                    kb, kl, flat, packed,
                    ValueRange{km.add(panelBase, km.mul(kk, mrV))});
                scf::YieldOp::create(kb, kl);
              });
        }
        Value mask =
            vector::CreateMaskOp::create(pb, l, maskType, ValueRange{valid});
        Value rowVec = vector::LoadOp::create(pb, l, indexType, a.rowOffsets,
                                              ValueRange{p0});
        Value passThru = zeroVector(pb, l, valueType);
        scf::ForOp::create(
            pb, l, runSteps, cols, pm.c(1), ValueRange{},
            [&](OpBuilder &kb, Location kl, Value kk, ValueRange) {
              IndexMath km{kb, kl};
              Value kOff =
                  memref::LoadOp::create(kb, kl, a.kOffsets, ValueRange{kk});
              Value index = arith::AddIOp::create(
                  kb, kl, rowVec,
                  vector::BroadcastOp::create(kb, kl, indexType, kOff));
              Value v = vector::GatherOp::create(kb, kl, valueType, a.image,
                                                 ValueRange{km.c(0)}, index,
                                                 mask, passThru,
                                                 IntegerAttr());
              vector::StoreOp::create(
                  kb, kl, toF32(kb, kl, v), packed,
                  ValueRange{km.add(panelBase, km.mul(kk, mrV))});
              scf::YieldOp::create(kb, kl);
            });
        scf::YieldOp::create(pb, l);
      });
}

PanelSource panelSource(const KernelSpec &spec, Value memref, Value pOrigin,
                        Value kOrigin, bool kInner, bool contiguous,
                        int64_t width) {
  int64_t group = width <= 16 ? width : spec.lanes;
  return {memref, pOrigin, kOrigin, kInner, contiguous, width, group};
}

} // namespace

void mlir::ukernel::host::packA(OpBuilder &b, Location loc,
                                const KernelSpec &spec, const ASource &a,
                                Value row0, Value col0, Value rows, Value cols,
                                Value packed) {
  if (spec.isConv()) {
    packIm2col(b, loc, spec, a, row0, col0, rows, cols, packed);
    return;
  }
  // A's panels run along M; stored MxK (K inner) unless transposed.
  packPanels(b, loc, spec,
             panelSource(spec, a.matrix, row0, col0, !spec.transposeA,
                         spec.contiguousA, spec.mr),
             rows, cols, packed);
}

void mlir::ukernel::host::packB(OpBuilder &b, Location loc,
                                const KernelSpec &spec, Value bmat, Value row0,
                                Value col0, Value rows, Value cols,
                                Value packed) {
  // B's panels run along N; stored KxN (N inner) unless transposed.
  packPanels(b, loc, spec,
             panelSource(spec, bmat, col0, row0, spec.transposeB,
                         spec.contiguousB, spec.nr),
             cols, rows, packed);
}
