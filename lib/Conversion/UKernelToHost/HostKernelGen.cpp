//===- HostKernelGen.cpp - One kernel function per candidate --------------===//
//
// Part of the Quilt project. A kernel function computes C = epilogue(C + A*B)
// on strided 2-D views in the BLIS loop structure:
//
//   for jc in N by nc:            B panel (kc x nc) lives in the last level
//     for pc in K by kc:          pack B[pc:, jc:] into nr-wide micro-panels
//       for ic in M by mc:        pack A[ic:, pc:] into mr-tall micro-panels
//         for jr in nc by nr:     one B micro-panel stays in L1
//           for ir in mc by mr:   mr x nr accumulators in vector registers
//
// Packing zero-pads the last micro-panels, so the micro-kernel always runs
// full mr x nr x kb; only the update of C is masked at the edges.
//
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

//===----------------------------------------------------------------------===//
// KernelSpec
//===----------------------------------------------------------------------===//

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string KernelSpec::symbolName() const {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "__quilt_host_gemm_" << mc << "x" << nc << "x" << kc << "_r" << mr
     << "x" << nr << "_v" << lanes << "_" << typeName(inputType) << "_"
     << typeName(accType);
  if (biasType)
    os << "_bias_" << typeName(biasType);
  for (EpilogueKind step : epilogue)
    os << "_" << stringifyEpilogueKind(step);
  if (transposeA)
    os << "_ta";
  if (transposeB)
    os << "_tb";
  // Non-contiguous operands, by position.
  if (!contiguousA || !contiguousB || !contiguousC)
    os << "_strided" << (contiguousA ? "" : "A") << (contiguousB ? "" : "B")
       << (contiguousC ? "" : "C");
  return name;
}

SmallVector<Type> KernelSpec::argumentTypes(MLIRContext *ctx) const {
  int64_t dyn = ShapedType::kDynamic;
  auto view = [&](Type elem, ArrayRef<int64_t> strides) {
    SmallVector<int64_t> shape(strides.size(), dyn);
    return MemRefType::get(shape, elem,
                           StridedLayoutAttr::get(ctx, dyn, strides));
  };
  auto strides = [&](bool contiguous) {
    return contiguous ? SmallVector<int64_t>{dyn, 1}
                      : SmallVector<int64_t>{dyn, dyn};
  };
  SmallVector<Type> types = {view(inputType, strides(contiguousA)),
                             view(inputType, strides(contiguousB)),
                             view(accType, strides(contiguousC))};
  if (biasType)
    types.push_back(view(biasType, {dyn}));
  return types;
}

func::FuncOp KernelCache::getOrCreate(const KernelSpec &spec, Location loc) {
  std::string name = spec.symbolName();
  if (auto existing = symbols.lookup<func::FuncOp>(name))
    return existing;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(
      b, loc, name, FunctionType::get(ctx, spec.argumentTypes(ctx), {}));
  func.setPrivate();
  // Internal linkage once in LLVM: the kernels are not part of the
  // library's interface, and the optimizer may specialize them.
  func->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
  symbols.insert(func);
  buildKernelBody(b, loc, spec, func);
  return func;
}

//===----------------------------------------------------------------------===//
// Kernel body
//===----------------------------------------------------------------------===//

