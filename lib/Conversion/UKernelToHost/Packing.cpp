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
// whole panels of operands with contiguous rows take one of two vector
// paths, by which dimension of the stored operand is contiguous:
//  - the panel dimension (B, or a transposed A): each k step of a panel is
//    a contiguous run of loads, stored as is;
//  - K (A, or a transposed B): 8 k steps of a group of panel rows are loaded
//    as rows and transposed in registers.
// Everything else (the last, partial panel of a block; the last k steps;
// operands with non-unit inner strides) takes the element-wise path.
//
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

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

Value toF32(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type();
  Type target = f32;
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    target = VectorType::get(vec.getShape(), f32);
  if (getElementTypeOrSelf(v.getType()).isF32())
    return v;
  return arith::ExtFOp::create(b, loc, target, v);
}

/// Element-wise packing of k steps [kBegin, depth) of the panel at p0 with
/// `valid` real elements, zero-filling up to the panel width.
void packScalar(OpBuilder &b, Location loc, const PanelSource &src, Value p0,
                Value valid, Value kBegin, Value depth, Value panelBase,
                Value packed) {
  IndexMath im{b, loc};
  Value one = im.c(1), zero = im.c(0), widthV = im.c(src.width);
  Value zeroF =
      arith::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(0));
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

/// A whole panel whose panel dimension is contiguous: per k step, width /
/// group vector copies.
void packPanelContiguous(OpBuilder &b, Location loc, const PanelSource &src,
                         Value p0, Value depth, Value panelBase, Value packed) {
  IndexMath im{b, loc};
  Type elem = cast<MemRefType>(src.memref.getType()).getElementType();
  auto loadType = VectorType::get({src.group}, elem);
  scf::ForOp::create(
      b, loc, im.c(0), depth, im.c(1), ValueRange{},
      [&](OpBuilder &kb, Location kl, Value kk, ValueRange) {
        IndexMath km{kb, kl};
        Value dst = km.add(panelBase, km.mul(kk, km.c(src.width)));
        for (int64_t g = 0; g < src.width; g += src.group) {
          Value v = vector::LoadOp::create(
              kb, kl, loadType, src.memref,
              sourceIndex(km, src, km.add(p0, km.c(g)), kk));
          vector::StoreOp::create(kb, kl, toF32(kb, kl, v), packed,
                                  ValueRange{km.add(dst, km.c(g))});
        }
        scf::YieldOp::create(kb, kl);
      });
}

/// A whole panel whose K dimension is contiguous: blocks of kTransposeDepth
/// k steps x `group` panel elements are loaded along K and transposed in
/// registers. Returns the first k step left for the element-wise path.
Value packKContiguous(OpBuilder &b, Location loc, const PanelSource &src,
                      Value p0, Value depth, Value panelBase, Value packed) {
  IndexMath im{b, loc};
  Type elem = cast<MemRefType>(src.memref.getType()).getElementType();
  Type f32 = b.getF32Type();
  auto rowType = VectorType::get({kTransposeDepth}, elem);
  auto blockType = VectorType::get({src.group, kTransposeDepth}, f32);
  Value stepV = im.c(kTransposeDepth);
  // The largest multiple of the step within depth.
  Value whole = im.mul(arith::DivUIOp::create(b, loc, depth, stepV), stepV);
  scf::ForOp::create(
      b, loc, im.c(0), whole, stepV, ValueRange{},
      [&](OpBuilder &kb, Location kl, Value kk, ValueRange) {
        IndexMath km{kb, kl};
        for (int64_t g = 0; g < src.width; g += src.group) {
          Value block = arith::ConstantOp::create(
              kb, kl, blockType,
              DenseElementsAttr::get(blockType, kb.getF32FloatAttr(0)));
          for (int64_t r = 0; r < src.group; ++r) {
            Value row = vector::LoadOp::create(
                kb, kl, rowType, src.memref,
                sourceIndex(km, src, km.add(p0, km.c(g + r)), kk));
            block = vector::InsertOp::create(kb, kl, toF32(kb, kl, row), block,
                                             ArrayRef<int64_t>{r});
          }
          Value transposed = vector::TransposeOp::create(
              kb, kl, block, ArrayRef<int64_t>{1, 0});
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
              if (src.kInner) {
                Value rest =
                    packKContiguous(tb, tl, src, p0, depth, panelBase, packed);
                packScalar(tb, tl, src, p0, valid, rest, depth, panelBase,
                           packed);
              } else {
                packPanelContiguous(tb, tl, src, p0, depth, panelBase, packed);
              }
              scf::YieldOp::create(tb, tl);
            },
            [&](OpBuilder &eb, Location el) {
              IndexMath em{eb, el};
              packScalar(eb, el, src, p0, valid, em.c(0), depth, panelBase,
                         packed);
              scf::YieldOp::create(eb, el);
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
                                const KernelSpec &spec, Value a, Value row0,
                                Value col0, Value rows, Value cols,
                                Value packed) {
  // A's panels run along M; stored MxK (K inner) unless transposed.
  packPanels(b, loc, spec,
             panelSource(spec, a, row0, col0, !spec.transposeA,
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
