//===- GpuKernel.h - Block-level GPU micro-kernels --------------*- C++ -*-===//
//
// Part of the Quilt project. The pieces of convert-ukernel-to-gpu: the
// specification a kernel is built from, the matrix engines (one per
// instruction family) that own the register tile, the staging of operand
// tiles into workgroup memory, and the host-side launch code. Internal to
// the conversion.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_UKERNELTOGPU_GPUKERNEL_H
#define QUILT_LIB_CONVERSION_UKERNELTOGPU_GPUKERNEL_H

#include "Conversion/Utils/ComputeType.h"
#include "Conversion/Utils/ConvIndex.h"
#include "Conversion/Utils/Epilogue.h"
#include "CostModel/KernelConfig.h"
#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir::ukernel::gpucg {

/// A CUtensorMap's bytes and alignment (cuda.h: alignas(128);
/// QUILT_GPU_TENSOR_MAP_BYTES): the host buffers a TMA launch encodes its
/// maps into and the kernel parameters that receive them (PTX wants 64).
constexpr int64_t kTensorMapBytes = 128, kTensorMapAlignment = 128;

/// Everything one kernel is specialized on. Dispatches whose candidates,
/// element types, epilogues and operand layouts agree share the kernel.
struct GpuKernelSpec {
  quilt::KernelConfig config;
  Vendor vendor = Vendor::nvidia;
  int64_t warpSize = 32;
  Type inputType; ///< element type of A and B
  Type accType;   ///< element type of C
  Type biasType;  ///< element type of the bias; null without one
  SmallVector<EpilogueKind> epilogue;
  /// The type accumulators (and SIMT shared tiles) hold: f64 for f64
  /// inputs (SIMT only), f32 otherwise.
  Type computeType() const { return computeTypeFor(inputType); }
  /// A fused epilogue body instead of named steps.
  FusedEpilogue fused;
  /// A folded fill: C starts as this constant and is written, not read.
  FloatAttr fill;
  /// A is stored K x M, B is stored N x K.
  bool transposeA = false, transposeB = false;
  /// Operands are rank 3 and block z walks the batch.
  bool batched = false;
  /// A convolution (conv2d_nhwc / conv2d_nchw; matmul otherwise) as an
  /// implicit GEMM: A is the image, read through the maps of
  /// Conversion/Utils/ConvIndex.h; B the filter collapsed to K x F (nhwc)
  /// or F x K (nchw, transposeB); C the 4-D output.
  ContractionKind kind = ContractionKind::matmul;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  /// The stored operand's inner stride is statically 1, so its rows can be
  /// read with vector loads (A, B; an nhwc image along C), and addressing
  /// an element of C needs no multiplication by its inner stride (C of a
  /// matmul or batch matmul).
  bool contiguousA = true, contiguousB = true, contiguousC = true;
  /// Global-to-workgroup copies can run asynchronously (cp.async, sm_80 and
  /// later), so the kernel keeps `config.stages` tiles in flight; without
  /// them it stages one tile at a time.
  bool asyncCopies = false;
  /// The dynamic workgroup memory a block may use: a kernel builds fewer
  /// stages than its configuration asks for when the padded tiles of all of
  /// them would not fit.
  int64_t maxWorkgroupBytes = 0;
  /// A wgmma candidate is issued as wgmma.mma_async over swizzled tiles
  /// (sm_90a, WgmmaEngine.cpp) rather than as mma.sync. Set only where
  /// `canIssueWgmma` holds.
  bool nativeWgmma = false;
  /// The kernel loads its tiles with TMA (cp.async.bulk.tensor into the
  /// swizzled tiles, completion on an mbarrier per stage) from tensor maps
  /// the host encodes per launch. Set only where `canLoadWithTma` holds;
  /// the host launches the spec without it when an operand's view cannot
  /// be described by a tensor map.
  bool tmaLoads = false;
  /// A TMA kernel of whole tiles is warp-specialized where this is set: a
  /// producer warpgroup of this many threads after the configuration's,
  /// whose first thread issues every K step's loads into the ring of stages
  /// while the consumers (threads [0, config.threads)) multiply
  /// (quilt::ProducerWarpgroup, KernelBuilder.cpp). 0: the consumers' thread
  /// 0 issues the loads between its multiplications.
  int64_t producerThreads = 0;
  /// Where the kernel moves registers (`setmaxnreg`; 0 where it does not):
  /// what the producer keeps, and what the consumers take.
  int64_t producerRegisters = 0, consumerRegisters = 0;
  /// The blocks an SM holds that the kernel asks ptxas for (0: none): those
  /// its block size and workgroup memory allow, where the cost model's
  /// register estimate allows as many and they leave a thread more
  /// registers than the estimate. An NVIDIA kernel asks for that occupancy
  /// (`.minnctapersm`, KernelBuilder.cpp). Where registers bind, or the
  /// blocks leave exactly the estimate, a cap there spills whatever the
  /// estimate missed.
  int64_t minBlocksPerSM = 0;
  /// A kernel of whole tiles takes its tiles in groups of this many tile
  /// rows, column after column within a group (grouped rasterization), so
  /// that the blocks the GPU runs at once cover the compact footprint the
  /// cost model prices (quilt::waveFootprintRows); 1 walks the grid's
  /// columns of rows, in launch order. Stream-K kernels number their tiles
  /// themselves.
  int64_t groupRows = 1;

