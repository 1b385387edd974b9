//===- KernelBuilder.cpp - One gpu.func per candidate ---------------------===//
//
// Part of the Quilt project. A kernel computes one TM x TN tile of C per
// block (block x walks M, y walks N, z the batch):
//
//   A tile (TM x TK) and B tile (TK x TN) in dynamic workgroup memory
//   accumulators = 0                               (MatrixEngine)
//   for k0 in [0, K) step TK:
//     stage A[row0:, k0:] and B[k0:, col0:]        (Staging.cpp, zero-filled)
//     barrier
//     for kk in [0, TK) step instruction K:        (unrolled)
//       accumulators += A_tile[:, kk] * B_tile[kk, :]
//     barrier
//   C[r, c] = epilogue(C[r, c] + acc) for (r, c) inside C
//
// With asynchronous copies (cp.async) and S = `stages` > 1, S pairs of
// tiles rotate, and the copies of S - 1 future K steps are in flight while
// one is multiplied:
//
//   for s in [0, S - 1): stage K step s into buffer s; commit a copy group
//   for k0 in [0, K) step TK (step i):
//     wait until at most S - 2 groups are pending  (step i has landed)
//     barrier     (everyone's copies of step i landed; step i - 1 is done)
//     stage K step i + S - 1 into buffer (i + S - 1) % S; commit
//     accumulators += the tiles in buffer i % S
//
// Every thread commits a group per step, empty or not, so the count of
// pending groups means the same in every thread.
//
// Without cp.async (AMD, NVIDIA before sm_80) a candidate with stages > 1
// gets two pairs of tiles and a pipeline through registers:
//
//   load K step 0 into registers; store them into buffer 0; barrier
//   for k0 in [0, K) step TK (step i):
//     load K step i + 1 into registers            (in flight ...)
//     accumulators += the tiles in buffer i % 2   (... during the multiply)
//     store the registers into buffer (i + 1) % 2
//     barrier
//
// The staged tiles are zero outside the matrix, so only global accesses are
// masked: loads while staging and the final read-modify-write of C.
//
// A split-K block multiplies one range of K and a stream-K block walks a
// range of all the tiles' K steps, tile by tile, around the same mainloop;
// both hand tiles they share to the fixup (SplitKFixup.cpp).
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/Epilogue.h"
#include "Conversion/Utils/IndexMath.h"
#include "CostModel/GpuSharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

//===----------------------------------------------------------------------===//
// GpuKernelSpec
//===----------------------------------------------------------------------===//

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string GpuKernelSpec::symbolName() const {
  const quilt::KernelConfig &c = config;
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "quilt_" << quilt::stringify(c.inst) << "_" << c.tileM << "x" << c.tileN
     << "x" << c.tileK << "_t" << c.threads << "_w" << c.warpsM << "x"
     << c.warpsN << "_tt" << c.threadTileM << "x" << c.threadTileN << "_v"
     << c.vectorWidth << "_" << typeName(inputType) << "_" << typeName(accType);
  if (biasType)
    os << "_bias" << typeName(biasType);
  os << epilogueSymbolSuffix(epilogue, fused, fill);
  if (transposeA)
    os << "_ta";
  if (transposeB)
    os << "_tb";
  if (batched)
    os << "_batch";
  if (splitsK())
    os << "_sk";
  if (streamsK())
    os << "_streamk";
  if (isConv()) {
    os << "_" << stringifyContractionKind(kind) << "_s" << strideH << "x"
       << strideW;
    if (dilationH != 1 || dilationW != 1)
      os << "_d" << dilationH << "x" << dilationW;
  }
  if (!contiguousA)
    os << "_sa";
  if (!contiguousB)
    os << "_sb";
  if (!isConv() && !contiguousC)
    os << "_sc";
  if (nativeWgmma)
    os << "_async";
  if (tmaLoads)
    os << "_tma";
  return name;
}

/// The first row and column of C of the tile that block (x, y) of a grid of
/// whole tiles computes, tilesM x tilesN blocks (grid x, y): blocks in
/// launch order (x fastest), tiles in groups of `groupRows` tile rows,
/// column after column within a group (grouped rasterization):
///
///   linear = y tilesM + x
///   group = linear / (groupRows tilesN),  first = group groupRows
///   rows = min(tilesM - first, groupRows)   (the last group may be short)
///   in = linear - group groupRows tilesN
///   tile = (first + in % rows, in / rows)
///
/// a bijection of the grid, which is launch order itself when the group
/// holds every row. In 32 bits, like the split-K kernel's z division (a
/// 64-bit one is a ptxas subroutine), through to the tile's first row and
/// column: those stay below M and N, which the host checks keep below 2^32
/// rows (QUILT_RT_CHECK_GPU_ROWS; N is below 65535 tiles, grid y's limit).
/// Held in 32 bits, they cost a thread no more registers than the block
/// indices they replace did (one sm_90a SIMT kernel spilled with 64-bit
/// ones, and an mi300x split-K one 4 SGPRs, before split-K kept launch
/// order).
static std::pair<Value, Value> groupedTile(OpBuilder &b, Location loc,
                                           int64_t groupRows, int64_t tileM,
                                           int64_t tileN) {
  IndexMath im{b, loc};
  Value x = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value y = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  if (groupRows <= 1)
    return {im.mul(x, im.c(tileM)), im.mul(y, im.c(tileN))};
  Type i32 = b.getI32Type(), index = b.getIndexType();
  auto narrow = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(b, loc, i32, v);
  };
  auto widen = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(b, loc, index, v);
  };
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulIOp::create(b, loc, l, r);
  };
  Value tilesM = narrow(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  Value tilesN = narrow(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
  Value rowsPerGroup = constant(groupRows);
  Value linear =
      arith::AddIOp::create(b, loc, mul(narrow(y), tilesM), narrow(x));
  Value perGroup = mul(rowsPerGroup, tilesN);
  Value group = arith::DivUIOp::create(b, loc, linear, perGroup);
  Value first = mul(group, rowsPerGroup);
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tilesM, first), rowsPerGroup);
  Value in = arith::SubIOp::create(b, loc, linear, mul(group, perGroup));
  Value row = arith::AddIOp::create(b, loc, first,
                                    arith::RemUIOp::create(b, loc, in, rows));
  Value column = arith::DivUIOp::create(b, loc, in, rows);
  return {widen(mul(row, constant(tileM))),
          widen(mul(column, constant(tileN)))};
}

/// A strided view of `rank` dynamic sizes; the inner stride stays static 1
/// when `contiguous`, so that vector loads are legal on it.
static MemRefType stridedView(MLIRContext *ctx, int64_t rank, Type elem,
                              bool contiguous) {
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  if (contiguous)
    strides.back() = 1;
  return MemRefType::get(
      shape, elem, StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides));
}

SmallVector<Type> GpuKernelSpec::argumentTypes(MLIRContext *ctx) const {
  int64_t rank = batched ? 3 : 2;
  SmallVector<Type> types;
  if (isConv())
    types = {stridedView(ctx, 4, inputType, contiguousA),
             stridedView(ctx, 2, inputType, contiguousB),
             stridedView(ctx, 4, accType, /*contiguous=*/false)};
  else
    types = {stridedView(ctx, rank, inputType, contiguousA),
             stridedView(ctx, rank, inputType, contiguousB),
             stridedView(ctx, rank, accType, contiguousC)};
  if (biasType)
    types.push_back(stridedView(ctx, 1, biasType, /*contiguous=*/false));
  for (unsigned i = 0; i < numFusedOperands(); ++i) {
    Type elem = fused.operandElementType(i);
    switch (fused.kinds[i]) {
    case EpilogueOperandKind::scalar:
      types.push_back(elem);
      break;
    case EpilogueOperandKind::per_column:
    case EpilogueOperandKind::per_row:
      types.push_back(stridedView(ctx, 1, elem, /*contiguous=*/false));
      break;
    case EpilogueOperandKind::per_element:
      types.push_back(stridedView(ctx, rank, elem, /*contiguous=*/false));
      break;
    }
  }
  if (isConv())
    types.append(kConvIndexOperands, IndexType::get(ctx));
  if (splitsK()) {
    types.push_back(stridedView(ctx, 3, computeType(), /*contiguous=*/true));
    types.push_back(
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 32)));
    types.append(kSplitKOperands - 2, IndexType::get(ctx));
  }
  if (streamsK()) {
    types.push_back(stridedView(ctx, 3, computeType(), /*contiguous=*/true));
    types.push_back(
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 32)));
  }
  if (tmaLoads)
    types.append(2, LLVM::LLVMPointerType::get(ctx));
  types.push_back(IntegerType::get(ctx, 32));
  return types;
}

