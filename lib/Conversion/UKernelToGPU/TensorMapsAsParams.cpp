//===- TensorMapsAsParams.cpp - TMA maps as __grid_constant__ params ------===//
//
// Part of the Quilt project. A TMA kernel reads its tensor maps where the
// launch put them: in the kernel's parameter space, passed by value like
// CUDA's `const __grid_constant__ CUtensorMap`, rather than through a
// pointer to a device copy. The host encodes each map per launch into a
// stack buffer (LaunchExpansion.cpp); this pass, once the kernel is lowered
// to LLVM, makes the kernel's map arguments byval grid constants and the
// launches pass the buffers' bytes.
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Passes.h"
#include "Dialect/UKernel/IR/UKernelDialect.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTGPUTENSORMAPSASPARAMS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using mlir::ukernel::gpucg::kTensorMapAlignment;
using mlir::ukernel::gpucg::kTensorMapBytes;

namespace {

/// The tensor map `op` reads, if it is a TMA operation or a tensor-map
/// prefetch.
Value tensorMapOperand(Operation *op) {
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return copy.getTmaDescriptor();
  if (auto store = dyn_cast<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(op))
    return store.getTmaDescriptor();
  if (auto reduce = dyn_cast<NVVM::CpAsyncBulkTensorReduceOp>(op))
    return reduce.getTmaDescriptor();
  if (auto prefetch = dyn_cast<NVVM::CpAsyncBulkTensorPrefetchOp>(op))
    return prefetch.getTmaDescriptor();
  if (auto prefetch = dyn_cast<NVVM::PrefetchOp>(op))
    if (prefetch.getTensormap())
      return prefetch.getAddr();
  return {};
}

/// Marks the tensor-map arguments of `kernel` (which carries
/// ukernel.tensor_maps_as_params) as byval grid constants; their indices in
/// `maps`.
LogicalResult rewriteKernel(LLVM::LLVMFuncOp kernel,
                            SmallVectorImpl<unsigned> &maps) {
  StringRef marker = ukernel::UKernelDialect::getTensorMapsAsParamsAttrName();
  if (!kernel->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
      kernel.isExternal())
    return kernel.emitError()
           << "'" << marker << "' must be on a lowered NVVM kernel";
  Block &entry = kernel.getBody().front();
  // A map is an argument that TMA reads; then nothing else may use it.
  for (BlockArgument arg : entry.getArguments()) {
    auto isMapUse = [&](OpOperand &use) {
      return tensorMapOperand(use.getOwner()) == arg;
    };
    if (llvm::none_of(arg.getUses(), isMapUse))
      continue;
    for (OpOperand &use : arg.getUses())
      if (!isMapUse(use))
        return kernel.emitError()
               << "tensor map argument " << arg.getArgNumber()
               << " is used by '" << use.getOwner()->getName()
               << "'; a map passed by value is only read by TMA";
    maps.push_back(arg.getArgNumber());
  }
  if (maps.empty())
    return kernel.emitError()
           << "'" << marker << "' on a kernel that reads no tensor map";
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  Type bytes =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
  for (unsigned index : maps) {
    kernel.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(bytes));
    kernel.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(kTensorMapAlignment));
    kernel.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
  }
  kernel->removeAttr(marker);
  return success();
}

/// Makes `launch` pass the bytes that its operands for `kernel`'s
/// arguments `maps` point at.
LogicalResult rewriteLaunch(gpu::LaunchFuncOp launch, LLVM::LLVMFuncOp kernel,
                            ArrayRef<unsigned> maps,
                            const LLVMTypeConverter &converter) {
  // Which operand each LLVM argument came from, as gpu-to-nvvm converted
  // the kernel's signature (a memref is a descriptor's fields).
  OperandRange operands = launch.getKernelOperands();
  auto operandTypes =
      FunctionType::get(launch.getContext(), operands.getTypes(), {});
  TypeConverter::SignatureConversion signature(operands.size());
  if (!converter.convertFunctionSignature(operandTypes, /*isVariadic=*/false,
                                          /*useBarePtrCallConv=*/false,
                                          signature) ||
      signature.getConvertedTypes().size() != kernel.getNumArguments())
    return launch.emitError()
           << "cannot match the operands of this launch to the "
           << kernel.getNumArguments() << " arguments of '" << kernel.getName()
           << "'";
  OpBuilder b(launch);
  // The launch copies the bytes into its argument buffer; the driver then
  // copies as many as the kernel's parameter declares. Loaded as one
  // vector rather than as the kernel's byte array: LLVM's SROA splits an
  // array value into a load and an insertvalue per byte (128 of each, for
  // every launch), which made optimizing the host code of a few dozen TMA
  // candidates take longer than compiling their kernels.
  Type bytes = VectorType::get({kTensorMapBytes / 8}, b.getI64Type());
  for (unsigned argument : maps) {
    std::optional<unsigned> operandIndex;
    for (unsigned i = 0, e = operands.size(); i < e; ++i) {
      auto mapping = signature.getInputMapping(i);
      if (mapping && mapping->size == 1 && mapping->inputNo == argument)
        operandIndex = i;
    }
    Value buffer = operandIndex ? operands[*operandIndex] : Value();
    if (!buffer || !isa<LLVM::LLVMPointerType>(buffer.getType()))
      return launch.emitError()
             << "the operand for tensor map argument " << argument << " of '"
             << kernel.getName() << "' must be a pointer to its bytes";
    Value value = LLVM::LoadOp::create(b, launch.getLoc(), bytes, buffer,
                                       kTensorMapAlignment);
    launch.getKernelOperandsMutable()[*operandIndex].set(value);
  }
  return success();
}

struct QuiltGpuTensorMapsAsParamsPass
    : public quilt::impl::QuiltGpuTensorMapsAsParamsBase<
          QuiltGpuTensorMapsAsParamsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef marker = ukernel::UKernelDialect::getTensorMapsAsParamsAttrName();
    // The map arguments of every rewritten kernel.
    DenseMap<Operation *, SmallVector<unsigned>> kernelMaps;
    bool broken = false;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      gpuModule.walk([&](Operation *op) {
        if (!op->hasAttr(marker))
          return;
        auto kernel = dyn_cast<LLVM::LLVMFuncOp>(op);
        if (!kernel) {
          op->emitError() << "'" << marker
                          << "' must be on a lowered NVVM kernel";
          broken = true;
          return;
        }
        SmallVector<unsigned> maps;
        if (failed(rewriteKernel(kernel, maps)))
          broken = true;
        else
          kernelMaps[kernel] = std::move(maps);
      });
    }
    if (broken)
      return signalPassFailure();
    if (kernelMaps.empty())
      return;

    LLVMTypeConverter converter(&getContext());
    SymbolTableCollection symbols;
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = symbols.lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernelAttr());
      auto it = kernel ? kernelMaps.find(kernel) : kernelMaps.end();
      if (it == kernelMaps.end())
        return WalkResult::advance();
      if (failed(rewriteLaunch(launch, kernel, it->second, converter)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