  /// The threads a block is launched with: the consumers' and the
  /// producer's.
  int64_t blockThreads() const { return config.threads + producerThreads; }

  /// The element type the kernel writes right after its K loop: C's, or a
  /// split-K kernel's partial sums in the compute type.
  Type writtenType() const { return splitsK() ? computeType() : accType; }

  bool isConv() const {
    return kind == ContractionKind::conv2d_nhwc ||
           kind == ContractionKind::conv2d_nchw;
  }
  /// A split-K kernel (`config.splitK` > 1): block z is (matrix, split) =
  /// (z / splits, z % splits); the block multiplies its split's range of K
  /// and writes the tile's partial sums, in the compute type, to matrix z of
  /// a workspace; the last of the tile's blocks to arrive finishes C
  /// (SplitKFixup.cpp). The split count is a launch operand, so candidates
  /// that differ only in it share the kernel.
  bool splitsK() const { return config.splitK > 1; }
  /// A stream-K kernel (`config.streamK` > 0): a grid of G persistent
  /// blocks (at most the configuration's), the tiles' K steps numbered
  /// tile after tile and block g taking [g U / G, (g + 1) U / G) of the U
  /// steps. A block writes C for each tile it covers whole; of a tile it
  /// shares it stores partial sums in one of its two workspace slots and
  /// counts its arrival, and the tile's last block finishes it
  /// (SplitKFixup.cpp). G is the grid's: candidates that differ only in
  /// it share the kernel.
  bool streamsK() const { return config.streamK > 0; }
  /// Blocks finish other blocks' tiles (split-K or stream-K).
  bool sharesTiles() const { return splitsK() || streamsK(); }

  /// A symbol name that is unique per spec.
  std::string symbolName() const;
  /// Kernel operands: A, B, C (strided views, rank 3 when batched), the bias
  /// (1-D) when there is one, the fused epilogue's operands (scalars, 1-D
  /// windows of the region's columns or rows, per_element windows like
  /// C's), with `tmaLoads` the tensor maps of A and B
  /// (!llvm.ptr to global memory), then an i32 of VectorFlags. A convolution's
  /// are the image (rank 4), the filter matrix (rank 2), the output window
  /// (rank 4, its F dimension starting at the region's first column), the
  /// bias, the fused operands, then (index) the region's first GEMM row, its
  /// row count and the filter's R and S, then the flags. A split-K kernel
  /// takes the kSplitKOperands before the tensor maps and the flags, a
  /// stream-K kernel the kStreamKOperands.
  SmallVector<Type> argumentTypes(MLIRContext *ctx) const;
  /// Index operands of a convolution kernel between the bias and the flags.
  static constexpr unsigned kConvIndexOperands = 4;
  /// A split-K kernel's operands before the tensor maps and the flags: the
  /// workspace (rank 3, [matrices x splits][rows][cols] of the compute type,
  /// contiguous rows), the arrival counters (1-D i32, one per tile of each
  /// matrix, zero at launch and left zero: quilt_gpu_arrival_counters), the
  /// split count and the K elements of a split (a multiple of the K tile).
  static constexpr unsigned kSplitKOperands = 4;
  /// A stream-K kernel's, in the same place: the workspace (rank 3, two
  /// slots of TM x TN partial sums per block: [2 G][TM][TN] of the compute
  /// type) and the arrival counters (one per tile of each matrix).
  static constexpr unsigned kStreamKOperands = 2;
  /// Position of the first fused epilogue operand.
  unsigned firstFusedOperand() const { return 3 + (biasType ? 1 : 0); }
  /// Number of fused epilogue operands.
  unsigned numFusedOperands() const { return fused ? fused.kinds.size() : 0; }
  /// Position of a convolution's first index operand, and of the workspace.
  unsigned firstConvIndexOperand() const {
    return firstFusedOperand() + numFusedOperands();
  }
  unsigned firstSplitKOperand() const {
    return firstConvIndexOperand() + (isConv() ? kConvIndexOperands : 0);
  }
};

