//===- OperandRepack.cpp - Unaligned operand rows copied to aligned ones --===//
//
// Part of the Quilt project. The kernels stage A and B in 16-byte runs
// (vector loads, cp.async, TMA boxes), which need every row of the operand
// to start on a 16-byte boundary. An f16 matrix with an odd K (MikPoly's
// K = 35, an attention head over 43 tokens) has none: the kernels then
// fall back to one element per load and per shared store, every tile
// (5.3x the fewest global sectors and 4x the conflict-free shared
// wavefronts at 77x200x135 on the PTX emulator; 0.33-0.71x cuBLAS on an
// H200, docs/benchmarks.md). Keeping a coalesced element path inside the
// same kernel cost 30-90 registers a thread (docs/gpu-codegen.md).
//
// Instead, as BLAS libraries pack, the host code copies such an operand
// once per call into rows padded to 16 bytes, on the device, and the
// kernels read the copy with their aligned path (and TMA):
//
//   alignedA = vectorAligned(A, 16 bytes), alignedB = ...
//   bytes = (alignedA ? 0 : round256(b * rows * pitch * elem)) + (B ...)
//   if bytes > 0:
//     buffer = quilt_gpu_operand_copies(bytes)
//     if buffer and !alignedA:
//       launch quilt_repack_<elem>_<rank>d(A, copy of A in buffer)
//       A = the copy (pitch = cols rounded up to 16 bytes)
//     (likewise B, after A's bytes)
//
// The copy kernel is one thread an element, so both its loads and its
// stores are coalesced. The cost model prices the copy (its bytes at the
// DRAM rate and a launch; quilt::unalignedOperandCopies, `copies:` in
// explain).
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

namespace {

constexpr llvm::StringLiteral kOperandCopiesFunction =
    "quilt_gpu_operand_copies";
/// Threads of a copy block, and the most matrices its grid's y walks (a
/// larger batch is walked by a loop in the kernel).
constexpr int64_t kRepackThreads = 256, kMaxGridY = 65535;
/// Each copy's rows start on this many bytes, and each copy on 256 bytes
/// (a driver's allocation alignment) within the buffer.
constexpr int64_t kRowAlignment = 16, kCopyAlignment = 256;

/// The canonical contiguous view of `rank` (the kernels' operand type).
MemRefType contiguousView(MLIRContext *ctx, int64_t rank, Type elem) {
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  strides.back() = 1;
  return MemRefType::get(
      shape, elem, StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides));
}

std::string repackKernelName(MemRefType type) {
  std::string elem;
  llvm::raw_string_ostream os(elem);
  os << type.getElementType();
  return ("quilt_repack_" + Twine(elem) + "_" + Twine(type.getRank()) + "d")
      .str();
}

/// x rounded up to a multiple of `to` (index values, `to` > 0).
Value roundUp(IndexMath &im, Value x, int64_t to) {
  return im.mul(im.ceilDiv(x, im.c(to)), im.c(to));
}

} // namespace

