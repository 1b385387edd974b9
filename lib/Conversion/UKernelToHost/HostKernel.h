//===- HostKernel.h - CPU micro-kernel functions ----------------*- C++ -*-===//
//
// Part of the Quilt project. The pieces of convert-ukernel-to-host that build
// the per-candidate kernel functions (BLIS loops, packing, micro-kernel) and
// the dispatch code that calls them. Internal to the conversion.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_UKERNELTOHOST_HOSTKERNEL_H
#define QUILT_LIB_CONVERSION_UKERNELTOHOST_HOSTKERNEL_H

#include "Conversion/Utils/ComputeType.h"
#include "Conversion/Utils/Epilogue.h"
#include "Conversion/Utils/IndexMath.h"
#include "Conversion/Utils/Loops.h"
#include "Conversion/Utils/SelectLowering.h"
#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>

namespace mlir::ukernel::host {

/// Everything one kernel function is specialized on. Two dispatches whose
/// candidates, kinds, element types, epilogues and operand layouts agree
/// share the function.
///
/// A kernel computes C = epilogue(C + A * B) on one region of the GEMM view,
/// rows [r0, r0 + rows) x columns [c0, c0 + cols), for every batch element:
///
/// | kind | A | B | C |
/// |---|---|---|---|
/// | matmul | M x K (K x M transposed) | K x N (N x K transposed) | M x N |
/// | batch_matmul | the same with a leading batch dimension |||
/// | conv2d_nhwc | the N x H x W x C image, read as its im2col matrix (M =
/// N*OH*OW rows, K = R*S*C) | the R x S x C x F filter (a K x F matrix) | the N
/// x OH x OW x F output (an M x F matrix) | | conv2d_nchw | the N x C x H x W
/// image (K = C*R*S) | the F x C x R x S filter (an F x K matrix: B transposed)
/// | the N x F x OH x OW output |
///
/// Operands are passed whole, as stored, with the region as index
/// arguments: the kernel takes the region's views itself, so that packing
/// reads every operand along its contiguous dimension and a convolution's
/// image is addressed through its own strides.
struct KernelSpec {
  /// Cache blocks (the configuration's tile M/N/K) and register block (its
  /// thread tile); `lanes` elements of computeType() per vector (its vector
  /// width).
  int64_t mc = 0, nc = 0, kc = 0, mr = 0, nr = 0, lanes = 0;
  ContractionKind kind = ContractionKind::matmul;
  Type inputType; ///< element type of A and B
  Type accType;   ///< element type of C
  Type biasType;  ///< element type of the bias; null without one
  SmallVector<EpilogueKind> epilogue;
  /// A fused epilogue body instead of named steps; its shaped operands are
  /// passed with unit inner strides (the dispatch copies one that has not).
  FusedEpilogue fused;
  /// A folded fill: C starts as this constant (C's element type), and its
  /// contents are never read. Null when C accumulates into its contents.
  FloatAttr fill;
  /// Convolution strides and dilations along (H, W).
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  /// A is stored K x M (B: N x K): the dispatch's transposes (a nchw
  /// filter is B transposed).
  bool transposeA = false, transposeB = false;
  /// The stored operand's inner stride is statically 1: packing takes its
  /// vector paths (A, B), tiles of C are read and written as vectors in
  /// place. A convolution's filter and a directly written output have
  /// identity layouts (the dispatch copies a filter that has not).
  bool contiguousA = true, contiguousB = true, contiguousC = true;
  /// A convolution's C is the 4-D output accumulated in an f32 M x F copy
  /// (nchw, a non-identity layout or a low-precision type); otherwise an
  /// f32 nhwc output with identity layout is updated in place as an M x F
  /// matrix.
  bool stagedConvOutput = false;
  /// The loops over (batch, N blocks, M blocks) form one scf.parallel whose
  /// iterations pack their own blocks: the multi-threaded kernel.
  bool parallel = false;