/// A generated kernel and what a launch of it needs besides its operands.
struct GpuKernel {
  gpu::GPUFuncOp func;
  /// Bytes of dynamic workgroup memory it uses.
  int64_t workgroupBytes = 0;
  /// Elements of C it writes with one vector access where the host finds
  /// C aligned for it (kVectorC); 1: element by element.
  int64_t cVectorWidth = 1;
  /// Threads a block is launched with (GpuKernelSpec::blockThreads).
  int64_t blockThreads = 0;
};

/// The writes of C after the K loop, shared by the kernels' element and
/// vector paths and the split-K fixup: C = epilogue(C + acc) per element, in
/// the accumulators' type, with the dispatch's named steps or its fused body
/// (its operands read from the block's windows, like C). A writer of
/// partial sums (a split-K kernel's, before the fixup) instead stores acc
/// unchanged into its workspace matrix, at GEMM coordinates, without
/// reading it.
class EpilogueWriter {
public:
  /// `target`: the block's C (a matrix; a convolution's whole output) or,
  /// with `partialSums`, a split-K block's workspace matrix; `bias` null
  /// without one; `fusedOperands` the block's windows (matrices for
  /// per-element ones); `conv` and `rowOrigin` for a convolution's output.
  EpilogueWriter(const GpuKernelSpec &spec, Value target, Value bias,
                 ValueRange fusedOperands, const ConvGeometry *conv,
                 Value rowOrigin, bool partialSums = false)
      : spec(spec), target(target), bias(bias),
        fusedOperands(fusedOperands.begin(), fusedOperands.end()), conv(conv),
        rowOrigin(rowOrigin), partialSums(partialSums) {}

  /// What is written: C, or the workspace matrix.
  Value destination() const { return target; }
  /// Its element type: C's, or the compute type of partial sums.
  Type elementType() const {
    return partialSums ? spec.computeType() : spec.accType;
  }
  /// Whether an element's new value reads the old one (not for a folded
  /// fill, not for partial sums).
  bool readsOld() const { return !spec.fill && !partialSums; }
  /// The destination's indices of GEMM element (gr, gc).
  SmallVector<Value> index(OpBuilder &b, Location loc, Value gr,
                           Value gc) const;
  /// The element written for accumulator `acc` at (gr, gc), from the old
  /// value `old` (the destination's type; null where readsOld is false).
  Value element(OpBuilder &b, Location loc, Value old, Value acc, Value gr,
                Value gc) const;
  /// Writes element (gr, gc) where it lies inside the m x n view.
  void store(OpBuilder &b, Location loc, Value acc, Value gr, Value gc, Value m,
             Value n) const;
  /// Writes element (gr, gc), which the caller knows lies inside.
  void storeInside(OpBuilder &b, Location loc, Value acc, Value gr,
                   Value gc) const;

private:
  const GpuKernelSpec &spec;
  Value target, bias;
  SmallVector<Value> fusedOperands;
  const ConvGeometry *conv;
  Value rowOrigin;
  /// Partial sums, stored unchanged.
  const bool partialSums;
};