namespace {

/// Emits `body(i, j)` for every element of a rows x cols iteration space.
void forEachElement(OpBuilder &b, Location loc, Value rows, Value cols,
                    function_ref<void(OpBuilder &, Value, Value)> body) {
  IndexMath im{b, loc};
  Value zero = im.c(0), one = im.c(1);
  scf::ForOp::create(b, loc, zero, rows, one, ValueRange{},
                     [&](OpBuilder &ob, Location l, Value i, ValueRange) {
                       scf::ForOp::create(ob, l, zero, cols, one, ValueRange{},
                                          [&](OpBuilder &ib, Location il,
                                              Value j, ValueRange) {
                                            body(ib, i, j);
                                            scf::YieldOp::create(ib, il);
                                          });
                       scf::YieldOp::create(ob, l);
                     });
}

Value convert(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// The kernel body proper, with C as an f32 view with contiguous rows and
/// the bias (if any) as a zero-padded f32 buffer of at least N + nr
/// elements.
void emitBlockedLoops(OpBuilder &b, Location loc, const KernelSpec &spec,
                      Value a, Value bmat, Value c, Value bias, Value m,
                      Value n, Value k) {
  IndexMath im{b, loc};
  Type f32 = b.getF32Type();
  IntegerAttr align = b.getI64IntegerAttr(64);
  // Whole micro-panels, so the zero padding of the last one fits.
  int64_t mcPadded = llvm::divideCeil(spec.mc, spec.mr) * spec.mr;
  int64_t ncPadded = llvm::divideCeil(spec.nc, spec.nr) * spec.nr;
  Value packedA = memref::AllocOp::create(
      b, loc, MemRefType::get({mcPadded * spec.kc}, f32), align);
  Value packedB = memref::AllocOp::create(
      b, loc, MemRefType::get({spec.kc * ncPadded}, f32), align);

  Value zero = im.c(0);
  Value kcV = im.c(spec.kc);
  auto forLoop = [&](OpBuilder &ob, Value ub, int64_t step,
                     function_ref<void(OpBuilder &, Value)> body) {
    IndexMath om{ob, loc};
    scf::ForOp::create(ob, loc, om.c(0), ub, om.c(step), ValueRange{},
                       [&](OpBuilder &ib, Location, Value iv, ValueRange) {
                         body(ib, iv);
                         scf::YieldOp::create(ib, loc);
                       });
  };

  forLoop(b, n, spec.nc, [&](OpBuilder &b1, Value jc) {
    IndexMath m1{b1, loc};
    Value nb = m1.min(m1.c(spec.nc), m1.sub(n, jc));
    forLoop(b1, k, spec.kc, [&](OpBuilder &b2, Value pc) {
      IndexMath m2{b2, loc};
      Value kb = m2.min(kcV, m2.sub(k, pc));
      Value isLast = m2.eq(m2.add(pc, kb), k);
      packB(b2, loc, spec, bmat, pc, jc, kb, nb, packedB);
      forLoop(b2, m, spec.mc, [&](OpBuilder &b3, Value ic) {
        IndexMath m3{b3, loc};
        Value mb = m3.min(m3.c(spec.mc), m3.sub(m, ic));
        packA(b3, loc, spec, a, ic, pc, mb, kb, packedA);
        forLoop(b3, nb, spec.nr, [&](OpBuilder &b4, Value jr) {
          IndexMath m4{b4, loc};
          Value cols = m4.min(m4.c(spec.nr), m4.sub(nb, jr));
          Value col = m4.add(jc, jr);
          Value bOffset = m4.mul(jr, kcV);
          forLoop(b4, mb, spec.mr, [&](OpBuilder &b5, Value ir) {
            IndexMath m5{b5, loc};
            Value rows = m5.min(m5.c(spec.mr), m5.sub(mb, ir));
            Value row = m5.add(ic, ir);
            SmallVector<Value> accs = emitMicroKernel(
                b5, loc, spec, packedA, m5.mul(ir, kcV), packedB, bOffset, kb);
            if (spec.epilogue.empty()) {
              emitTileUpdate(b5, loc, spec, accs, c, row, col, rows, cols, bias,
                             /*withEpilogue=*/false);
              return;
            }
            // The epilogue applies to the finished sum only: after the last
            // K block.
            scf::IfOp::create(
                b5, loc, isLast,
                [&](OpBuilder &tb, Location l) {
                  emitTileUpdate(tb, l, spec, accs, c, row, col, rows, cols,
                                 bias, /*withEpilogue=*/true);
                  scf::YieldOp::create(tb, l);
                },
                [&](OpBuilder &eb, Location l) {
                  emitTileUpdate(eb, l, spec, accs, c, row, col, rows, cols,
                                 bias, /*withEpilogue=*/false);
                  scf::YieldOp::create(eb, l);
                });
          });
        });
      });
    });
  });

  // With K = 0 the loops above store nothing, yet the epilogue still
  // applies to C (C + A*B is just C).
  if (!spec.epilogue.empty()) {
    scf::IfOp::create(b, loc, im.eq(k, zero), [&](OpBuilder &tb, Location l) {
      forEachElement(tb, l, m, n, [&](OpBuilder &ib, Value i, Value j) {
        Value x = memref::LoadOp::create(ib, l, c, ValueRange{i, j});
        Value bj =
            bias ? memref::LoadOp::create(ib, l, bias, ValueRange{j}) : Value();
        Value y = applyEpilogue(ib, l, spec.epilogue, x, bj);
        memref::StoreOp::create(ib, l, y, c, ValueRange{i, j});
      });
      scf::YieldOp::create(tb, l);
    });
  }
  memref::DeallocOp::create(b, loc, packedA);
  memref::DeallocOp::create(b, loc, packedB);
}

} // namespace

void mlir::ukernel::host::buildKernelBody(OpBuilder &b, Location loc,
                                          const KernelSpec &spec,
                                          func::FuncOp func) {
  Block *entry = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  IndexMath im{b, loc};
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  int64_t dyn = ShapedType::kDynamic;
  IntegerAttr align = b.getI64IntegerAttr(64);

  Value a = entry->getArgument(0);
  Value bmat = entry->getArgument(1);
  Value c = entry->getArgument(2);
  Value m = memref::DimOp::create(b, loc, c, 0);
  Value n = memref::DimOp::create(b, loc, c, 1);
  Value k = memref::DimOp::create(b, loc, a, spec.transposeA ? 0 : 1);

  // The blocked loops accumulate partial K blocks into C, in f32 and with
  // vector accesses along rows. A low-precision or non-contiguous C is
  // copied into an f32 buffer first (accumulating rounded partial sums in
  // f16 would lose the precision the f32 accumulation is there for).
  auto workType = MemRefType::get({dyn, dyn}, f32,
                                  StridedLayoutAttr::get(ctx, dyn, {dyn, 1}));
  Value work = c;
  Value staging;
  bool staged = !spec.accType.isF32() || !spec.contiguousC;
  if (staged) {
    staging = memref::AllocOp::create(b, loc, MemRefType::get({dyn, dyn}, f32),
                                      ValueRange{m, n}, align);
    forEachElement(b, loc, m, n, [&](OpBuilder &ib, Value i, Value j) {
      Value v = memref::LoadOp::create(ib, loc, c, ValueRange{i, j});
      memref::StoreOp::create(ib, loc, convert(ib, loc, v, f32), staging,
                              ValueRange{i, j});
    });
    work = memref::CastOp::create(b, loc, workType, staging);
  }

  // The bias in f32, padded with zeros so that a whole register block's
  // columns can be loaded at any column below N.
  Value bias;
  if (spec.biasType) {
    Value src = entry->getArgument(3);
    Value padded = im.add(n, im.c(spec.nr));
    bias = memref::AllocOp::create(b, loc, MemRefType::get({dyn}, f32),
                                   ValueRange{padded}, align);
    Value one = im.c(1);
    Value zeroF = arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0));
    scf::ForOp::create(b, loc, im.c(0), n, one, ValueRange{},
                       [&](OpBuilder &ib, Location l, Value j, ValueRange) {
                         Value v =
                             memref::LoadOp::create(ib, l, src, ValueRange{j});
                         memref::StoreOp::create(ib, l, convert(ib, l, v, f32),
                                                 bias, ValueRange{j});
                         scf::YieldOp::create(ib, l);
                       });
    scf::ForOp::create(b, loc, n, padded, one, ValueRange{},
                       [&](OpBuilder &ib, Location l, Value j, ValueRange) {
                         memref::StoreOp::create(ib, l, zeroF, bias,
                                                 ValueRange{j});
                         scf::YieldOp::create(ib, l);
                       });
  }

  emitBlockedLoops(b, loc, spec, a, bmat, work, bias, m, n, k);

  if (staged) {
    forEachElement(b, loc, m, n, [&](OpBuilder &ib, Value i, Value j) {
      Value v = memref::LoadOp::create(ib, loc, staging, ValueRange{i, j});
      memref::StoreOp::create(ib, loc, convert(ib, loc, v, spec.accType), c,
                              ValueRange{i, j});
    });
    memref::DeallocOp::create(b, loc, staging);
  }
  if (bias)
    memref::DeallocOp::create(b, loc, bias);
  func::ReturnOp::create(b, loc);
}