  bool isConv() const {
    return kind == ContractionKind::conv2d_nhwc ||
           kind == ContractionKind::conv2d_nchw;
  }
  bool isBatched() const { return kind == ContractionKind::batch_matmul; }
  /// C gets an epilogue after its last K block.
  bool hasEpilogue() const { return !epilogue.empty() || bool(fused); }
  /// Rank of A, B and C seen as matrices: 3 with a batch dimension.
  int64_t matrixRank() const { return isBatched() ? 3 : 2; }
  /// An f32 copy of C is accumulated into instead of C itself.
  bool stagesC() const {
    return isConv() ? stagedConvOutput
                    : accType != computeType() || !contiguousC;
  }
  int64_t numVectors() const { return nr / lanes; }
  /// The type the kernel packs, multiplies and accumulates in: f64 for f64
  /// inputs, f32 otherwise (f16 and bf16 are widened while packing). "f32"
  /// in the comments of the host kernels means this type.
  Type computeType() const { return computeTypeFor(inputType); }
  /// The packed loops read A where it is stored and pack only B
  /// (quilt::cpuReadsAInPlace: f32, an N block of few register-block
  /// columns, register blocks of few rows). A convolution's image is always
  /// packed: its im2col matrix is not stored.
  bool readsAInPlace() const;
  /// A symbol name that is unique per spec.
  std::string symbolName() const;
  /// The function's operand types: A, B, C as stored (strided, rank 2, 3
  /// or 4 by kind), the 1-D bias when there is one, the fused epilogue's
  /// operands, then the region's r0, c0, rows and cols.
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

/// The body of a kernel function: C = epilogue(C + A * B) over its region.
void buildKernelBody(OpBuilder &b, Location loc, const KernelSpec &spec,
                     func::FuncOp func);

/// Where packing reads A from: a matrix view, or a convolution's image
/// read as its im2col matrix.
struct ASource {
  /// The M x K (K x M when transposed) view; null for a convolution.
  Value matrix;