/// Matrix `index` of a rank-3 strided view, as a rank-2 view.
Value matrixAt(OpBuilder &b, Location loc, Value batched, Value index);

/// A convolution kernel's geometry as far as its whole `output` gives it:
/// the spec's kind, strides and dilations, the output's images, height,
/// width and filters, divisions in 32 bits (the host checks the sizes).
/// The image's channels and the filter's R and S are the caller's.
ConvGeometry convOutputGeometry(OpBuilder &b, Location loc,
                                const GpuKernelSpec &spec, Value output);

/// Bits of the kernel's last operand: which operands the host found aligned
/// for vector accesses (base address and every row stride a multiple of the
/// vector), decided per launch: A and B for loads of the configuration's
/// width (for an nhwc image, also its channel count), C for the kernel's
/// `cVectorWidth`.
enum VectorFlags : int32_t { kVectorA = 1, kVectorB = 2, kVectorC = 4 };

/// Values every piece of a kernel body needs.
struct ThreadContext {
  Value tid;    ///< linear thread id in the block
  Value warpId; ///< tid / warp size
  Value laneId; ///< tid % warp size
};

/// What a block that shares its tile (split-K, stream-K) hands the fixup
/// (SplitKFixup.cpp) once it has stored its partial sums.
struct TileFixup {
  /// The kernel's arrival counters, the tile's index among them, and how
  /// many blocks store partial sums of the tile (the arrivals that
  /// complete it).
  Value counters, counterIndex, contributors;
  /// Contributor `i`'s partial sum of GEMM element (gr, gc), contributors
  /// numbered in K order.
  std::function<Value(OpBuilder &, Location, Value i, Value gr, Value gc)>
      loadPartial;
  /// The tile's first row and column, and the GEMM view's M and N.
  Value row0, col0, m, n;
  /// Where in workgroup memory (an i8 memref) the fixup may keep a word,
  /// at byte `flagOffset` (quilt::splitKFlagOffset: 4-byte aligned, used by
  /// nothing else).
  Value workgroup;
  int64_t flagOffset = 0;
};

/// A barrier of the threads that multiply: the whole block, or in a
/// warp-specialized kernel the consumers alone (named barrier 1 over
/// config.threads), whom the producer does not wait for.
void emitConsumerBarrier(OpBuilder &b, Location loc, const GpuKernelSpec &spec);

/// The end of a block's part of a shared tile: it counts its arrival on
/// the tile's counter; the last of the tile's blocks to arrive sums the
/// tile's partial sums in K order, writes C through `cWriter` and sets the
/// counter back to zero. Its barriers are the consumers'
/// (emitConsumerBarrier).
void emitTileFixup(OpBuilder &b, Location loc, const GpuKernelSpec &spec,
                   const ThreadContext &thread, int64_t threads,
                   const TileFixup &tile, const EpilogueWriter &cWriter);

/// Where a staged tile lives in workgroup memory and how it is laid out:
/// `kContiguous` tiles are [rows][K + pad] (rows are M for A, N for B),
/// the others [K][rows + pad]. That is the tile's logical shape [R][C];
/// a swizzled tile (`swizzleElems` > 0) stores it unpadded in panels of
/// `swizzleElems` columns with the 16-byte chunks of each row
/// XOR-permuted (quilt::swizzlePanelBytes has the formula). With 128-byte
/// panels that is the layout wgmma's 128-byte swizzle mode reads (a panel
/// is one swizzle atom column; every 8 rows of it, 1024 bytes, one atom).
struct SharedTile {
  Value buffer; ///< 2-D memref in workgroup memory
  bool kContiguous = true;
  int64_t swizzleElems = 0; ///< P, the panel width; 0 for a padded tile
  int64_t logicalRows = 0;  ///< R; used by swizzled tiles
  /// A swizzled tile's elements are also reached through `flat`, a 1-D
  /// view of every stage's tiles, the tile's first element at index
  /// `flatOffset` (a multiple of P): the chunk permutation is applied to
  /// the whole index there, stage offset included (sharedTileAddress).
  Value flat, flatOffset;
};

/// A memref of workgroup memory and the indices of one element in it.
struct SharedAddress {
  Value memref;
  SmallVector<Value> indices;
};

