//===- HostKernel.h - CPU micro-kernel functions ----------------*- C++ -*-===//
//
// Part of the Quilt project. The pieces of convert-ukernel-to-host that build
// the per-candidate kernel functions (BLIS loops, packing, micro-kernel) and
// the dispatch code that calls them. Internal to the conversion.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_UKERNELTOHOST_HOSTKERNEL_H
#define QUILT_LIB_CONVERSION_UKERNELTOHOST_HOSTKERNEL_H

#include "Conversion/Utils/Epilogue.h"
#include "Conversion/Utils/IndexMath.h"
#include "Conversion/Utils/SelectLowering.h"
#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::ukernel::host {

/// Everything one kernel function is specialized on. Two dispatches whose
/// candidates, element types, epilogues and output layout agree share the
/// function.
struct KernelSpec {
  /// Cache blocks (the configuration's tile M/N/K) and register block (its
  /// thread tile); `lanes` f32 elements per vector (its vector width).
  int64_t mc = 0, nc = 0, kc = 0, mr = 0, nr = 0, lanes = 0;
  Type inputType; ///< element type of A and B
  Type accType;   ///< element type of C
  Type biasType;  ///< element type of the bias; null without one
  SmallVector<EpilogueKind> epilogue;
  /// A is stored K x M (B: N x K): the dispatch's transposes. The kernel
  /// takes operands as stored, so that packing reads them along their
  /// contiguous dimension.
  bool transposeA = false, transposeB = false;
  /// The stored operand's inner stride is statically 1: packing takes its
  /// vector paths (A, B), tiles of C are read and written as vectors in
  /// place. A non-contiguous C (and an f16/bf16 one) is staged in an f32
  /// copy.
  bool contiguousA = true, contiguousB = true, contiguousC = true;

  int64_t numVectors() const { return nr / lanes; }
  /// A symbol name that is unique per spec.
  std::string symbolName() const;
  /// The function's operand types: A (MxK, or KxM when transposed), B (KxN,
  /// or NxK), C (MxN) as strided 2-D views, then the 1-D bias (N) when there
  /// is one.
  SmallVector<Type> argumentTypes(MLIRContext *ctx) const;
};

/// Builds kernel functions on demand, once per spec, at the end of a module.
class KernelCache {
public:
  explicit KernelCache(ModuleOp module) : module(module), symbols(module) {}
  func::FuncOp getOrCreate(const KernelSpec &spec, Location loc);

private:
  ModuleOp module;
  SymbolTable symbols;
};

/// The body of a kernel function: C = epilogue(C + A * B) over the full
/// extents of its views.
void buildKernelBody(OpBuilder &b, Location loc, const KernelSpec &spec,
                     func::FuncOp func);

/// Packs rows [row0, row0 + rows) x columns [col0, col0 + cols) of the MxK
/// matrix A (`a` as stored, see KernelSpec::transposeA) into `packed` as
/// mr-tall micro-panels, each kc x mr in k-major order (element (i, k) of
/// panel q at q*kc*mr + k*mr + i), converting to f32 and zero-filling the
/// rows past `rows` of the last panel.
void packA(OpBuilder &b, Location loc, const KernelSpec &spec, Value a,
           Value row0, Value col0, Value rows, Value cols, Value packed);

/// Packs rows [row0, row0 + rows) x columns [col0, col0 + cols) of the KxN
/// matrix B (`bmat` as stored) into `packed` as nr-wide micro-panels, each
/// kc x nr (element
/// (k, j) of panel p at p*kc*nr + k*nr + j), converting to f32 and
/// zero-filling the columns past `cols` of the last panel.
void packB(OpBuilder &b, Location loc, const KernelSpec &spec, Value bmat,
           Value row0, Value col0, Value rows, Value cols, Value packed);

/// The register-blocked product of one packed A micro-panel (at `aOffset`)
/// and one packed B micro-panel (at `bOffset`) over `depth` k steps: mr x
/// (nr / lanes) vector accumulators, row-major.
SmallVector<Value> emitMicroKernel(OpBuilder &b, Location loc,
                                   const KernelSpec &spec, Value packedA,
                                   Value aOffset, Value packedB, Value bOffset,
                                   Value depth);

/// Adds the accumulators to the f32 tile of `c` at (row, col) of `rows` x
/// `cols` valid elements (at most mr x nr), applying the epilogue with the
/// f32 bias buffer when `withEpilogue`.
void emitTileUpdate(OpBuilder &b, Location loc, const KernelSpec &spec,
                    ArrayRef<Value> accs, Value c, Value row, Value col,
                    Value rows, Value cols, Value bias, bool withEpilogue);

/// Replaces a dispatch on memrefs by the GEMM-view sizes, a ukernel.select
/// and per-candidate kernel calls over the main and remainder regions.
void expandDispatch(DispatchOp op, KernelCache &kernels);

} // namespace mlir::ukernel::host

#endif // QUILT_LIB_CONVERSION_UKERNELTOHOST_HOSTKERNEL_H