Value mlir::ukernel::gpucg::matrixAt(OpBuilder &b, Location loc, Value batched,
                                     Value index) {
  auto type = cast<MemRefType>(batched.getType());
  SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (int64_t d = 1; d < 3; ++d)
    sizes.push_back(memref::getMixedSize(b, loc, batched, d));
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), batched,
                                   offsets, sizes, strides);
}

ConvGeometry mlir::ukernel::gpucg::convOutputGeometry(OpBuilder &b,
                                                      Location loc,
                                                      const GpuKernelSpec &spec,
                                                      Value output) {
  ConvGeometry conv;
  conv.kind = spec.kind;
  conv.strideH = spec.strideH, conv.strideW = spec.strideW;
  conv.dilationH = spec.dilationH, conv.dilationW = spec.dilationW;
  bool nhwc = conv.nhwc();
  conv.images = memref::DimOp::create(b, loc, output, 0);
  conv.outH = memref::DimOp::create(b, loc, output, nhwc ? 1 : 2);
  conv.outW = memref::DimOp::create(b, loc, output, nhwc ? 2 : 3);
  conv.filters = memref::DimOp::create(b, loc, output, nhwc ? 3 : 1);
  // A 64-bit division is a ptxas subroutine with a stack frame, spilling
  // around it.
  conv.divide32 = true;
  return conv;
}

namespace {

int64_t elemBytes(Type type) { return type.getIntOrFloatBitWidth() / 8; }

} // namespace

//===----------------------------------------------------------------------===//
// Kernel body
//===----------------------------------------------------------------------===//

int64_t mlir::ukernel::gpucg::cStoreWidth(const GpuKernelSpec &spec,
                                          const MatrixEngine &engine) {
  // C's consecutive columns are consecutive in memory: a matmul's, a batch
  // matmul's and an nhwc output's (filters innermost), with a static unit
  // inner stride.
  // A split-K kernel's workspace is contiguous.
  bool splitsK = spec.splitsK();
  if (!splitsK &&
      (!spec.contiguousC || spec.kind == ContractionKind::conv2d_nchw))
    return 1;
  constexpr int64_t kMaxVectorBytes = 16;
  int64_t elementBytes = spec.writtenType().getIntOrFloatBitWidth() / 8;
  // A stream-K kernel writes C and its slots of partial sums in runs of one
  // width.
  if (spec.streamsK())
    elementBytes = std::max<int64_t>(
        elementBytes, spec.computeType().getIntOrFloatBitWidth() / 8);
  int64_t width = 1;
  while (width * 2 <= engine.columnRun() &&
         engine.columnRun() % (width * 2) == 0 &&
         width * 2 * elementBytes <= kMaxVectorBytes)
    width *= 2;
  return width;
}