gpu::GPUFuncOp GpuKernelCache::getOrCreateRepack(MemRefType type, Vendor vendor,
                                                 StringRef chip, Location loc) {
  gpu::GPUModuleOp gpuModule = getOrCreateModule(vendor, chip, loc);
  if (!gpuModule)
    return {};
  std::string name = repackKernelName(type);
  if (auto existing = gpuModule.lookupSymbol<gpu::GPUFuncOp>(name))
    return existing;
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(gpuModule.getBody());
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, {type, type}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(kRepackThreads), 1, 1}));

  // element = block x * 256 + thread; (row, col) = divmod(element, cols);
  // matrices from block y, in steps of the grid's y.
  b.setInsertionPointToStart(&func.getBody().front());
  IndexMath im{b, loc};
  Value source = func.getArgument(0), copy = func.getArgument(1);
  int64_t rank = type.getRank();
  Value rows = memref::DimOp::create(b, loc, source, rank - 2);
  Value cols = memref::DimOp::create(b, loc, source, rank - 1);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value element = im.add(im.mul(block, im.c(kRepackThreads)), thread);
  Value count = im.mul(rows, cols);
  Value inside = im.lt(element, count);
  scf::IfOp::create(b, loc, inside, [&](OpBuilder &tb, Location l) {
    IndexMath tm{tb, l};
    // The division in 32 bits where a matrix has fewer than 2^32 elements
    // (a 64-bit division is a long subroutine on both vendors' chips).
    Value narrow = tm.lt(count, tm.c(int64_t(1) << 32));
    Type indexType = tb.getIndexType();
    auto divided = scf::IfOp::create(tb, l, TypeRange{indexType, indexType},
                                     narrow, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(tb);
      tb.setInsertionPointToStart(divided.thenBlock());
      Type i32 = tb.getI32Type();
      auto to32 = [&](Value v) -> Value {
        return arith::IndexCastUIOp::create(tb, l, i32, v);
      };
      auto toIndex = [&](Value v) -> Value {
        return arith::IndexCastUIOp::create(tb, l, indexType, v);
      };
      Value e = to32(element), c = to32(cols);
      Value quotient = toIndex(arith::DivUIOp::create(tb, l, e, c));
      Value remainder = toIndex(arith::RemUIOp::create(tb, l, e, c));
      scf::YieldOp::create(tb, l, ValueRange{quotient, remainder});

      tb.setInsertionPointToStart(divided.elseBlock());
      quotient = tm.div(element, cols);
      remainder = tm.rem(element, cols);
      scf::YieldOp::create(tb, l, ValueRange{quotient, remainder});
    }
    Value row = divided.getResult(0), col = divided.getResult(1);
    if (rank == 2) {
      Value v = memref::LoadOp::create(tb, l, source, ValueRange{row, col});
      memref::StoreOp::create(tb, l, v, copy, ValueRange{row, col});
    } else {
      Value matrices = memref::DimOp::create(tb, l, source, 0);
      Value first = gpu::BlockIdOp::create(tb, l, gpu::Dimension::y);
      Value step = gpu::GridDimOp::create(tb, l, gpu::Dimension::y);
      scf::ForOp::create(
          tb, l, first, matrices, step, ValueRange{},
          [&](OpBuilder &fb, Location fl, Value matrix, ValueRange) {
            Value v = memref::LoadOp::create(fb, fl, source,
                                             ValueRange{matrix, row, col});
            memref::StoreOp::create(fb, fl, v, copy,
                                    ValueRange{matrix, row, col});
            scf::YieldOp::create(fb, fl);
          });
    }
    scf::YieldOp::create(tb, l);
  });
  gpu::ReturnOp::create(b, loc);
  return func;
}

