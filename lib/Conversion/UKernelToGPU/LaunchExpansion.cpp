//===- LaunchExpansion.cpp - ukernel.dispatch to select + launches --------===//
//
// Part of the Quilt project. On the host, a dispatch (already guarded by
// its run-time operand checks, Conversion/Utils/OperandChecks.cpp) becomes:
//
//   (b, m, n, k) = GEMM-view sizes (memref.dim, transposes respected)
//   kernel, remainder, split_m, split_n = ukernel.select b, m, n, k ...
//   main region rows [0, split_m) x cols [0, split_n):
//     scf.index_switch kernel {
//       case i: gpu.launch_func @kernels::@candidate_i
//                 blocks (ceil(rows / TM_i), ceil(cols / TN_i), b)
//                 threads (threads_i) dynamic_shared_memory bytes_i
//                 args(A, B, C windows, bias window, vector flags)
//     }
//   remainder region (the rest; a patch splits one dimension): likewise
// Under policy fixed only that candidate's kernel is built, and launched
// without a switch. A grid's z holds at most 65535 matrices (65535 /
// splits for a split-K candidate): a batched candidate is launched in a
// loop over chunks of that many, each on windows of its chunk's matrices
// (one iteration for every batch up to the limit).
//
// A convolution is launched as its implicit GEMM (Conversion/Utils/
// ConvIndex.h): M = N*OH*OW, N = F, K = R*S*C, no batch. Its filter (an
// identity layout, checked by the pass) collapses to the K x F (nhwc) or
// F x K (nchw, B transposed) matrix and is windowed like B; the image goes
// whole, the output is windowed along F only, and the region's first row,
// its row count and the filter's R and S follow as index operands.
//
// The vector flags tell a kernel which operands it may read with vector
// loads of its width: decided per launch from the window's address and
// strides, since dynamic shapes give no static alignment.
//
// A candidate built with TMA loads (GpuKernelSpec::tmaLoads) has two
// kernels; its case asks the runtime to encode tensor maps of the A and B
// windows into two 128-byte buffers on the host function's stack, and
// launches the TMA kernel when it got both, else the kernel that stages
// with cp.async:
//
//   haveA = quilt_gpu_tile_map(bufferA, A window, box of A), haveB = ... (B)
//   if haveA && haveB: launch candidate_i_tma(..., bufferA, bufferB)
//   else:              launch candidate_i(...)
//
// The launch names the buffers; the kernel takes the maps by value
// (`__grid_constant__` parameters): quilt-gpu-tensor-maps-as-params turns
// the buffers into the maps' bytes once the kernel is lowered.
//
// A split-K candidate (split_k = S > 1) runs in one launch over the
// calling thread's workspace and arrival counters, which the runtime keeps
// across calls (the last block of each tile to arrive finishes it:
// SplitKFixup.cpp):
//
//   buffer = quilt_gpu_workspace(b * S * rows * cols * 4)   (C interface)
//   counters = quilt_gpu_arrival_counters(b * tilesM * tilesN)
//   if buffer and counters:
//     launch candidate_i_sk blocks (tilesM, tilesN, b * S)
//       args(..., workspace, counters, S,
//            splitK = ceil(ceil(K/TK) / S) * TK, flags)
//
// A stream-K candidate (stream_k = G) launches min(G, units) blocks, units
// = b * tilesM * tilesN * max(1, ceil(K/TK)), with two slots of partial
// sums per block:
//
//   buffer = quilt_gpu_workspace(blocks * 2 * TM * TN * 4)
//   counters = quilt_gpu_arrival_counters(b * tilesM * tilesN)
//   if buffer and counters:
//     launch candidate_i_streamk blocks (blocks, 1, 1)
//       args(..., workspace, counters, flags)
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/ConvIndex.h"
#include "Conversion/Utils/IndexMath.h"
#include "Conversion/Utils/SelectLowering.h"
#include "Conversion/Utils/Views.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

namespace {

/// `view` restricted to [offsets, offsets + sizes) and cast to `type`.
Value window(OpBuilder &b, Location loc, Value view, ArrayRef<Value> offsets,
             ArrayRef<Value> sizes, Type type) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  Value sub = memref::SubViewOp::create(
      b, loc, view, getAsOpFoldResult(ValueRange(offsets)),
      getAsOpFoldResult(ValueRange(sizes)), strides);
  if (sub.getType() == type)
    return sub;
  return memref::CastOp::create(b, loc, type, sub);
}