int64_t mlir::ukernel::gpucg::buildKernelBody(OpBuilder &b, Location loc,
                                              const GpuKernelSpec &spec,
                                              MatrixEngine &engine,
                                              gpu::GPUFuncOp func) {
  const quilt::KernelConfig &cfg = spec.config;
  MLIRContext *ctx = b.getContext();
  IndexMath im{b, loc};
  Block &entry = func.getBody().front();
  Value a = entry.getArgument(0), bMat = entry.getArgument(1),
        c = entry.getArgument(2);
  Value bias = spec.biasType ? entry.getArgument(3) : Value();
  SmallVector<Value> fusedOperands;
  for (unsigned i = 0; i < spec.numFusedOperands(); ++i)
    fusedOperands.push_back(entry.getArgument(spec.firstFusedOperand() + i));
  Value flags = entry.getArguments().back();
  unsigned numArgs = entry.getNumArguments();
  Value mapA = spec.tmaLoads ? entry.getArgument(numArgs - 3) : Value();
  Value mapB = spec.tmaLoads ? entry.getArgument(numArgs - 2) : Value();

  ThreadContext thread;
  thread.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warp = im.c(spec.warpSize);
  thread.warpId = arith::DivUIOp::create(b, loc, thread.tid, warp);
  thread.laneId = arith::RemUIOp::create(b, loc, thread.tid, warp);

  // A batched kernel works on block z's matrices as rank-2 views: the
  // batch offset joins each base address once, instead of a third index
  // term in every address (which cost the batched kernels 20-40 more
  // registers than the same tiles of a matmul).
  Value batch = im.c(0);
  // A split-K kernel's block z is (matrix, split), its partial sums go to
  // workspace matrix z. The division is in 32 bits (a 64-bit one is a ptxas
  // subroutine): z is a grid dimension.
  bool splitsK = spec.splitsK(), streamsK = spec.streamsK();
  Value workspace, split, splitK, splits, counters;
  if (splitsK) {
    unsigned at = spec.firstSplitKOperand();
    Value z = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    splits = entry.getArgument(at + 2);
    splitK = entry.getArgument(at + 3);
    counters = entry.getArgument(at + 1);
    Type i32 = b.getI32Type();
    Value z32 = arith::IndexCastUIOp::create(b, loc, i32, z);
    Value splits32 = arith::IndexCastUIOp::create(b, loc, i32, splits);
    Type index = b.getIndexType();
    split = arith::IndexCastUIOp::create(
        b, loc, index, arith::RemUIOp::create(b, loc, z32, splits32));
    batch = arith::IndexCastUIOp::create(
        b, loc, index, arith::DivUIOp::create(b, loc, z32, splits32));
    workspace = matrixAt(b, loc, entry.getArgument(at), z);
  }
  // A stream-K kernel's workspace holds two slots of partial sums per
  // block; its tiles, and so their matrices, change from segment to segment.
  if (streamsK) {
    unsigned at = spec.firstSplitKOperand();
    workspace = entry.getArgument(at);
    counters = entry.getArgument(at + 1);
  }
  Value allA = a, allB = bMat, allC = c;
  SmallVector<Value> allFused = fusedOperands;
  auto takeMatrices = [&](Value index) {
    a = matrixAt(b, loc, allA, index);
    bMat = matrixAt(b, loc, allB, index);
    c = matrixAt(b, loc, allC, index);
    for (auto [operand, all] : llvm::zip(fusedOperands, allFused))
      if (auto type = dyn_cast<MemRefType>(all.getType());
          type && type.getRank() == 3)
        operand = matrixAt(b, loc, all, index);
  };
  Value row0, col0;
  if (!streamsK) {
    if (spec.batched) {
      if (!splitsK)
        batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
      takeMatrices(batch);
    }
    std::tie(row0, col0) =
        groupedTile(b, loc, spec.groupRows, cfg.tileM, cfg.tileN);
  }
  // The GEMM view: M x N of C, K of A. A convolution's region has `rows`
  // GEMM rows from `rowOrigin` (its image is passed whole), its output
  // window's F dimension as N, and its filter matrix's K.
  Value m, n, k, rowOrigin;
  ConvGeometry conv;
  if (spec.isConv()) {
    unsigned next = spec.firstConvIndexOperand();
    conv = convOutputGeometry(b, loc, spec, c);
    conv.channels = memref::DimOp::create(b, loc, a, conv.nhwc() ? 3 : 1);
    rowOrigin = entry.getArgument(next);
    m = entry.getArgument(next + 1);
    conv.filterR = entry.getArgument(next + 2);
    conv.filterS = entry.getArgument(next + 3);
    n = conv.filters;
    k = memref::DimOp::create(b, loc, bMat, spec.transposeB ? 1 : 0);
    // The image maps divide in 32 bits (convOutputGeometry). The host's
    // operand checks refuse a problem too large for them (2^32 pixels or
    // taps) with a message; a kernel launched some other way traps rather
    // than reading the wrong pixels.
    Value fits = conv.fitsDivide32(im, im.add(rowOrigin, m), k);
    Value tooLarge = arith::XOrIOp::create(
        b, loc, fits, arith::ConstantIntOp::create(b, loc, 1, 1));
    scf::IfOp::create(b, loc, tooLarge, [&](OpBuilder &tb, Location l) {
      LLVM::Trap::create(tb, l);
      scf::YieldOp::create(tb, l);
    });
  } else {
    // (Of the operands as given: a stream-K kernel takes its matrices'
    // views per tile.)
    int64_t first = streamsK && spec.batched ? 1 : 0;
    m = memref::DimOp::create(b, loc, c, first);
    n = memref::DimOp::create(b, loc, c, first + 1);
    k = memref::DimOp::create(b, loc, a, first + (spec.transposeA ? 0 : 1));
  }
  // The K range the block multiplies: all of K, or its split's
  // [split * splitK, min(K, split * splitK + splitK)), splitK a multiple of
  // the K tile, or a stream-K segment's (set per segment). K steps are
  // numbered from kBegin.
  bool kRange = splitsK || streamsK;
  Value kBegin, kEnd = k;
  if (splitsK) {
    kBegin = im.mul(split, splitK);
    kEnd = im.min(k, im.add(kBegin, splitK));
  }
  auto rangeBegin = [&](IndexMath &xm) { return kRange ? kBegin : xm.c(0); };
  // K offset `offset` from the range's start, and K step at `k0`'s offset.
  auto kAt = [&](IndexMath &xm, Value offset) {
    return kRange ? xm.add(kBegin, offset) : offset;
  };
  auto fromBegin = [&](IndexMath &xm, Value k0) {
    return kRange ? xm.sub(k0, kBegin) : k0;
  };

  // Workgroup memory: the A tile, then the B tile at the layout's alignment.
  Type sharedElem = engine.sharedType();
  // A is stored K-contiguous unless transposed, B only when transposed.
  bool aKContiguous = engine.sharedKContiguous(!spec.transposeA);
  bool bKContiguous = engine.sharedKContiguous(spec.transposeB);
  // (The cost model sizes the same layout from quilt::sharedTileFormat.)
  quilt::SharedStageLayout layout(
      cfg, aKContiguous, bKContiguous,
      quilt::SharedTileFormat{elemBytes(sharedElem), engine.rowPad(),
                              engine.swizzleBytes(), engine.tileAlignment()});
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  // Each stage's pair of tiles starts at the layout's alignment.
  int64_t stageBytes = layout.stageBytes();
  // Swizzled tiles start at the layout's alignment: wgmma reads their
  // pattern from the address bits (1024), and the mma.sync kernels' XOR on
  // element indices (SharedTile::flat) keeps each 128-byte row of banks
  // whole (128). The kernel asks for that much more workgroup memory and
  // starts its tiles at the first boundary in it.
  int64_t alignmentSlack = layout.alignmentSlack();
  // The workgroup address of the dynamic memory, where a kernel needs it.
  Value smemBase;
  if (alignmentSlack || spec.tmaLoads)
    smemBase = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem);
  Value tilesBase = im.c(0);
  if (alignmentSlack) {
    Value alignment = im.c(layout.alignment);
    tilesBase =
        im.rem(im.sub(alignment, im.rem(smemBase, alignment)), alignment);
  }
  // How K steps overlap: `stages` buffers filled by TMA or cp.async, two
  // filled through registers on chips without them, or one (a single-stage
  // candidate, or workgroup memory too small for more; TMA copies still
  // overlap nothing then).
  // An nchw convolution's A tile is gathered one element at a time, each
  // with its own pixel and tap: held across a multiply, those registers
  // doubled the VGPRs of gfx942 kernels (127 -> 368) and made them spill,
  // so its kernels keep one stage there. An nhwc image read in runs of
  // channels pipelines like a matrix (gfx942: 59-230 VGPRs -> 81-274).
  int64_t stages = std::max<int64_t>(cfg.stages, 1);
  if (!spec.asyncCopies)
    stages =
        spec.isConv() && !spec.contiguousA ? 1 : std::min<int64_t>(stages, 2);
  // A TMA kernel's stages each have two mbarriers after the tiles.
  int64_t barrierBytes = spec.tmaLoads ? TmaStaging::kStageBarrierBytes : 0;
  // (A split-K or stream-K kernel's fixup word comes after the stages: at
  // most 7 bytes with its alignment, quilt::withSplitKFlag.)
  int64_t fixupBytes = spec.sharesTiles() ? quilt::withSplitKFlag(0) + 3 : 0;
  if (spec.maxWorkgroupBytes > 0)
    stages =
        std::max<int64_t>(1, std::min(stages, (spec.maxWorkgroupBytes -
                                               alignmentSlack - fixupBytes) /
                                                  (stageBytes + barrierBytes)));
  enum class Pipeline { None, Registers, AsyncCopies, Tma };
  Pipeline pipeline = spec.tmaLoads      ? Pipeline::Tma
                      : stages == 1      ? Pipeline::None
                      : spec.asyncCopies ? Pipeline::AsyncCopies
                                         : Pipeline::Registers;
  // Swizzled tiles are also addressed as elements of one view of every
  // stage (SharedTile::flat), from the aligned base.
  Value flatTiles;
  if (layout.aPanelElems || layout.bPanelElems) {
    auto type =
        MemRefType::get({stages * stageBytes / elemBytes(sharedElem)},
                        sharedElem, MemRefLayoutAttrInterface(), workgroup);
    flatTiles =
        memref::ViewOp::create(b, loc, type, smem, tilesBase, ValueRange{});
  }
  // The tiles of stage `stage`.
  auto tilesAt = [&](OpBuilder &vb, Value stage) {
    IndexMath vm{vb, loc};
    Value offset = vm.mul(stage, vm.c(stageBytes));
    if (alignmentSlack)
      offset = vm.add(tilesBase, offset);
    auto view = [&](ArrayRef<int64_t> shape, Value at) -> Value {
      auto type = MemRefType::get(shape, sharedElem,
                                  MemRefLayoutAttrInterface(), workgroup);
      return memref::ViewOp::create(vb, loc, type, smem, at, ValueRange{});
    };
    // One view per statement (B's first): the order of evaluation of a
    // call's arguments, and so of the ops in the output, is the compiler's.
    Value bView = view(layout.bShape, vm.add(offset, vm.c(layout.bOffset)));
    Value aView = view(layout.aShape, offset);
    SharedTile aTile{aView, aKContiguous, layout.aPanelElems, layout.aRows};
    SharedTile bTile{bView, bKContiguous, layout.bPanelElems, layout.bRows};
    if (flatTiles) {
      // Element offsets of the tiles in the view: multiples of their panels,
      // as the layout aligns stages and B to 128 bytes or more.
      int64_t elem = elemBytes(sharedElem);
      Value stageElems = vm.mul(stage, vm.c(stageBytes / elem));
      aTile.flat = bTile.flat = flatTiles;
      aTile.flatOffset = stageElems;
      bTile.flatOffset = vm.add(stageElems, vm.c(layout.bOffset / elem));
    }
    return std::make_pair(aTile, bTile);
  };

  auto flagSet = [&](int32_t bit) -> Value {
    Value bitValue = arith::ConstantIntOp::create(b, loc, bit, 32);
    Value masked = arith::AndIOp::create(b, loc, flags, bitValue);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, masked,
                                 arith::ConstantIntOp::create(b, loc, 0, 32));
  };
  Value vectorA = flagSet(kVectorA), vectorB = flagSet(kVectorB);

  // The slice of an operand a K step reads, in stored coordinates: `outer`
  // is its non-K dimension (M for A, N for B), starting at `outer0` with
  // `outerSize` in the matrix and `outerTile` in the block. A stored K-major
  // (a transposed A, a plain K x N B) has K along its rows.
  auto stagingCopy = [&](Value global, bool kMajor, bool contiguous,
                         Value useVectors, const SharedTile &tile, Value outer0,
                         Value outerSize, int64_t outerTile, Value k0) {
    StagingCopy copy;
    copy.global = global;
    copy.shared = tile;
    copy.contiguous = contiguous;
    copy.vectorWidth = cfg.vectorWidth;
    copy.useVectors = useVectors;
    if (kMajor) {
      copy.row0 = k0, copy.col0 = outer0, copy.rows = k, copy.cols = outerSize;
      copy.tileRows = cfg.tileK, copy.tileCols = outerTile;
    } else {
      copy.row0 = outer0, copy.col0 = k0, copy.rows = outerSize, copy.cols = k;
      copy.tileRows = outerTile, copy.tileCols = cfg.tileK;
    }
    // A K-major operand into a K-contiguous tile, or the other way round.
    copy.transposeIntoShared = kMajor == tile.kContiguous;
    return copy;
  };
  auto operandCopies = [&](Value k0, const SharedTile &aTile,
                           const SharedTile &bTile) {
    StagingCopy copyA = stagingCopy(a, spec.transposeA, spec.contiguousA,
                                    vectorA, aTile, row0, m, cfg.tileM, k0);
    if (spec.isConv()) {
      copyA.conv = &conv;
      copyA.rowOrigin = rowOrigin;
    }
    StagingCopy copyB = stagingCopy(bMat, !spec.transposeB, spec.contiguousB,
                                    vectorB, bTile, col0, n, cfg.tileN, k0);
    copyA.async = copyB.async = pipeline == Pipeline::AsyncCopies;
    return std::make_pair(copyA, copyB);
  };
  auto stageOperands = [&](OpBuilder &sb, Value k0, const SharedTile &aTile,
                           const SharedTile &bTile) {
    auto [copyA, copyB] = operandCopies(k0, aTile, bTile);
    emitStagingCopy(sb, loc, thread, cfg.threads, copyA);
    emitStagingCopy(sb, loc, thread, cfg.threads, copyB);
  };
  // The register pipeline's halves: the K step at `k0` read into registers
  // (A's runs, then B's), and those registers stored into a pair of tiles.
  auto loadOperands = [&](OpBuilder &lb, Value k0, const SharedTile &aTile,
                          const SharedTile &bTile) {
    auto [copyA, copyB] = operandCopies(k0, aTile, bTile);
    SmallVector<Value> loaded =
        emitStagingLoads(lb, loc, thread, cfg.threads, copyA);
    int64_t aValues = loaded.size();
    loaded.append(emitStagingLoads(lb, loc, thread, cfg.threads, copyB));
    return std::make_pair(loaded, aValues);
  };
  auto storeOperands = [&](OpBuilder &sb, Value k0, const SharedTile &aTile,
                           const SharedTile &bTile, ValueRange loaded,
                           int64_t aValues) {
    auto [copyA, copyB] = operandCopies(k0, aTile, bTile);
    emitStagingStores(sb, loc, thread, cfg.threads, copyA,
                      loaded.take_front(aValues));
    emitStagingStores(sb, loc, thread, cfg.threads, copyB,
                      loaded.drop_front(aValues));
  };
  auto multiplyTiles = [&](OpBuilder &mb, Location l, const SharedTile &aTile,
                           const SharedTile &bTile, ValueRange accs) {
    IndexMath mm{mb, l};
    SmallVector<Value> current(accs.begin(), accs.end());
    for (int64_t kk = 0; kk < cfg.tileK; kk += engine.kStep())
      current =
          engine.accumulate(mb, l, thread, aTile, bTile, mm.c(kk), current);
    return current;
  };

  // A TMA kernel's stage barriers, initialized once: before its K loop, or
  // a stream-K kernel's before its first segment.
  Value tmaBarriers, leader;
  auto initTmaBarriers = [&] {
    tmaBarriers =
        im.add(smemBase, im.add(tilesBase, im.c(stages * stageBytes)));
    leader = im.eq(thread.tid, im.c(0));
    TmaStaging(spec, mapA, mapB, batch, row0, col0)
        .initBarriers(b, loc, leader, tmaBarriers, stages,
                      cfg.threads / spec.warpSize);
    gpu::BarrierOp::create(b, loc);
  };

  // Stream-K: the U units of work are the tiles' K steps, numbered tile
  // after tile (matrix, then tile row, then tile column, as the counters),
  // a tile's in K order (K = 0 still has one, an empty one, per tile: C =
  // epilogue(C)). Block g of the G in the grid takes [g U / G, (g + 1) U /
  // G) and walks it in segments of one tile each:
  //
  //   for (u = begin; u < end; u += segment's units):
  //     tile = u / steps; K steps [u % steps, min(steps, that + end - u))
  //     accumulators = the tile's product over them  (the usual mainloop)
  //     whole tile: C = epilogue(C + acc)
  //     otherwise:  slot = acc; the fixup (the tile's last block writes C)
  //     barrier
  //
  // A TMA pipeline numbers its steps across segments (`stepBase`), so its
  // mbarriers' phases carry on from one segment to the next.
  Value kSteps, units, workers, worker, segmentsBegin, segmentsEnd;
  Value segmentStart, stepBase, tile, kFirst, kLast;
  scf::WhileOp streamLoop;
  // The block whose range holds unit `u`, and the first unit of block `g`.
  auto blockOfUnit = [&](IndexMath &xm, Value u) {
    return xm.div(xm.sub(xm.mul(xm.add(u, xm.c(1)), workers), xm.c(1)), units);
  };
  auto unitsBeginOf = [&](IndexMath &xm, Value g) {
    return xm.div(xm.mul(g, units), workers);
  };
  if (streamsK) {
    if (pipeline == Pipeline::Tma)
      initTmaBarriers();
    Type index = b.getIndexType();
    Value tilesN = im.ceilDiv(n, im.c(cfg.tileN));
    Value tilesPerMatrix = im.mul(im.ceilDiv(m, im.c(cfg.tileM)), tilesN);
    Value matrices =
        spec.batched ? Value(memref::DimOp::create(b, loc, allC, 0)) : im.c(1);
    Value kTiles = im.ceilDiv(k, im.c(cfg.tileK));
    kSteps = arith::MaxUIOp::create(b, loc, kTiles, im.c(1));
    units = im.mul(im.mul(matrices, tilesPerMatrix), kSteps);
    workers = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    worker = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    segmentsBegin = unitsBeginOf(im, worker);
    segmentsEnd = unitsBeginOf(im, im.add(worker, im.c(1)));
    streamLoop = scf::WhileOp::create(
        b, loc, TypeRange{index, index}, ValueRange{segmentsBegin, im.c(0)},
        [&](OpBuilder &cb, Location l, ValueRange args) {
          IndexMath cm{cb, l};
          scf::ConditionOp::create(cb, l, cm.lt(args[0], segmentsEnd), args);
        },
        [&](OpBuilder &, Location, ValueRange) {});
    Block *body = streamLoop.getAfterBody();
    b.setInsertionPointToStart(body);
    segmentStart = body->getArgument(0);
    stepBase = body->getArgument(1);
    tile = im.div(segmentStart, kSteps);
    kFirst = im.sub(segmentStart, im.mul(tile, kSteps));
    kLast = im.min(kSteps, im.add(kFirst, im.sub(segmentsEnd, segmentStart)));
    Value matrix = im.div(tile, tilesPerMatrix);
    Value inMatrix = im.sub(tile, im.mul(matrix, tilesPerMatrix));
    Value tileRow = im.div(inMatrix, tilesN);
    Value tileCol = im.sub(inMatrix, im.mul(tileRow, tilesN));
    row0 = im.mul(tileRow, im.c(cfg.tileM));
    col0 = im.mul(tileCol, im.c(cfg.tileN));
    if (spec.batched) {
      batch = matrix;
      takeMatrices(batch);
    }
    kBegin = im.mul(kFirst, im.c(cfg.tileK));
    kEnd = im.min(k, im.mul(kLast, im.c(cfg.tileK)));
  }
  // The K steps a stream-K segment runs (the TMA pipeline's next number
  // starts past them).
  Value stepsRun;
  if (streamsK)
    stepsRun = im.ceilDiv(im.sub(kEnd, kBegin), im.c(cfg.tileK));
  // A K step's number in the TMA pipeline's sequence.
  auto pipelineStep = [&](IndexMath &xm, Value step) {
    return streamsK ? xm.add(stepBase, step) : step;
  };

  SmallVector<Value> init = engine.initAccumulators(b, loc);
  scf::ForOp kLoop;
  // A warp-specialized kernel's split into consumers (then) and the
  // producer (else): the rest of the kernel is the consumers'.
  scf::IfOp warpRoles;
  if (pipeline == Pipeline::Tma) {
    // Thread 0 issues the copies, and the readers hand each stage back on
    // its `empty` mbarrier: no barrier of the block runs in the loop, and
    // an engine that leaves a step's multiplication in flight (wgmma) keeps
    // the tensor cores busy from one step to the next:
    //
    //   for s in [0, S): thread 0 issues K step s into buffer s
    //   for k0 in [0, K) step TK (step i):
    //     wait for buffer i % S's full barrier, phase (i / S) % 2
    //     accumulators += the tiles in buffer i % S
    //     r = i - 1 if the multiplication is in flight (S > 1), else i
    //     (step r's reads are complete) if r >= 0:
    //       lane 0 of each warp arrives on buffer r % S's empty barrier
    //       thread 0 waits for its phase (r / S) % 2, then issues K step
    //       r + S into buffer r % S
    //   wait for the last multiplication
    //
    // (K steps numbered by pipelineStep: a stream-K segment's continue the
    // previous segment's, and its prologue waits for the buffers' `empty`
    // phases as the loop does.)
    TmaStaging tma(spec, mapA, mapB, batch, row0, col0);
    // The phase in which a stage's barriers complete for K step `step`.
    auto phaseOf = [&](IndexMath &pm, Value step) {
      return pm.rem(pm.div(step, pm.c(stages)), pm.c(2));
    };
    if (!streamsK)
      initTmaBarriers();
    Value barriers = tmaBarriers;
    // A warp-specialized kernel splits here: the producer warpgroup (threads
    // from config.threads on) gives its registers to the consumers, and its
    // first thread issues every K step in turn, each once the consumers
    // have handed its buffer back:
    //
    //   for k0 in the block's range of K (all of it, or its split's),
    //       step TK (step i):
    //     if i >= S: wait for buffer i % S's empty barrier, phase
    //                ((i - S) / S) % 2
    //     issue K step i into buffer i % S
    //
    // The consumers run the loop below without issuing anything, and the
    // epilogue; their barriers (a split-K kernel's fixup) are theirs alone
    // (emitConsumerBarrier), so the producer's threads may finish first.
    bool producerWarpgroup = spec.producerThreads > 0;
    assert((!producerWarpgroup || !streamsK) &&
           "a stream-K kernel's producer would walk its segments");
    if (producerWarpgroup) {
      auto roles =
          scf::IfOp::create(b, loc, im.lt(thread.tid, im.c(cfg.threads)),
                            /*withElseRegion=*/true);
      warpRoles = roles;
      auto setMaxRegisters = [&](OpBuilder &rb, int64_t count,
                                 NVVM::SetMaxRegisterAction action) {
        if (spec.consumerRegisters > 0)
          NVVM::SetMaxRegisterOp::create(rb, loc, count, action);
      };
      OpBuilder pb = OpBuilder::atBlockTerminator(roles.elseBlock());
      setMaxRegisters(pb, spec.producerRegisters,
                      NVVM::SetMaxRegisterAction::decrease);
      IndexMath pm{pb, loc};
      Value issuer = pm.eq(thread.tid, pm.c(cfg.threads));
      scf::IfOp::create(pb, loc, issuer, [&](OpBuilder &ib, Location l) {
        IndexMath sm{ib, l};
        scf::ForOp::create(
            ib, l, rangeBegin(sm), kEnd, sm.c(cfg.tileK), ValueRange{},
            [&](OpBuilder &lb, Location ll, Value k0, ValueRange) {
              IndexMath lm{lb, ll};
              Value step = lm.div(fromBegin(lm, k0), lm.c(cfg.tileK));
              Value stage = lm.rem(step, lm.c(stages));
              scf::IfOp::create(
                  lb, ll, lm.le(lm.c(stages), step),
                  [&](OpBuilder &wb, Location wl) {
                    IndexMath wm{wb, wl};
                    Value empty =
                        TmaStaging::emptyBarrier(wb, wl, barriers, stage);
                    tma.wait(wb, wl, empty,
                             phaseOf(wm, wm.sub(step, wm.c(stages))));
                    scf::YieldOp::create(wb, wl);
                  });
              auto [aTile, bTile] = tilesAt(lb, stage);
              tma.issue(lb, ll, k0,
                        TmaStaging::fullBarrier(lb, ll, barriers, stage), aTile,
                        bTile);
              scf::YieldOp::create(lb, ll);
            });
        scf::YieldOp::create(ib, l);
      });
      b.setInsertionPoint(roles.thenBlock()->getTerminator());
      setMaxRegisters(b, spec.consumerRegisters,
                      NVVM::SetMaxRegisterAction::increase);
    }
    // Thread 0 issues the K step at `k0` into buffer `stage` when it is
    // inside K, first running `beforeIssue` (a wait for the buffer).
    auto issueStep = [&](OpBuilder &sb, Value k0, Value stage,
                         function_ref<void(OpBuilder &)> beforeIssue) {
      IndexMath sm{sb, loc};
      Value issue = arith::AndIOp::create(sb, loc, leader, sm.lt(k0, kEnd));
      scf::IfOp::create(sb, loc, issue, [&](OpBuilder &tb, Location) {
        if (beforeIssue)
          beforeIssue(tb);
        auto [aTile, bTile] = tilesAt(tb, stage);
        tma.issue(tb, loc, k0,
                  TmaStaging::fullBarrier(tb, loc, barriers, stage), aTile,
                  bTile);
        scf::YieldOp::create(tb, loc);
      });
    };
    for (int64_t s = 0; s < stages && !producerWarpgroup; ++s) {
      if (!streamsK) {
        issueStep(b, kAt(im, im.c(s * cfg.tileK)), im.c(s), nullptr);
        continue;
      }
      // Buffer `stage` last held step `step` - S, of an earlier segment.
      Value step = pipelineStep(im, im.c(s));
      Value stage = im.rem(step, im.c(stages));
      issueStep(b, kAt(im, im.c(s * cfg.tileK)), stage, [&](OpBuilder &wb) {
        IndexMath wm{wb, loc};
        scf::IfOp::create(
            wb, loc, wm.le(wm.c(stages), step), [&](OpBuilder &tb, Location) {
              IndexMath tm{tb, loc};
              Value empty = TmaStaging::emptyBarrier(tb, loc, barriers, stage);
              tma.wait(tb, loc, empty, phaseOf(tm, tm.sub(step, tm.c(stages))));
              scf::YieldOp::create(tb, loc);
            });
      });
    }
    // A step left in flight holds its buffer while the next one fills
    // another: a single buffer completes each step before it is refilled.
    engine.leaveStepInFlight(stages > 1);
    int64_t inFlight = engine.leavesStepInFlight() ? 1 : 0;
    kLoop = scf::ForOp::create(
        b, loc, rangeBegin(im), kEnd, im.c(cfg.tileK), init,
        [&](OpBuilder &lb, Location l, Value k0, ValueRange accs) {
          IndexMath lm{lb, l};
          Value step = lm.div(fromBegin(lm, k0), lm.c(cfg.tileK));
          Value sequenced = pipelineStep(lm, step);
          Value current = lm.rem(sequenced, lm.c(stages));
          Value phase = phaseOf(lm, sequenced);
          Value full = TmaStaging::fullBarrier(lb, l, barriers, current);
          tma.wait(lb, l, full, phase);
          auto [aTile, bTile] = tilesAt(lb, current);
          SmallVector<Value> updated =
              multiplyTiles(lb, l, aTile, bTile, accs);
          // Step `released` (r above) is read: hand its buffer back.
          Value hasReleased = lm.le(lm.c(inFlight), step);
          scf::IfOp::create(lb, l, hasReleased, [&](OpBuilder &rb, Location) {
            IndexMath rm{rb, l};
            Value released = rm.sub(step, rm.c(inFlight));
            Value releasedInSequence = pipelineStep(rm, released);
            Value buffer = rm.rem(releasedInSequence, rm.c(stages));
            Value empty = TmaStaging::emptyBarrier(rb, l, barriers, buffer);
            scf::IfOp::create(rb, l, rm.eq(thread.laneId, rm.c(0)),
                              [&](OpBuilder &ab, Location) {
                                tma.release(ab, l, empty);
                                scf::YieldOp::create(ab, l);
                              });
            if (!producerWarpgroup) {
              Value next = rm.add(released, rm.c(stages));
              issueStep(rb, kAt(rm, rm.mul(next, rm.c(cfg.tileK))), buffer,
                        [&](OpBuilder &wb) {
                          IndexMath wm{wb, l};
                          tma.wait(wb, l, empty,
                                   phaseOf(wm, releasedInSequence));
                        });
            }
            scf::YieldOp::create(rb, l);
          });
          scf::YieldOp::create(lb, l, updated);
        });
    engine.completeAccumulates(b, loc);
    // The loop hands back every step but one left in flight: a stream-K
    // segment hands back its last too, so that every step's buffer is
    // released once (the next segment's prologue waits for it).
    if (streamsK && inFlight) {
      Value last = im.sub(stepsRun, im.c(1));
      scf::IfOp::create(
          b, loc, im.le(im.c(0), last), [&](OpBuilder &rb, Location l) {
            IndexMath rm{rb, l};
            Value buffer = rm.rem(pipelineStep(rm, last), rm.c(stages));
            Value empty = TmaStaging::emptyBarrier(rb, l, barriers, buffer);
            scf::IfOp::create(rb, l, rm.eq(thread.laneId, rm.c(0)),
                              [&](OpBuilder &ab, Location) {
                                tma.release(ab, l, empty);
                                scf::YieldOp::create(ab, l);
                              });
            scf::YieldOp::create(rb, l);
          });
    }
  } else if (pipeline == Pipeline::None) {
    auto [aTile, bTile] = tilesAt(b, im.c(0));
    kLoop = scf::ForOp::create(
        b, loc, rangeBegin(im), kEnd, im.c(cfg.tileK), init,
        [&](OpBuilder &lb, Location l, Value k0, ValueRange accs) {
          stageOperands(lb, k0, aTile, bTile);
          engine.fenceStagedTiles(lb, l);
          gpu::BarrierOp::create(lb, l);
          SmallVector<Value> current = multiplyTiles(lb, l, aTile, bTile, accs);
          // The next step overwrites the tiles this one reads.
          gpu::BarrierOp::create(lb, l);
          scf::YieldOp::create(lb, l, current);
        });
  } else if (pipeline == Pipeline::Registers) {
    // Two pairs of tiles. Step s multiplies pair s % 2 while the loads of
    // step s + 1 are in flight, then stores them into the other pair, which
    // every thread finished reading before the barrier that ended step
    // s - 1: one barrier a step. Past K the loads read nothing (every
    // element is outside the matrix) and store zeros no step reads.
    auto [aFirst, bFirst] = tilesAt(b, im.c(0));
    auto [first, aValues] = loadOperands(b, rangeBegin(im), aFirst, bFirst);
    storeOperands(b, rangeBegin(im), aFirst, bFirst, first, aValues);
    engine.fenceStagedTiles(b, loc);
    gpu::BarrierOp::create(b, loc);
    kLoop = scf::ForOp::create(
        b, loc, rangeBegin(im), kEnd, im.c(cfg.tileK), init,
        [&](OpBuilder &lb, Location l, Value k0, ValueRange accs) {
          IndexMath lm{lb, l};
          Value step =
              arith::DivUIOp::create(lb, l, fromBegin(lm, k0), lm.c(cfg.tileK));
          Value current = arith::RemUIOp::create(lb, l, step, lm.c(2));
          Value other = lm.sub(lm.c(1), current);
          auto [aTile, bTile] = tilesAt(lb, current);
          auto [aNext, bNext] = tilesAt(lb, other);
          Value nextK = lm.add(k0, lm.c(cfg.tileK));
          auto [loaded, aCount] = loadOperands(lb, nextK, aNext, bNext);
          SmallVector<Value> updated = multiplyTiles(lb, l, aTile, bTile, accs);
          storeOperands(lb, nextK, aNext, bNext, loaded, aCount);
          engine.fenceStagedTiles(lb, l);
          gpu::BarrierOp::create(lb, l);
          scf::YieldOp::create(lb, l, updated);
        });
  } else {
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
    // Stages the K step at `k0` into buffer `stage` when it is inside K,
    // then commits the thread's copies as one group (empty or not).
    auto stageStep = [&](OpBuilder &sb, Value k0, Value stage) -> Value {
      IndexMath sm{sb, loc};
      scf::IfOp::create(sb, loc, sm.lt(k0, kEnd), [&](OpBuilder &tb, Location) {
        auto [aTile, bTile] = tilesAt(tb, stage);
        stageOperands(tb, k0, aTile, bTile);
        scf::YieldOp::create(tb, loc);
      });
      return nvgpu::DeviceAsyncCreateGroupOp::create(sb, loc, tokenType,
                                                     ValueRange{});
    };
    Value group;
    for (int64_t s = 0; s + 1 < stages; ++s)
      group = stageStep(b, kAt(im, im.c(s * cfg.tileK)), im.c(s));
    kLoop = scf::ForOp::create(
        b, loc, rangeBegin(im), kEnd, im.c(cfg.tileK), init,
        [&](OpBuilder &lb, Location l, Value k0, ValueRange accs) {
          IndexMath lm{lb, l};
          Value step =
              arith::DivUIOp::create(lb, l, fromBegin(lm, k0), lm.c(cfg.tileK));
          nvgpu::DeviceAsyncWaitOp::create(lb, l, group,
                                           lb.getI32IntegerAttr(stages - 2));
          engine.fenceStagedTiles(lb, l);
          gpu::BarrierOp::create(lb, l);
          Value ahead = lm.add(step, lm.c(stages - 1));
          stageStep(lb, kAt(lm, lm.mul(ahead, lm.c(cfg.tileK))),
                    arith::RemUIOp::create(lb, l, ahead, lm.c(stages)));
          Value current = arith::RemUIOp::create(lb, l, step, lm.c(stages));
          auto [aTile, bTile] = tilesAt(lb, current);
          scf::YieldOp::create(lb, l, multiplyTiles(lb, l, aTile, bTile, accs));
        });
  }

  // C = epilogue(C + acc) inside the matrix, or a split-K kernel's partial
  // sums into its workspace matrix (and then the fixup).
  const ConvGeometry *convOutput = spec.isConv() ? &conv : nullptr;
  EpilogueWriter cWriter(spec, c, bias, fusedOperands, convOutput, rowOrigin);
  std::optional<EpilogueWriter> partialsWriter;
  if (splitsK)
    partialsWriter.emplace(spec, workspace, bias, fusedOperands, convOutput,
                           rowOrigin, /*partialSums=*/true);
  const EpilogueWriter &writer = splitsK ? *partialsWriter : cWriter;
  // Elements are written one by one, each where it lies inside C; except
  // where the host found C's window aligned for runs of `width` elements:
  // there every run of consecutive columns (the engine's fragments hold
  // them so) that lies inside C is read and written with one vector
  // access, unchecked in a block whose tile lies inside C.
  SmallVector<std::array<Value, 3>> elements;
  engine.forEachElement(b, loc, thread, kLoop.getResults(),
                        [&](Value acc, Value r, Value col) {
                          elements.push_back({acc, r, col});
                        });
  // The tile from (tileRow0, tileCol0) through `out`, element by element
  // inside the rows x cols view.
  auto elementByElement = [&](OpBuilder &eb, const EpilogueWriter &out,
                              Value tileRow0, Value tileCol0, Value rows,
                              Value cols) {
    IndexMath em{eb, loc};
    for (const std::array<Value, 3> &element : elements) {
      Value gr = em.add(tileRow0, element[1]);
      Value gc = em.add(tileCol0, element[2]);
      out.store(eb, loc, element[0], gr, gc, rows, cols);
    }
  };
  int64_t width = cStoreWidth(spec, engine);
  // The tile in runs of `width` columns, all inside the destination; or,
  // given the destination's `rows` and `cols` (a block on C's edge), each
  // run that lies inside them, and the elements of the others one by one,
  // each where it lies inside.
  auto inRuns = [&](OpBuilder &tb, Location l, const EpilogueWriter &out,
                    Value tileRow0, Value tileCol0, Value rows = {},
                    Value cols = {}) {
    IndexMath tm{tb, l};
    Type elem = out.elementType();
    auto vectorType = VectorType::get({width}, elem);
    auto alignment = llvm::MaybeAlign(width * elem.getIntOrFloatBitWidth() / 8);
    Value target = out.destination();
    auto writeRun = [&](OpBuilder &rb, Location rl, size_t first, Value gr,
                        Value gc) {
      IndexMath rm{rb, rl};
      SmallVector<Value> idx = out.index(rb, rl, gr, gc);
      Value olds;
      if (out.readsOld())
        olds = vector::LoadOp::create(rb, rl, vectorType, target, idx,
                                      /*nontemporal=*/false, alignment);
      SmallVector<Value> results;
      for (int64_t i = 0; i < width; ++i) {
        Value old;
        if (olds)
          old = vector::ExtractOp::create(rb, rl, olds, i);
        Value column = rm.add(gc, rm.c(i));
        results.push_back(
            out.element(rb, rl, old, elements[first + i][0], gr, column));
      }
      Value packed =
          vector::FromElementsOp::create(rb, rl, vectorType, results);
      vector::StoreOp::create(rb, rl, packed, target, idx,
                              /*nontemporal=*/false, alignment);
    };
    for (size_t first = 0; first + width <= elements.size(); first += width) {
      Value gr = tm.add(tileRow0, elements[first][1]);
      Value gc = tm.add(tileCol0, elements[first][2]);
      if (!rows) {
        writeRun(tb, l, first, gr, gc);
        continue;
      }
      Value runInside = arith::AndIOp::create(
          tb, l, tm.lt(gr, rows), tm.le(tm.add(gc, tm.c(width)), cols));
      scf::IfOp::create(
          tb, l, runInside,
          [&](OpBuilder &rb, Location rl) {
            writeRun(rb, rl, first, gr, gc);
            scf::YieldOp::create(rb, rl);
          },
          [&](OpBuilder &eb, Location el) {
            IndexMath em{eb, el};
            for (int64_t i = 0; i < width; ++i)
              out.store(eb, el, elements[first + i][0], gr, em.add(gc, em.c(i)),
                        rows, cols);
            scf::YieldOp::create(eb, el);
          });
    }
  };
  // The block's tile through `out` (C, or split-K's workspace matrix).
  auto writeTile = [&](OpBuilder &wb, const EpilogueWriter &out) {
    if (width == 1) {
      elementByElement(wb, out, row0, col0, m, n);
      return;
    }
    IndexMath wm{wb, loc};
    Value vectorC = flagSet(kVectorC);
    Value tileEndN = wm.add(col0, wm.c(cfg.tileN));
    Value tileEndM = wm.add(row0, wm.c(cfg.tileM));
    Value inside =
        arith::AndIOp::create(wb, loc, wm.le(tileEndM, m), wm.le(tileEndN, n));
    // Where C's window takes runs, a block inside C writes them without a
    // check, and a block on C's edge (a dynamic M or N is rarely a
    // multiple of the tile's) each run that lies inside C, the rest
    // element by element. Checking every block's runs cost 27% more
    // instructions on a one-K-step product.
    scf::IfOp::create(
        wb, loc, vectorC,
        [&](OpBuilder &tb, Location l) {
          scf::IfOp::create(
              tb, l, inside,
              [&](OpBuilder &ib, Location il) {
                inRuns(ib, il, out, row0, col0);
                scf::YieldOp::create(ib, il);
              },
              [&](OpBuilder &gb, Location gl) {
                inRuns(gb, gl, out, row0, col0, m, n);
                scf::YieldOp::create(gb, gl);
              });
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &eb, Location l) {
          elementByElement(eb, out, row0, col0, m, n);
          scf::YieldOp::create(eb, l);
        });
  };
  int64_t barriers = pipeline == Pipeline::Tma ? barrierBytes : 0;
  int64_t workgroupBytes = layout.kernelBytes(stages, barriers);
  TileFixup fixup;
  fixup.counters = counters;
  fixup.row0 = row0, fixup.col0 = col0;
  fixup.m = m, fixup.n = n;
  fixup.workgroup = smem;
  fixup.flagOffset = quilt::splitKFlagOffset(workgroupBytes);
  if (spec.sharesTiles())
    workgroupBytes = quilt::withSplitKFlag(workgroupBytes);
  if (!streamsK) {
    writeTile(b, writer);
    if (splitsK) {
      // The tile's counter: tiles of a matrix in grid order, matrix after
      // matrix; the splits are its contributors, partial sums in their
      // workspace matrices (matrix x splits + split).
      Value tilesX = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
      Value tilesY = gpu::GridDimOp::create(b, loc, gpu::Dimension::y);
      Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
      Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
      fixup.counterIndex =
          im.add(im.mul(im.add(im.mul(batch, tilesX), blockX), tilesY), blockY);
      fixup.contributors = splits;
      Value partials = entry.getArgument(spec.firstSplitKOperand());
      Value firstMatrix = im.mul(batch, splits);
      fixup.loadPartial = [&](OpBuilder &lb, Location ll, Value s, Value gr,
                              Value gc) -> Value {
        IndexMath lm{lb, ll};
        return memref::LoadOp::create(
            lb, ll, partials, ValueRange{lm.add(firstMatrix, s), gr, gc});
      };
      emitTileFixup(b, loc, spec, thread, cfg.threads, fixup, cWriter);
    }
    if (warpRoles)
      b.setInsertionPointAfter(warpRoles);
    gpu::ReturnOp::create(b, loc);
    return workgroupBytes;
  }

  // A stream-K segment: a tile covered whole is written like any block's;
  // a shared one's partial sums go to the block's slot (0 for the segment
  // it starts with, 1 for the one it ends with), and its last block to
  // arrive sums the contributors' slots in K order.
  Value wholeTile = arith::AndIOp::create(b, loc, im.eq(kFirst, im.c(0)),
                                          im.eq(kLast, kSteps));
  scf::IfOp::create(
      b, loc, wholeTile,
      [&](OpBuilder &tb, Location l) {
        writeTile(tb, writer);
        scf::YieldOp::create(tb, l);
      },
      [&](OpBuilder &pb, Location l) {
        IndexMath pm{pb, l};
        Value slotOfSegment = arith::SelectOp::create(
            pb, l, pm.eq(segmentStart, segmentsBegin), pm.c(0), pm.c(1));
        Value slot = pm.add(pm.mul(worker, pm.c(2)), slotOfSegment);
        Value slotMatrix = matrixAt(pb, l, workspace, slot);
        EpilogueWriter slotWriter(spec, slotMatrix, bias, fusedOperands,
                                  convOutput, rowOrigin, /*partialSums=*/true);
        // A slot is TM x TN: every element lies inside it.
        Value zero = pm.c(0);
        if (width == 1)
          elementByElement(pb, slotWriter, zero, zero, pm.c(cfg.tileM),
                           pm.c(cfg.tileN));
        else
          inRuns(pb, l, slotWriter, zero, zero);
        // The tile's contributors: the blocks of its first and last units
        // and those between. The first one's part is in slot 1 when its
        // range started in an earlier tile.
        Value tileUnits = pm.mul(tile, kSteps);
        Value lastUnit = pm.sub(pm.add(tileUnits, kSteps), pm.c(1));
        Value firstBlock = blockOfUnit(pm, tileUnits);
        Value lastBlock = blockOfUnit(pm, lastUnit);
        Value firstStartsBefore =
            pm.lt(unitsBeginOf(pm, firstBlock), tileUnits);
        fixup.counterIndex = tile;
        fixup.contributors = pm.add(pm.sub(lastBlock, firstBlock), pm.c(1));
        fixup.loadPartial = [&](OpBuilder &lb, Location ll, Value i, Value gr,
                                Value gc) -> Value {
          IndexMath lm{lb, ll};
          Value first = lm.eq(i, lm.c(0));
          Value inSlot1 =
              arith::AndIOp::create(lb, ll, first, firstStartsBefore);
          Value slotOfPart =
              arith::SelectOp::create(lb, ll, inSlot1, lm.c(1), lm.c(0));
          Value block = lm.add(firstBlock, i);
          Value part = lm.add(lm.mul(block, lm.c(2)), slotOfPart);
          Value r = lm.sub(gr, row0);
          Value col = lm.sub(gc, col0);
          return memref::LoadOp::create(lb, ll, workspace,
                                        ValueRange{part, r, col});
        };
        emitTileFixup(pb, l, spec, thread, cfg.threads, fixup, cWriter);
        scf::YieldOp::create(pb, l);
      });
  // The next segment's staging reuses the tiles and the fixup's word.
  gpu::BarrierOp::create(b, loc);
  Value segmentUnits = im.sub(kLast, kFirst);
  scf::YieldOp::create(b, loc,
                       ValueRange{im.add(segmentStart, segmentUnits),
                                  im.add(stepBase, stepsRun)});
  b.setInsertionPointAfter(streamLoop);
  gpu::ReturnOp::create(b, loc);
  return workgroupBytes;
}