/// Where the tile's logical element (r, c) is: (r, c) of the buffer, or in
/// a swizzled tile its element of `flat`, with its 16-byte chunk permuted.
/// A run of elements from `c` stays contiguous while it stays inside one
/// 16-byte chunk. Since the permutation is an XOR on the low bits of the
/// whole index, the index of a K step's fragment is computed where it is
/// read, from the stage's offset: an XOR into the tile's own coordinates
/// would be the same in every stage, and LLVM hoists one value per
/// fragment of the K tile out of the main loop (the a100 16x32x64
/// candidate took 112 registers that way; 80 with padded tiles, and so
/// with this).
/// stepSharedAddress moves such an address by a K step.
SharedAddress sharedTileAddress(OpBuilder &b, Location loc,
                                const SharedTile &tile, Value r, Value c);

/// The address of the element `rows` rows and `cols` columns from the one
/// at `at` (from sharedTileAddress), for static steps the permutation
/// carries over: `rows` a multiple of 8 (a whole period of the rows'
/// permutations), `cols` a multiple of 32 bytes, and the column `at` was
/// computed for within the first 32 bytes of its panel (so that adding
/// `cols` within the panel is an XOR of bits that permutation leaves
/// alone). One add or XOR of a constant, where recomputing the address
/// would give LLVM a loop-invariant part per step to hoist and hold.
SharedAddress stepSharedAddress(OpBuilder &b, Location loc,
                                const SharedTile &tile, const SharedAddress &at,
                                int64_t rows, int64_t cols);

/// The instruction family of a kernel: owns the accumulators of a thread,
/// the shape of the workgroup tiles it reads, and where each accumulator
/// element belongs in the block tile.
class MatrixEngine {
public:
  virtual ~MatrixEngine();

  /// Layout of a staged tile (see SharedTile) for an operand stored
  /// K-contiguous or not. An engine that reads either layout keeps the
  /// stored one, so that staging copies rows as they are (cp.async).
  virtual bool sharedKContiguous(bool storedKContiguous) const = 0;
  /// Elements of padding after each row of a staged tile, to spread rows
  /// over the banks.
  virtual int64_t rowPad() const { return 0; }
  /// Element type of the staged tiles.
  virtual Type sharedType() const = 0;
  /// The widest panel of a swizzled tile in bytes (see SharedTile and
  /// quilt::SharedTileFormat); 0 for an engine that pads every tile.
  virtual int64_t swizzleBytes() const { return 0; }
  /// Where each stage's tiles start, in bytes: past 16 where the hardware
  /// reads a swizzle from the address bits (wgmma: 1024).
  virtual int64_t tileAlignment() const { return 16; }
  /// Called by every thread after it wrote its part of the staged tiles and
  /// before the barrier that hands them to the engine's reads: an engine
  /// that reads workgroup memory through another memory proxy orders the
  /// writes for it.
  virtual void fenceStagedTiles(OpBuilder &b, Location loc) {}
  /// K consumed by one `accumulate` step.
  virtual int64_t kStep() const = 0;

  virtual SmallVector<Value> initAccumulators(OpBuilder &b, Location loc) = 0;
  /// One kStep of the block tile at depth `kk` of the staged tiles. When it
  /// returns, the engine has finished reading the tiles of every earlier
  /// call and, unless `leavesStepInFlight`, of this one.
  virtual SmallVector<Value> accumulate(OpBuilder &b, Location loc,
                                        const ThreadContext &thread,
                                        const SharedTile &a,
                                        const SharedTile &bTile, Value kk,
                                        ValueRange accs) = 0;
  /// Lets `accumulate` return while its own multiplication still runs
  /// (wgmma in a TMA kernel, whose stages are handed back by mbarriers):
  /// its tiles then stay in use until the next call returns, and the
  /// accumulators may be read only after `completeAccumulates`. The loop
  /// that stages the tiles decides: a single buffer needs each step
  /// complete before it is refilled. Engines whose steps always complete
  /// inside `accumulate` ignore it.
  virtual void leaveStepInFlight(bool leave) {}
  /// Whether `accumulate` returns with its own step in flight.
  virtual bool leavesStepInFlight() const { return false; }
  /// Waits for the multiplication `accumulate` left in flight.
  virtual void completeAccumulates(OpBuilder &b, Location loc) {}
  /// Calls `fn` with every accumulator element of this thread: the index of
  /// its accumulator value, its position in that vector, and its row and
  /// column in the block tile.
  virtual void forEachElementPosition(
      OpBuilder &b, Location loc, const ThreadContext &thread,
      function_ref<void(unsigned acc, ArrayRef<int64_t> position, Value row,
                        Value col)>
          fn) = 0;