/// The byte address (index) of the first element of `view`, whose
/// strided metadata is `meta`.
Value firstElementAddress(OpBuilder &b, Location loc, Value view,
                          memref::ExtractStridedMetadataOp meta) {
  IndexMath im{b, loc};
  int64_t elemBytes =
      cast<MemRefType>(view.getType()).getElementTypeBitWidth() / 8;
  // One op per statement, as argument evaluation order is the compiler's.
  Value offsetBytes = im.mul(meta.getOffset(), im.c(elemBytes));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view);
  return im.add(base, offsetBytes);
}

} // namespace

Value mlir::ukernel::gpucg::vectorAligned(OpBuilder &b, Location loc,
                                          Value view, int64_t width) {
  IndexMath im{b, loc};
  int64_t elemBytes =
      cast<MemRefType>(view.getType()).getElementTypeBitWidth() / 8;
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value address = firstElementAddress(b, loc, view, meta);
  Value zero = im.c(0);
  auto multiple = [&](Value x, int64_t of) {
    return im.eq(arith::RemUIOp::create(b, loc, x, im.c(of)), zero);
  };
  Value ok = multiple(address, width * elemBytes);
  ValueRange strides = meta.getStrides();
  for (Value stride : strides.drop_back())
    ok = arith::AndIOp::create(b, loc, ok, multiple(stride, width));
  return ok;
}

namespace {

constexpr llvm::StringLiteral kTileMapFunction = "quilt_gpu_tile_map";

/// quilt_gpu_tile_map (QuiltGpuRuntime.h): (map buffer, address, dtype,
/// batch, rows, cols, batch stride, row stride, box rows, box cols) -> 1 if
/// it encoded the map, else 0.
FunctionType tileMapFunctionType(MLIRContext *ctx) {
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> inputs = {ptr, ptr};
  inputs.append(8, IntegerType::get(ctx, 64));
  return FunctionType::get(ctx, inputs, {IntegerType::get(ctx, 32)});
}

/// Host buffers for the maps of A and B, allocated once at the entry of the
/// function that launches (not per iteration of a loop around the launch).
std::pair<Value, Value> tensorMapBuffers(OpBuilder &b, Operation *launcher) {
  auto function = launcher->getParentOfType<FunctionOpInterface>();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&function.getFunctionBody().front());
  Location loc = launcher->getLoc();
  Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
  auto buffer = [&]() -> Value {
    return LLVM::AllocaOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()),
        LLVM::LLVMArrayType::get(b.getI8Type(), kTensorMapBytes), one,
        kTensorMapAlignment);
  };
  Value a = buffer();
  return {a, buffer()};
}

constexpr llvm::StringLiteral kWorkspaceFunction = "quilt_gpu_workspace";
constexpr llvm::StringLiteral kCountersFunction = "quilt_gpu_arrival_counters";

} // namespace

FunctionType mlir::ukernel::gpucg::runtimeBufferFunctionType(MLIRContext *ctx,
                                                             unsigned bits) {
  Type buffer =
      MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, bits));
  return FunctionType::get(ctx, {IntegerType::get(ctx, 64)}, {buffer});
}

func::FuncOp mlir::ukernel::gpucg::getOrDeclareRuntimeFunction(
    ModuleOp module, Location loc, StringRef name, FunctionType type,
    bool cInterface) {
  if (Operation *existing = module.lookupSymbol(name)) {
    auto func = dyn_cast<func::FuncOp>(existing);
    if (!func || func.getFunctionType() != type ||
        func->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()) !=
            cInterface) {
      emitError(loc) << "'" << name
                     << "' is reserved for Quilt's GPU runtime and must be "
                        "declared as "
                     << type
                     << (cInterface ? " with llvm.emit_c_interface" : "");
      return {};
    }
    return func;
  }
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
  if (cInterface)
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  b.getUnitAttr());
  return func;
}