  // A convolution. GEMM row m is output pixel (n, oh, ow) = (m / (OH*OW),
  // m / OW % OH, m % OW); column k is the filter tap (r, s, c) (nhwc, c
  // fastest) or (c, r, s) (nchw, s fastest). Element (m, k) is
  // image[row offset(m) + k offset(k)] in the flat view.
  Value image;       ///< the image as a flat 1-D view of its buffer
  Value imageOffset; ///< the image view's offset in that buffer
  Value strideN, strideC, strideH, strideW; ///< the image's strides
  Value outH, outW;                         ///< OH, OW
  Value filterR, filterS, channels;
  Value rowOrigin; ///< GEMM row of the region's first row (r0)
  /// The module of the kernel, where an A read in place gets its row
  /// prefetcher (prefetchARows).
  ModuleOp module;
  /// Scratch index buffers: the row offsets of an A block (mc + mr) and the
  /// k offsets of a K block (kc).
  Value rowOffsets, kOffsets;
};

/// Packs rows [row0, row0 + rows) x columns [col0, col0 + cols) of the MxK
/// matrix A into `packed` as mr-tall micro-panels, each kc x mr in k-major
/// order (element (i, k) of panel q at q*kc*mr + k*mr + i), converting to
/// f32 and zero-filling the rows past `rows` of the last panel.
void packA(OpBuilder &b, Location loc, const KernelSpec &spec, const ASource &a,
           Value row0, Value col0, Value rows, Value cols, Value packed);

/// Packs rows [row0, row0 + rows) x columns [col0, col0 + cols) of the KxN
/// matrix B (`bmat` as stored) into `packed` as nr-wide micro-panels, each
/// kc x nr (element (k, j) of panel p at p*kc*nr + k*nr + j), converting to
/// f32 and zero-filling the columns past `cols` of the last panel.
void packB(OpBuilder &b, Location loc, const KernelSpec &spec, Value bmat,
           Value row0, Value col0, Value rows, Value cols, Value packed);

/// How a micro-kernel reads its operands in the body of its k loop: the f32
/// scalar A(i, k) of its register block's row i < mr, and the f32 vector j
/// < nr / lanes of the B panel's row k, `whole` when all of its lanes hold
/// columns. Builders for both sources follow.
struct MicroKernelReader {
  using AReader =
      std::function<Value(OpBuilder &, Location, Value k, int64_t i)>;
  using BReader = std::function<Value(OpBuilder &, Location, Value k, int64_t j,
                                      bool whole)>;
  AReader a;
  BReader b;
  /// B's vectors that are not whole cost more than whole ones (masked
  /// loads, which targets without them, such as NEON, expand lane by
  /// lane): panels that are all whole deserve their own micro-kernel.
  bool masksPartialVectors = false;
};

/// Reads one packed A micro-panel (at `aOffset`), resp. one packed B
/// micro-panel (at `bOffset`).
MicroKernelReader::AReader packedAReader(const KernelSpec &spec, Value packedA,
                                         Value aOffset);
MicroKernelReader::BReader packedBReader(const KernelSpec &spec, Value packedB,
                                         Value bOffset);

/// Reads the f32 A (M x K, K x M when transposed) where it is stored: the
/// register block's row i is row `row` + i, step k is column `k0` + k (a K
/// block's first column; null for 0). Rows past `rows` re-read the last
/// valid row, whose sums are never stored. Builds the row indices at `b`,
/// outside the k loop.
MicroKernelReader::AReader inPlaceAReader(OpBuilder &b, Location loc,
                                          const KernelSpec &spec, Value a,
                                          Value row, Value rows, Value k0);

/// Reads f32 operands where they are stored: A (M x K,
/// K x M when transposed) from row `row`, B (K x N with unit inner stride)
/// from column `col`. Rows past `rows` re-read the last valid row (their
/// sums are never stored); B's vectors are plain loads when whole, masked
/// ones (lanes past `cols` read as zeros) otherwise. Builds the row indices
/// and lane masks at `b`, outside the k loop.
MicroKernelReader inPlaceReader(OpBuilder &b, Location loc,
                                const KernelSpec &spec, Value a, Value bmat,
                                Value row, Value col, Value rows, Value cols);

/// The register-blocked product of one A micro-panel and one B micro-panel
/// over `depth` k steps: mr x (nr / lanes) vector accumulators, row-major.
/// Only the first `vectors` vectors of each row are computed (a panel at the
/// N edge that holds fewer columns); the others are zero. All but the last
/// of them are whole; the last is when `lastWhole`.
SmallVector<Value> emitMicroKernel(OpBuilder &b, Location loc,
                                   const KernelSpec &spec,
                                   const MicroKernelReader &read, Value depth,
                                   int64_t vectors, bool lastWhole);

/// Prefetches (for writing) the f32 tile of `c` at (row, col) of `rows` x
/// `cols` valid elements: issued before a micro-kernel's K loop, C's lines
/// arrive from the outer caches while it runs instead of stalling the
/// update after it.
void prefetchTile(OpBuilder &b, Location loc, const KernelSpec &spec, Value c,
                  Value row, Value col, Value rows, Value cols);

/// Prefetches (for reading) a register block's rows of the f32 A read in
/// place (M x K, not transposed): rows [row, row + mr) clamped to A's last,
/// columns [k0, k0 + kb), when `firstReads` (i1: the A block's first pass
/// over them; later passes find them in L2) and the rows are runs apart
/// (kb below A's row pitch). Issued register blocks ahead, the runs arrive
/// while earlier blocks compute instead of stalling their block's first k
/// steps (docs/host-codegen.md, "Prefetching the rows"). The prefetches are
/// a call to a function of `module`, created on first use.
void prefetchARows(OpBuilder &b, Location loc, const KernelSpec &spec,
                   ModuleOp module, Value a, Value row, Value k0, Value kb,
                   Value firstReads);

/// What a tile's epilogue reads besides its sums, indexed like the f32 C
/// the kernel updates (the region's rows and columns, one batch element):
/// the zero-padded f32 bias of named steps, and the fused epilogue's
/// operands (views, or scalar values).
struct EpilogueSources {
  Value bias;
  SmallVector<Value> fused;
};

/// Adds the accumulators to the f32 tile of `c` at (row, col) of `rows` x
/// `cols` valid elements (at most mr x nr), applying the epilogue, which
/// reads `sources`, when `withEpilogue`. With `fromFill` (the first K block
/// of a dispatch with a folded fill) the tile starts from the fill value:
/// C is written, not read.
void emitTileUpdate(OpBuilder &b, Location loc, const KernelSpec &spec,
                    ArrayRef<Value> accs, Value c, Value row, Value col,
                    Value rows, Value cols, const EpilogueSources &sources,
                    bool withEpilogue, bool fromFill);

/// The epilogue's inputs that every row of a column block shares, for the
/// `lanes` columns (0 for one) from `col`, read under `mask` where one is
/// given: the bias of named steps, or per fused operand its per_column
/// elements or scalar splat, null for operands that vary by row. Loaded
/// once per column block, not once per row of a register block.
SmallVector<Value> loadColumnEpilogueInputs(OpBuilder &b, Location loc,
                                            const KernelSpec &spec,
                                            const EpilogueSources &sources,
                                            Value col, int64_t lanes,
                                            Value mask);

/// The epilogue of one element (or vector of `lanes` elements, 0 for a
/// scalar) of C at (row, col): named steps or the fused body on the f32
/// `sum` and `columnInputs` (loadColumnEpilogueInputs for `col`), the
/// result converted back to f32. Vectors read their other operands' lanes
/// under `mask` where one is given.
Value emitElementEpilogue(OpBuilder &b, Location loc, const KernelSpec &spec,
                          const EpilogueSources &sources,
                          ArrayRef<Value> columnInputs, Value sum, Value row,
                          Value col, int64_t lanes, Value mask);

/// Replaces a dispatch on memrefs by the GEMM-view sizes, a ukernel.select
/// and per-candidate kernel calls over the main and remainder regions.
/// `threads` other than 1 selects the multi-threaded kernels, and the
/// selection assumes that many of the target's cores (all for 0).
void expandDispatch(DispatchOp op, KernelCache &kernels, int64_t threads);

} // namespace mlir::ukernel::host

#endif // QUILT_LIB_CONVERSION_UKERNELTOHOST_HOSTKERNEL_H