//===----------------------------------------------------------------------===//
// GpuKernelCache
//===----------------------------------------------------------------------===//

StringRef mlir::ukernel::gpucg::kernelModuleName(Vendor vendor) {
  return vendor == Vendor::amd ? "quilt_amdgpu_kernels"
                               : "quilt_nvidia_kernels";
}

Attribute mlir::ukernel::gpucg::binaryTargetForChip(MLIRContext *ctx,
                                                    StringRef chip) {
  // PTX ISA 8.0 covers every chip from sm_50 to sm_90a.
  if (chip.starts_with("sm_"))
    return NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                     chip, "+ptx80");
  if (chip.starts_with("gfx"))
    return ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/3, "amdgcn-amd-amdhsa",
                                       chip);
  return {};
}

gpu::GPUModuleOp
GpuKernelCache::getOrCreateModule(Vendor vendor, StringRef chip, Location loc) {
  StringRef name = kernelModuleName(vendor);
  MLIRContext *ctx = module.getContext();
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(name)) {
    // One binary per vendor module: its kernels are compiled for one chip
    // (they differ in pipelines and instructions between chips).
    Attribute target = binaryTargetForChip(ctx, chip);
    ArrayAttr targets = existing.getTargetsAttr();
    if (target && targets && !llvm::is_contained(targets, target)) {
      emitError(loc) << "GPU kernels for chip '" << chip
                     << "' and for another chip of the same vendor in one "
                        "module: convert the functions of each chip in "
                        "modules of their own";
      return {};
    }
    return existing;
  }
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(ctx));
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  SmallVector<Attribute> targets;
  if (Attribute target = binaryTargetForChip(ctx, chip))
    targets.push_back(target);
  return gpu::GPUModuleOp::create(b, module.getLoc(), name, targets);
}