namespace {

/// CUtensorMapDataType of an element type the TMA kernels load.
int64_t tensorMapDataType(Type elem) { return elem.isBF16() ? 9 : 6; }

/// i1: quilt_gpu_tile_map encoded into `map` a map of `view` (rank 2, or 3
/// with the batch first) read in `box`es.
Value tileMap(OpBuilder &b, Location loc, func::FuncOp tileMapFunction,
              Value view, TmaBox box, Value map) {
  IndexMath im{b, loc};
  auto type = cast<MemRefType>(view.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value address = firstElementAddress(b, loc, view, meta);
  ValueRange sizes = meta.getSizes(), strides = meta.getStrides();
  bool batched = type.getRank() == 3;
  Value batch = batched ? sizes[0] : im.c(1);
  Value batchStride = batched ? strides[0] : im.c(0);
  Type i64 = b.getI64Type();
  auto toI64 = [&](Value index) -> Value {
    return arith::IndexCastOp::create(b, loc, i64, index);
  };
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  SmallVector<Value> args = {
      map,
      LLVM::IntToPtrOp::create(b, loc, ptr, toI64(address)),
      constant(tensorMapDataType(type.getElementType())),
      toI64(batch),
      toI64(sizes[sizes.size() - 2]),
      toI64(sizes.back()),
      toI64(batchStride),
      toI64(strides[strides.size() - 2]),
      constant(box.rows),
      constant(box.cols)};
  Value encoded =
      func::CallOp::create(b, loc, tileMapFunction, args).getResult(0);
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, encoded, zero);
}

} // namespace