LogicalResult mlir::ukernel::gpucg::repackUnalignedRows(
    OpBuilder &b, Location loc, GpuKernelCache &kernels, Vendor vendor,
    StringRef chip, MutableArrayRef<Value> operands) {
  MLIRContext *ctx = b.getContext();
  IndexMath im{b, loc};
  // Per operand: whether it is aligned, its copy's pitch and bytes (0 when
  // aligned), and its shape.
  struct Plan {
    Value view, aligned, pitch, bytes;
    SmallVector<Value> sizes;
    MemRefType type;
  };
  SmallVector<Plan, 2> plans;
  Value total = im.c(0);
  for (Value view : operands) {
    if (!view)
      continue;
    auto original = cast<MemRefType>(view.getType());
    Plan plan;
    plan.type =
        contiguousView(ctx, original.getRank(), original.getElementType());
    int64_t elemBytes = original.getElementTypeBitWidth() / 8;
    int64_t width = std::max<int64_t>(1, kRowAlignment / elemBytes);
    plan.view = view.getType() == plan.type
                    ? view
                    : memref::CastOp::create(b, loc, plan.type, view);
    plan.aligned = vectorAligned(b, loc, plan.view, width);
    Value elements = im.c(1);
    for (int64_t d = 0; d < original.getRank(); ++d) {
      plan.sizes.push_back(memref::DimOp::create(b, loc, plan.view, d));
      if (d + 1 < original.getRank())
        elements = im.mul(elements, plan.sizes.back());
    }
    plan.pitch = roundUp(im, plan.sizes.back(), width);
    Value bytes =
        roundUp(im, im.mul(im.mul(elements, plan.pitch), im.c(elemBytes)),
                kCopyAlignment);
    plan.bytes = arith::SelectOp::create(b, loc, plan.aligned, im.c(0), bytes);
    total = im.add(total, plan.bytes);
    plans.push_back(plan);
  }
  if (plans.empty())
    return success();

  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  func::FuncOp copiesFunction = getOrDeclareRuntimeFunction(
      module, loc, kOperandCopiesFunction, runtimeBufferFunctionType(ctx, 8),
      /*cInterface=*/true);
  if (!copiesFunction)
    return failure();
  SmallVector<gpu::GPUFuncOp, 2> copyKernels;
  for (const Plan &plan : plans) {
    copyKernels.push_back(
        kernels.getOrCreateRepack(plan.type, vendor, chip, loc));
    if (!copyKernels.back())
      return failure();
  }

  SmallVector<Type> resultTypes;
  SmallVector<Value> unchanged;
  for (const Plan &plan : plans) {
    resultTypes.push_back(plan.type);
    unchanged.push_back(plan.view);
  }
  auto anyCopy = scf::IfOp::create(b, loc, resultTypes, im.lt(im.c(0), total),
                                   /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(anyCopy.elseBlock());
    scf::YieldOp::create(b, loc, unchanged);

    b.setInsertionPointToStart(anyCopy.thenBlock());
    IndexMath tm{b, loc};
    Value total64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), total);
    Value buffer =
        func::CallOp::create(b, loc, copiesFunction, total64).getResult(0);
    // Null (the runtime failed and said why): the kernels read the
    // operands as they are, element by element.
    Value obtained =
        tm.lt(tm.c(0),
              memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
    SmallVector<Value> results;
    Value offset = tm.c(0);
    for (auto [plan, kernel] : llvm::zip(plans, copyKernels)) {
      Value copies = arith::AndIOp::create(
          b, loc, obtained,
          arith::XOrIOp::create(b, loc, plan.aligned,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
      Value at = offset;
      auto copied = scf::IfOp::create(
          b, loc, copies,
          [&](OpBuilder &cb, Location l) {
            IndexMath cm{cb, l};
            int64_t rank = plan.type.getRank();
            Value rows = plan.sizes[rank - 2], cols = plan.sizes[rank - 1];
            Value plane = cm.mul(rows, plan.pitch);
            Value elements = rank == 3 ? cm.mul(plan.sizes[0], plane) : plane;
            auto flat = MemRefType::get({ShapedType::kDynamic},
                                        plan.type.getElementType());
            Value storage = memref::ViewOp::create(cb, l, flat, buffer, at,
                                                   ValueRange{elements});
            SmallVector<OpFoldResult> strides = {OpFoldResult(plan.pitch),
                                                 cb.getIndexAttr(1)};
            if (rank == 3)
              strides.insert(strides.begin(), OpFoldResult(plane));
            Value copy = memref::ReinterpretCastOp::create(
                cb, l, plan.type, storage, OpFoldResult(cm.c(0)),
                getAsOpFoldResult(ValueRange(plan.sizes)), strides);
            // An empty operand launches nothing (a grid of 0 blocks is a
            // launch error).
            Value perMatrix = cm.mul(rows, cols);
            Value nonEmpty = cm.lt(cm.c(0), perMatrix);
            if (rank == 3)
              nonEmpty = arith::AndIOp::create(cb, l, nonEmpty,
                                               cm.lt(cm.c(0), plan.sizes[0]));
            scf::IfOp::create(cb, l, nonEmpty, [&](OpBuilder &lb, Location ll) {
              IndexMath lm{lb, ll};
              Value gridY =
                  rank == 3 ? lm.min(plan.sizes[0], lm.c(kMaxGridY)) : lm.c(1);
              gpu::KernelDim3 grid{lm.ceilDiv(perMatrix, lm.c(kRepackThreads)),
                                   gridY, lm.c(1)};
              gpu::KernelDim3 block{lm.c(kRepackThreads), lm.c(1), lm.c(1)};
              gpu::LaunchFuncOp::create(lb, ll, kernel, grid, block,
                                        /*dynamicSharedMemorySize=*/Value(),
                                        ValueRange{plan.view, copy});
              scf::YieldOp::create(lb, ll);
            });
            scf::YieldOp::create(cb, l, copy);
          },
          [&](OpBuilder &cb, Location l) {
            scf::YieldOp::create(cb, l, plan.view);
          });
      results.push_back(copied.getResult(0));
      if (&plan != &plans.back())
        offset = tm.add(offset, plan.bytes);
    }
    scf::YieldOp::create(b, loc, results);
  }
  unsigned next = 0;
  for (Value &operand : operands)
    if (operand)
      operand = anyCopy.getResult(next++);
  return success();
}