  /// How many consecutive elements of `forEachElementPosition` lie at
  /// consecutive columns of one row, the first at a column that is a
  /// multiple of this run (each thread's pair of an mma fragment row, a
  /// SIMT thread tile's row); 1 for engines whose fragments run down
  /// columns.
  virtual int64_t columnRun() const { return 1; }

  /// Calls `fn` with every accumulator element of `accs` (f32) and its row
  /// and column in the block tile.
  void forEachElement(OpBuilder &b, Location loc, const ThreadContext &thread,
                      ValueRange accs,
                      function_ref<void(Value value, Value row, Value col)> fn);
};

/// Elements of C a kernel of `spec` with `engine` writes with one vector
/// access: the engine's column run, at most 16 bytes, a power of two; 1
/// when C's columns are not contiguous (a strided C, an nchw output).
int64_t cStoreWidth(const GpuKernelSpec &spec, const MatrixEngine &engine);

/// The engine for the spec's instruction; null (and a reason in `why`) for
/// an instruction or type this generator does not emit.
std::unique_ptr<MatrixEngine> createMatrixEngine(const GpuKernelSpec &spec,
                                                 MLIRContext *ctx,
                                                 std::string &why);

/// Whether the wgmma engine takes the spec's candidate: a wgmma candidate
/// on f16 / bf16 operands with K tiles of 128 bytes, warpgroup tiles of
/// whole 64-row instructions and 64-column panels, compiled for `chip`
/// sm_90a. Other wgmma candidates are issued as mma.sync.
bool canIssueWgmma(const GpuKernelSpec &spec, StringRef chip);

/// Whether a native wgmma kernel (`nativeWgmma` set) can load its tiles
/// with TMA: a matmul or batch matmul whose A and B rows are contiguous,
/// with tiles a tensor map's box can cover.
bool canLoadWithTma(const GpuKernelSpec &spec);

/// The box (rows x columns of the stored operand) one TMA copy of a
/// kernel's A or B tile reads, with the tile's 128-byte swizzle: an operand
/// stored K-contiguous (A, transposed B) as one box of its whole tile
/// (the tile's rows x a K tile of 64), the other one box per 64-column
/// panel (a K tile of rows x 64).
struct TmaBox {
  int64_t rows = 0, cols = 0;
};
TmaBox tmaBox(const GpuKernelSpec &spec, bool operandB);
std::unique_ptr<MatrixEngine> createWgmmaEngine(const GpuKernelSpec &spec,
                                                MLIRContext *ctx);

/// Copies the block's slice of a stored operand into workgroup memory:
/// stored rows [row0, row0 + tileRows) x columns [col0, col0 + tileCols) of
/// `global` (a matrix; a batched kernel passes its block's), zero
/// where the slice leaves the matrix (`rows` x `cols`). Element (r, c) of
/// the slice goes to logical element (c, r) of the tile `shared` when
/// `transposeIntoShared`, else to (r, c), converted to the shared element
/// type. With `useVectors`
/// true at run time, in-bounds rows move `vectorWidth` elements at a time.
struct StagingCopy {
  Value global;
  /// A convolution's A: `global` is the image and stored element (row, col)
  /// is A(rowOrigin + row, col) of the implicit GEMM. Runs along col are
  /// consecutive channels of an nhwc image (`contiguous`, with the host's
  /// vector flag only when C is a multiple of the run); otherwise the copy
  /// reads one element at a time.
  const ConvGeometry *conv = nullptr;
  Value rowOrigin;
  Value row0, col0, rows, cols;
  int64_t tileRows = 0, tileCols = 0;
  SharedTile shared;
  bool transposeIntoShared = false;
  bool contiguous = true; ///< the stored inner stride is 1 (static)
  int64_t vectorWidth = 1;
  Value useVectors; ///< i1
  /// Aligned 16-byte runs move with cp.async (zero-filling what lies outside
  /// the matrix) instead of through registers; the caller commits and waits.
  bool async = false;
};
void emitStagingCopy(OpBuilder &b, Location loc, const ThreadContext &thread,
                     int64_t threads, const StagingCopy &copy);