LogicalResult mlir::ukernel::gpucg::expandDispatch(DispatchOp op,
                                                   GpuKernelCache &kernels) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  ContractionKind kind = op.getKind();
  bool batched = kind == ContractionKind::batch_matmul;
  bool isConv = kind == ContractionKind::conv2d_nhwc ||
                kind == ContractionKind::conv2d_nchw;
  unsigned first = batched ? 1 : 0;
  bool transposeA = op.getTransposeLhs(), transposeB = op.getTransposeRhs();
  TargetAttr target = op.getEffectiveTarget();
  quilt::TargetDesc desc = toTargetDesc(target);

  Value lhs = op.getLhs(), rhs = op.getRhs(), init = op.getInit();
  Value bias = op.getBias();
  ConvGeometry conv;
  if (isConv) {
    conv = ConvGeometry::fromOperands(b, loc, op, lhs, rhs, init);
    // B is the filter as a matrix: HWCF collapses to (R*S*C) x F, FCHW to
    // F x (C*R*S), which is B transposed.
    transposeA = false;
    transposeB = !conv.nhwc();
    rhs = memref::CollapseShapeOp::create(
        b, loc, rhs,
        conv.nhwc() ? ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}}
                    : ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  }

  // One kernel per candidate.
  GpuKernelSpec base;
  base.vendor = target.getVendor();
  base.warpSize = desc.warpSize;
  base.inputType = op.getInputElementType();
  base.accType = getElementTypeOrSelf(init.getType());
  if (bias)
    base.biasType = getElementTypeOrSelf(bias.getType());
  base.epilogue = op.getEpilogueSteps();
  base.fused = FusedEpilogue::of(op);
  base.fill = dyn_cast_or_null<FloatAttr>(op.getFillAttr());
  base.transposeA = transposeA;
  base.transposeB = transposeB;
  base.batched = batched;
  base.kind = kind;
  base.strideH = conv.strideH, base.strideW = conv.strideW;
  base.dilationH = conv.dilationH, base.dilationW = conv.dilationW;
  // An nhwc image with contiguous channels is read in runs along C, like a
  // matrix's rows; an nchw image element by element (Staging.cpp).
  base.contiguousA = (!isConv || conv.nhwc()) && hasContiguousRows(lhs);
  base.contiguousB = hasContiguousRows(rhs);
  base.contiguousC = !isConv && hasContiguousRows(init);
  base.asyncCopies = desc.hasAsyncCopies();
  base.maxWorkgroupBytes = desc.sharedMemPerBlock;
  // Per candidate a call can run (under a fixed policy only that one: the
  // others would be compiled and never launched): its spec, its kernel and
  // its TMA kernel (a null func when it has none).
  struct CandidateKernels {
    GpuKernelSpec spec;
    GpuKernel kernel, tmaKernel;
  };
  SmallVector<int64_t> runnable = op.getRunnableCandidates();
  SmallVector<CandidateKernels, 4> candidates;
  func::FuncOp tileMapFunction;
  // The dispatch's two tensor-map buffers, shared by its TMA candidates.
  Value mapBufferA, mapBufferB;
  func::FuncOp workspaceFunction, countersFunction;
  for (int64_t index : runnable) {
    GpuKernelSpec spec = base;
    spec.config = toKernelConfig(cast<ConfigAttr>(op.getCandidates()[index]));
    spec.nativeWgmma =
        kernels.issuesNativeWgmma() && canIssueWgmma(spec, target.getChip());
    std::optional<quilt::ElemType> elem = toCostModelElemType(base.inputType);
    if (elem) {
      quilt::ResourceUsage usage =
          quilt::estimateResources(spec.config, *elem, desc);
      if (usage.blocksPerCU == usage.blocksPerCUBesidesRegisters &&
          usage.registerBudgetPerThread > usage.registersPerThread)
        spec.minBlocksPerSM = usage.blocksPerCU;
      // Split-K exists for grids of fewer tiles than a wave, whose order
      // does not matter: its blocks keep launch order, and the registers
      // (on mi300x, SGPRs) it would take to hold a computed tile.
      if (!spec.sharesTiles())
        spec.groupRows = quilt::waveFootprintRows(spec.config, *elem, desc);
    }
    GpuKernel kernel = kernels.getOrCreate(spec, target.getChip(), loc);
    if (!kernel.func)
      return failure();
    GpuKernel tmaKernel;
    if (kernels.loadsWithTma() && canLoadWithTma(spec)) {
      GpuKernelSpec tmaSpec = spec;
      tmaSpec.tmaLoads = true;
      // A producer warpgroup issues the loads where it keeps the model's
      // blocks per SM and the consumers' registers; the kernel then asks
      // for those blocks, which fixes the registers ptxas gives a thread
      // at launch, and so the pool setmaxnreg moves registers within.
      if (elem)
        if (std::optional<quilt::ProducerWarpgroup> producer =
                quilt::producerWarpgroupFor(spec.config, *elem, desc)) {
          tmaSpec.producerThreads = quilt::ProducerWarpgroup::kThreads;
          tmaSpec.minBlocksPerSM = producer->blocksPerCU;
          if (producer->movesRegisters()) {
            tmaSpec.producerRegisters = quilt::ProducerWarpgroup::kRegisters;
            tmaSpec.consumerRegisters = producer->consumerRegisters;
          }
        }
      tmaKernel = kernels.getOrCreate(tmaSpec, target.getChip(), loc);
      if (!tmaKernel.func)
        return failure();
      if (!tileMapFunction) {
        tileMapFunction = getOrDeclareRuntimeFunction(
            op->getParentOfType<ModuleOp>(), loc, kTileMapFunction,
            tileMapFunctionType(b.getContext()),
            /*cInterface=*/false);
        if (!tileMapFunction)
          return failure();
        std::tie(mapBufferA, mapBufferB) = tensorMapBuffers(b, op);
      }
    }
    if (spec.sharesTiles() && !workspaceFunction) {
      auto module = op->getParentOfType<ModuleOp>();
      workspaceFunction = getOrDeclareRuntimeFunction(
          module, loc, kWorkspaceFunction,
          runtimeBufferFunctionType(b.getContext(), 8), /*cInterface=*/true);
      if (!workspaceFunction)
        return failure();
      countersFunction = getOrDeclareRuntimeFunction(
          module, loc, kCountersFunction,
          runtimeBufferFunctionType(b.getContext(), 32), /*cInterface=*/true);
      if (!countersFunction)
        return failure();
    }
    candidates.push_back({spec, kernel, tmaKernel});
  }
  ArrayRef<Type> argTypes = candidates.front().kernel.func.getArgumentTypes();

  Value batch =
      batched ? Value(memref::DimOp::create(b, loc, init, 0)) : im.c(1);
  Value m, n, k;
  if (isConv) {
    m = conv.gemmM(im);
    n = conv.filters;
    k = memref::DimOp::create(b, loc, rhs, transposeB ? 1 : 0);
  } else {
    m = memref::DimOp::create(b, loc, init, first);
    n = memref::DimOp::create(b, loc, init, first + 1);
    k = memref::DimOp::create(b, loc, lhs, transposeA ? first : first + 1);
  }
  // A or B whose rows do not start on 16-byte boundaries is read from an
  // aligned copy by candidates that stage in vector runs
  // (OperandRepack.cpp).
  bool stagesInRuns = llvm::any_of(candidates, [](const CandidateKernels &c) {
    return c.spec.config.vectorWidth > 1;
  });
  if (!isConv && stagesInRuns) {
    Value operands[] = {base.contiguousA ? lhs : Value(),
                        base.contiguousB ? rhs : Value()};
    if (failed(repackUnalignedRows(b, loc, kernels, base.vendor,
                                   target.getChip(), operands)))
      return failure();
    lhs = operands[0] ? operands[0] : lhs;
    rhs = operands[1] ? operands[1] : rhs;
  }

  Type indexType = b.getIndexType();
  auto select = SelectOp::create(
      b, loc, TypeRange{indexType, indexType, indexType, indexType}, batch, m,
      n, k, TypeAttr::get(op.getInputElementType()), op.getCandidates(),
      op.getPolicyAttr(), op.getFixedCandidateAttr(), target,
      op.getTunedAttr());

  // Launches the selected candidate on rows [r0, r0 + rows) x cols
  // [c0, c0 + cols); an empty region launches nothing.
  auto emitRegion = [&](Value which, Value r0, Value c0, Value rows,
                        Value cols) {
    Value zero = im.c(0);
    Value nonEmpty =
        arith::AndIOp::create(b, loc, im.lt(zero, rows), im.lt(zero, cols));
    scf::IfOp::create(b, loc, nonEmpty, [&](OpBuilder &tb, Location l) {
      // Windows keep the batch dimension whole: block z walks it.
      auto win = [&](Value view, Value rowOffset, Value colOffset,
                     Value rowSize, Value colSize, Type type) {
        SmallVector<Value> offsets = {rowOffset, colOffset};
        SmallVector<Value> sizes = {rowSize, colSize};
        if (batched) {
          offsets.insert(offsets.begin(), zero);
          sizes.insert(sizes.begin(), batch);
        }
        return window(tb, l, view, offsets, sizes, type);
      };
      Value bWindow = transposeB ? win(rhs, c0, zero, cols, k, argTypes[1])
                                 : win(rhs, zero, c0, k, cols, argTypes[1]);
      SmallVector<Value> args;
      if (isConv) {
        // The image whole; the output's filters [c0, c0 + cols).
        Value image = lhs;
        if (image.getType() != argTypes[0])
          image = memref::CastOp::create(tb, l, argTypes[0], image);
        SmallVector<Value> offsets = {zero, zero, zero, c0};
        SmallVector<Value> sizes = {conv.images, conv.outH, conv.outW, cols};
        if (!conv.nhwc()) {
          offsets = {zero, c0, zero, zero};
          sizes = {conv.images, cols, conv.outH, conv.outW};
        }
        args = {image, bWindow,
                window(tb, l, init, offsets, sizes, argTypes[2])};
      } else {
        args = {transposeA ? win(lhs, zero, r0, k, rows, argTypes[0])
                           : win(lhs, r0, zero, rows, k, argTypes[0]),
                bWindow, win(init, r0, c0, rows, cols, argTypes[2])};
      }
      if (bias)
        args.push_back(window(tb, l, bias, {c0}, {cols}, argTypes[3]));
      // The fused operands' windows of the region, indexed like C's.
      for (auto [operand, kind] :
           llvm::zip(op.getEpilogueOperands(), base.fused.kinds)) {
        Type type = argTypes[args.size()];
        if (kind == EpilogueOperandKind::scalar)
          args.push_back(operand);
        else if (kind == EpilogueOperandKind::per_column)
          args.push_back(window(tb, l, operand, {c0}, {cols}, type));
        else if (kind == EpilogueOperandKind::per_row)
          args.push_back(window(tb, l, operand, {r0}, {rows}, type));
        else
          args.push_back(win(operand, r0, c0, rows, cols, type));
      }
      if (isConv)
        args.append({r0, rows, conv.filterR, conv.filterS});

      // Launches one candidate at tb's insertion point on `args` (the
      // region's operands) over `batch` matrices.
      auto emitLaunch = [&](const CandidateKernels &candidate, OpBuilder &tb,
                            const SmallVector<Value> &args, Value batch) {
        const GpuKernelSpec &spec = candidate.spec;
        const GpuKernel &kernel = candidate.kernel;
        const GpuKernel &tmaKernel = candidate.tmaKernel;
        const quilt::KernelConfig &cfg = spec.config;
        IndexMath cm{tb, l};
        Value flags = arith::ConstantIntOp::create(tb, l, 0, 32);
        auto setFlagIf = [&](Value condition, int32_t bit) {
          Value clear = arith::ConstantIntOp::create(tb, l, 0, 32);
          Value set = arith::ConstantIntOp::create(tb, l, bit, 32);
          Value bitValue = arith::SelectOp::create(tb, l, condition, set, clear);
          flags = arith::OrIOp::create(tb, l, flags, bitValue);
        };
        auto addFlag = [&](Value view, bool contiguous, int32_t bit) {
          if (!contiguous || cfg.vectorWidth <= 1)
            return;
          Value aligned = vectorAligned(tb, l, view, cfg.vectorWidth);
          // A run of an nhwc image's im2col row must not cross from one
          // filter tap's channels into the next: C a multiple of the width.
          // (Operands are built one statement at a time: the order of
          // evaluation of a call's arguments, and with it the order of the
          // ops in the output, differs between compilers.)
          if (isConv && bit == kVectorA) {
            Value zero = cm.c(0);
            Value remainder = cm.rem(conv.channels, cm.c(cfg.vectorWidth));
            aligned = arith::AndIOp::create(tb, l, aligned,
                                            cm.eq(remainder, zero));
          }
          setFlagIf(aligned, bit);
        };
        addFlag(args[0], spec.contiguousA, kVectorA);
        addFlag(args[1], spec.contiguousB, kVectorB);
        // A split-K candidate's blocks write their partial sums into a
        // workspace of (matrices x splits) matrices of the region's shape,
        // each split a whole number of K tiles, and count their arrivals
        // per tile; the last block of a tile writes C (SplitKFixup.cpp). A
        // stream-K candidate's blocks do the same for the tiles they share.
        // The runtime keeps the calling thread's workspace and counters
        // across calls; without them (the runtime failed and said why)
        // nothing is launched.
        Value tilesM = cm.ceilDiv(rows, cm.c(cfg.tileM));
        Value tilesN = cm.ceilDiv(cols, cm.c(cfg.tileN));
        Value matrices = batch;
        gpu::KernelDim3 grid{tilesM, tilesN, matrices};
        SmallVector<Value> splitKOperands;
        OpBuilder::InsertionGuard launchesGuard(tb);
        if (spec.sharesTiles()) {
          // The workspace: (matrices x splits) matrices of the region's
          // shape, or a stream-K grid's two TM x TN slots per block.
          Type computeType = spec.computeType();
          Value tiles = cm.mul(cm.mul(batch, tilesM), tilesN);
          Value workspaceShape[3];
          if (spec.splitsK()) {
            Value splits = cm.c(cfg.splitK);
            Value tileK = cm.c(cfg.tileK);
            Value splitK =
                cm.mul(cm.ceilDiv(cm.ceilDiv(k, tileK), splits), tileK);
            matrices = cm.mul(batch, splits);
            grid.z = matrices;
            workspaceShape[0] = matrices;
            workspaceShape[1] = rows;
            workspaceShape[2] = cols;
            splitKOperands = {splits, splitK};
          } else {
            Value kTiles = cm.ceilDiv(k, cm.c(cfg.tileK));
            Value kSteps = arith::MaxUIOp::create(tb, l, kTiles, cm.c(1));
            Value units = cm.mul(tiles, kSteps);
            Value blocks = cm.min(cm.c(cfg.streamK), units);
            grid = {blocks, cm.c(1), cm.c(1)};
            workspaceShape[0] = cm.mul(blocks, cm.c(2));
            workspaceShape[1] = cm.c(cfg.tileM);
            workspaceShape[2] = cm.c(cfg.tileN);
          }
          Value elements = cm.mul(workspaceShape[0],
                                  cm.mul(workspaceShape[1], workspaceShape[2]));
          Value bytes =
              cm.mul(elements, cm.c(computeType.getIntOrFloatBitWidth() / 8));
          Value bytes64 =
              arith::IndexCastOp::create(tb, l, tb.getI64Type(), bytes);
          Value buffer = func::CallOp::create(tb, l, workspaceFunction,
                                              ValueRange{bytes64})
                             .getResult(0);
          auto type = MemRefType::get(
              SmallVector<int64_t>(3, ShapedType::kDynamic), computeType);
          Value workspace = memref::ViewOp::create(tb, l, type, buffer, cm.c(0),
                                                   workspaceShape);
          Value tiles64 =
              arith::IndexCastOp::create(tb, l, tb.getI64Type(), tiles);
          Value counters =
              func::CallOp::create(tb, l, countersFunction, ValueRange{tiles64})
                  .getResult(0);
          auto obtained = [&](Value memref) {
            Value address =
                memref::ExtractAlignedPointerAsIndexOp::create(tb, l, memref);
            return cm.lt(cm.c(0), address);
          };
          Value haveWorkspace = obtained(buffer);
          Value haveCounters = obtained(counters);
          Value haveBuffers =
              arith::AndIOp::create(tb, l, haveWorkspace, haveCounters);
          auto whereObtained = scf::IfOp::create(tb, l, haveBuffers,
                                                 /*withElseRegion=*/false);
          tb.setInsertionPoint(whereObtained.thenBlock()->getTerminator());
          gpu::GPUFuncOp splitKernel = kernel.func;
          Type argType =
              splitKernel.getArgumentTypes()[spec.firstSplitKOperand()];
          splitKOperands.insert(
              splitKOperands.begin(),
              {memref::CastOp::create(tb, l, argType, workspace), counters});
        }
        // C (or a split-K kernel's workspace) written in runs of the
        // kernel's width.
        Value written = spec.splitsK() ? splitKOperands[0] : args[2];
        if (kernel.cVectorWidth > 1)
          setFlagIf(vectorAligned(tb, l, written, kernel.cVectorWidth),
                    kVectorC);
        auto launch = [&](OpBuilder &lb, const GpuKernel &launched,
                          ValueRange maps) {
          IndexMath lm{lb, l};
          gpu::KernelDim3 block{lm.c(launched.blockThreads), lm.c(1), lm.c(1)};
          SmallVector<Value> operands = args;
          operands.append(splitKOperands);
          operands.append(maps.begin(), maps.end());
          operands.push_back(flags);
          Value smem = arith::ConstantIntOp::create(
              lb, l, static_cast<int32_t>(launched.workgroupBytes), 32);
          gpu::LaunchFuncOp::create(lb, l, launched.func, grid, block, smem,
                                    operands);
        };
        if (tmaKernel.func) {
          Value haveA = tileMap(tb, l, tileMapFunction, args[0],
                                tmaBox(spec, /*operandB=*/false), mapBufferA);
          Value haveB = tileMap(tb, l, tileMapFunction, args[1],
                                tmaBox(spec, /*operandB=*/true), mapBufferB);
          scf::IfOp::create(
              tb, l, arith::AndIOp::create(tb, l, haveA, haveB),
              [&](OpBuilder &then, Location) {
                launch(then, tmaKernel, {mapBufferA, mapBufferB});
                scf::YieldOp::create(then, l);
              },
              [&](OpBuilder &otherwise, Location) {
                launch(otherwise, kernel, {});
                scf::YieldOp::create(otherwise, l);
              });
        } else {
          launch(tb, kernel, {});
        }
      };
      // A grid's z holds at most 65535 (matrix, split) pairs: a larger
      // batch is launched in chunks of floor(65535 / splits) matrices, on
      // windows of the chunk's matrices (the model counts the launches).
      auto emitCandidate = [&](const CandidateKernels &candidate) {
        if (!batched) {
          emitLaunch(candidate, tb, args, batch);
          return;
        }
        IndexMath cm{tb, l};
        Value chunk = cm.c(quilt::kGpuMaxGridZ / candidate.spec.config.splitK);
        scf::ForOp::create(
            tb, l, cm.c(0), batch, chunk, ValueRange{},
            [&](OpBuilder &fb, Location, Value first, ValueRange) {
              IndexMath fm{fb, l};
              Value count = fm.min(chunk, fm.sub(batch, first));
              Value zero = fm.c(0);
              SmallVector<Value> chunkArgs;
              for (Value arg : args) {
                auto type = dyn_cast<MemRefType>(arg.getType());
                if (!type || type.getRank() != 3) {
                  chunkArgs.push_back(arg);
                  continue;
                }
                Value rows = memref::DimOp::create(fb, l, arg, 1);
                Value cols = memref::DimOp::create(fb, l, arg, 2);
                chunkArgs.push_back(window(fb, l, arg, {first, zero, zero},
                                           {count, rows, cols}, type));
              }
              emitLaunch(candidate, fb, chunkArgs, count);
              scf::YieldOp::create(fb, l);
            });
      };
      // emitCandidate builds at `tb`, the builder each case is given.
      emitSelectedCandidate(tb, l, which, runnable, [&](OpBuilder &, size_t i) {
        emitCandidate(candidates[i]);
      });
      scf::YieldOp::create(tb, l);
    });
  };

  forEachSelectedRegion(b, loc, select, m, n, emitRegion);
  op.erase();
  return success();
}