GpuKernel GpuKernelCache::getOrCreate(const GpuKernelSpec &spec, StringRef chip,
                                      Location loc) {
  std::string name = spec.symbolName();
  // The name spells the configuration but not its stage count (nor the
  // chip, whose module is checked below): key the cache on both, and give
  // a spec that differs from a built one only there a name of its own.
  std::string key =
      (name + "|s" + Twine(spec.config.stages) + "|" + chip).str();
  auto it = kernels.find(key);
  if (it != kernels.end())
    return it->second;

  MLIRContext *ctx = module.getContext();
  std::string why;
  std::unique_ptr<MatrixEngine> engine = createMatrixEngine(spec, ctx, why);
  if (!engine) {
    emitError(loc) << "cannot generate a GPU kernel for " << spec.config.str()
                   << ": " << why;
    return {};
  }
  gpu::GPUModuleOp gpuModule = getOrCreateModule(spec.vendor, chip, loc);
  if (!gpuModule)
    return {};
  if (gpuModule.lookupSymbol(name))
    name += "_s" + std::to_string(spec.config.stages);
  OpBuilder b = OpBuilder::atBlockEnd(gpuModule.getBody());
  auto type = FunctionType::get(ctx, spec.argumentTypes(ctx), {});
  auto func = gpu::GPUFuncOp::create(b, loc, name, type);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  // Its maps arrive as __grid_constant__ parameters (LaunchExpansion.cpp).
  if (spec.tmaLoads)
    func->setAttr(UKernelDialect::getTensorMapsAsParamsAttrName(),
                  b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {static_cast<int32_t>(spec.blockThreads()), 1, 1}));
  // Given only the block size (`.maxntid`), ptxas picks a register budget
  // for an occupancy of its own choosing, even one the kernel's workgroup
  // memory never allows: it spilled 8 bytes of two sm_80 kernels, at 72 and
  // 128 registers, to reach one. `.minnctapersm` (CUDA's
  // __launch_bounds__' second argument) gives ptxas the model's bound where
  // LaunchExpansion.cpp found it set by workgroup memory or block size
  // (GpuKernelSpec::minBlocksPerSM): the registers it leaves cost no
  // occupancy.
  if (spec.vendor == Vendor::nvidia && spec.minBlocksPerSM > 0)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(spec.minBlocksPerSM));
  OpBuilder body = OpBuilder::atBlockBegin(&func.getBody().front());
  GpuKernel kernel{func, buildKernelBody(body, loc, spec, *engine, func),
                   cStoreWidth(spec, *engine), spec.blockThreads()};
  kernels[key] = kernel;
  return kernel;
}