/// The same copy in two halves, for a pipeline through registers (chips
/// without cp.async): the thread's runs read from global memory, one value
/// per round (zero outside the matrix), and later stored into `shared`.
/// The loads of the next K step are issued before the multiplication of
/// the current one, which hides their latency.
SmallVector<Value> emitStagingLoads(OpBuilder &b, Location loc,
                                    const ThreadContext &thread,
                                    int64_t threads, const StagingCopy &copy);
void emitStagingStores(OpBuilder &b, Location loc, const ThreadContext &thread,
                       int64_t threads, const StagingCopy &copy,
                       ValueRange loaded);

/// The tile loads of a TMA kernel (`tmaLoads`, TmaStaging.cpp): one thread
/// copies a stage's A and B tiles with cp.async.bulk.tensor from the
/// launch's tensor maps, completing the stage's `full` mbarrier; the warps
/// that read the tiles hand the stage back on its `empty` mbarrier.
class TmaStaging {
public:
  /// Bytes of one mbarrier in workgroup memory (8-byte aligned).
  static constexpr int64_t kBarrierBytes = 8;
  /// A stage's two: `full` (its tiles landed), then `empty` (read).
  static constexpr int64_t kStageBarrierBytes = 2 * kBarrierBytes;

  /// `mapA` / `mapB`: the kernel's tensor-map operands; `batch` the block's
  /// matrix (0 unbatched); `row0` / `col0` the block tile's first row of A
  /// and column of B.
  TmaStaging(const GpuKernelSpec &spec, Value mapA, Value mapB, Value batch,
             Value row0, Value col0)
      : spec(spec), mapA(mapA), mapB(mapB), batch(batch), row0(row0),
        col0(col0) {}

  /// Bytes a stage's copies write: its A and B tiles, zeros included.
  int64_t stageBytes() const;
  /// Where `leader` (i1) holds: initializes the `stages` pairs of mbarriers
  /// from shared address `barriers`: each `full` for the TMA unit, each
  /// `empty` for `readers` arrivals. The caller's barrier publishes them.
  void initBarriers(OpBuilder &b, Location loc, Value leader, Value barriers,
                    int64_t stages, int64_t readers) const;
  /// The shared addresses of stage `stage`'s mbarriers (index values).
  static Value fullBarrier(OpBuilder &b, Location loc, Value barriers,
                           Value stage);
  static Value emptyBarrier(OpBuilder &b, Location loc, Value barriers,
                            Value stage);
  /// Run by one thread: expects a stage's bytes on the `full` mbarrier at
  /// shared address `barrier` and copies the K step at `k0` into the tiles.
  void issue(OpBuilder &b, Location loc, Value k0, Value barrier,
             const SharedTile &a, const SharedTile &bTile) const;
  /// One arrival on the `empty` mbarrier at `barrier`: the arriving reader
  /// is done with the stage's tiles (release semantics: its reads happen
  /// before the copies that the waiting issuer starts next).
  void release(OpBuilder &b, Location loc, Value barrier) const;
  /// Waits for the phase of parity `parity` (index, 0 or 1) of the
  /// mbarrier at `barrier` to complete.
  void wait(OpBuilder &b, Location loc, Value barrier, Value parity) const;

private:
  const GpuKernelSpec &spec;
  Value mapA, mapB, batch, row0, col0;
};

/// Builds kernels on demand, once per spec, in the module's `gpu.module`
/// for the spec's vendor.
class GpuKernelCache {
public:
  /// `nativeWgmma`: issue wgmma candidates as wgmma.mma_async where
  /// canIssueWgmma holds; `tmaLoads`: load their tiles with TMA where
  /// canLoadWithTma holds.
  GpuKernelCache(ModuleOp module, bool nativeWgmma, bool tmaLoads)
      : module(module), nativeWgmma(nativeWgmma), tmaLoads(tmaLoads) {}
  bool issuesNativeWgmma() const { return nativeWgmma; }
  bool loadsWithTma() const { return tmaLoads; }
  /// A null func (after a diagnostic at `loc`) when the spec cannot be
  /// generated, or when the vendor's kernel module is for another chip.
  /// A new kernel module is compiled for `chip`.
  GpuKernel getOrCreate(const GpuKernelSpec &spec, StringRef chip,
                        Location loc);
  /// The kernel that copies a view of `type` (canonical contiguous, rank 2
  /// or 3) into another of the same shape (OperandRepack.cpp): one thread
  /// an element, 256 a block, grid (ceil(rows * cols / 256), matrices
  /// at most 65535). Null after a diagnostic, as getOrCreate.
  gpu::GPUFuncOp getOrCreateRepack(MemRefType type, Vendor vendor,
                                   StringRef chip, Location loc);

private:
  /// Null (after a diagnostic at `loc`) when the vendor's module was
  /// created for another chip.
  gpu::GPUModuleOp getOrCreateModule(Vendor vendor, StringRef chip,
                                     Location loc);

  ModuleOp module;
  bool nativeWgmma, tmaLoads;
  /// By symbol name, stage count and chip.
  llvm::StringMap<GpuKernel> kernels;
};

/// The body of a kernel: C = epilogue(C + A * B) over the block's tile.
/// Returns the bytes of dynamic workgroup memory it uses.
int64_t buildKernelBody(OpBuilder &b, Location loc, const GpuKernelSpec &spec,
                        MatrixEngine &engine, gpu::GPUFuncOp func);

/// i1: `view`'s first element is aligned to `width` elements and every
/// stride but the innermost (1) is a multiple of `width`, so each row of
/// the view splits into aligned vectors of `width`.
Value vectorAligned(OpBuilder &b, Location loc, Value view, int64_t width);

/// The type of a runtime buffer function through MLIR's C interface:
/// (i64 size) -> memref<?xi`bits`> (quilt_gpu_workspace and friends,
/// QuiltGpuRuntime.h).
FunctionType runtimeBufferFunctionType(MLIRContext *ctx, unsigned bits);

/// The module's declaration of runtime function `name` of `type` (with
/// `llvm.emit_c_interface` when `cInterface`), made if missing; null after
/// a diagnostic when the symbol is taken by something else.
func::FuncOp getOrDeclareRuntimeFunction(ModuleOp module, Location loc,
                                         StringRef name, FunctionType type,
                                         bool cInterface);

/// Where an operand's rows do not start on 16-byte boundaries (an f16
/// matrix with an odd K, a misaligned view), copies it on the device into
/// rows padded to 16 bytes in the calling thread's operand-copy buffer
/// (quilt_gpu_operand_copies) and returns the copy, else the operand
/// itself; either as the canonical contiguous view type of its rank
/// (dynamic sizes and offset, strides [?, ..., 1]). `operands` are A and B
/// of a matmul or batch matmul with contiguous rows (null: left alone).
/// Fails after a diagnostic when the runtime's name is taken.
LogicalResult repackUnalignedRows(OpBuilder &b, Location loc,
                                  GpuKernelCache &kernels, Vendor vendor,
                                  StringRef chip,
                                  MutableArrayRef<Value> operands);

/// Replaces a dispatch on memrefs by the GEMM-view sizes, a ukernel.select
/// and per-candidate launches over the main and remainder regions. Fails
/// (after a diagnostic) when a candidate cannot be generated.
LogicalResult expandDispatch(DispatchOp op, GpuKernelCache &kernels);

/// The name of the GPU module holding a vendor's kernels.
StringRef kernelModuleName(Vendor vendor);

/// The #nvvm.target or #rocdl.target a GPU module is compiled for on `chip`
/// ("sm_90a", "gfx942"); null for a chip of neither family.
Attribute binaryTargetForChip(MLIRContext *ctx, StringRef chip);

} // namespace mlir::ukernel::gpucg

#endif // QUILT_LIB_CONVERSION_UKERNELTOGPU_GPUKERNEL_H
