//===- KernelPartition.cpp - A device module's kernels, one by one --------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "KernelPartition.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

bool isKernel(Operation *op) {
  if (auto function = dyn_cast<gpu::GPUFuncOp>(op))
    return function.isKernel();
  return op->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) ||
         op->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
         op->hasAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName());
}

/// A variable every kernel that uses it must see the same copy of: device
/// memory written at run time. Shared memory (LDS on AMD GPUs; address
/// space 3, or the workgroup address space before lowering) belongs to a
/// thread block, not to the program.
bool isSharedState(Operation *op) {
  if (auto global = dyn_cast<LLVM::GlobalOp>(op))
    return !global.getConstant() && global.getAddrSpace() != 3;
  if (auto global = dyn_cast<memref::GlobalOp>(op)) {
    if (global.getConstant())
      return false;
    Attribute space = global.getType().getMemorySpace();
    if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space))
      return gpuSpace.getValue() != gpu::AddressSpace::Workgroup;
    if (auto number = dyn_cast_or_null<IntegerAttr>(space))
      return number.getInt() != 3;
    return true;
  }
  return false;
}

/// The module-level ops `root` uses, directly or through others, `root`
/// included, in module order.
SmallVector<Operation *> closureOf(Operation *root, SymbolTable &symbols,
                                   gpu::GPUModuleOp module) {
  llvm::SetVector<Operation *> reached;
  reached.insert(root);
  for (size_t next = 0; next < reached.size(); ++next) {
    Operation *op = reached[next];
    auto uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses)
      if (Operation *symbol =
              symbols.lookup(use.getSymbolRef().getRootReference()))
        reached.insert(symbol);
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : module.getBody()->getOperations())
    if (reached.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

} // namespace

SmallVector<SmallVector<Operation *>>
quilt::partitionKernels(gpu::GPUModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<Operation *> kernels;
  bool onlySymbols = true;
  for (Operation &op : module.getBody()->getOperations()) {
    onlySymbols &= isa<SymbolOpInterface>(op);
    if (isKernel(&op))
      kernels.push_back(&op);
  }
  SmallVector<SmallVector<Operation *>> closures;
  for (Operation *kernel : kernels)
    closures.push_back(closureOf(kernel, symbols, module));
  llvm::DenseMap<Operation *, unsigned> users;
  for (const SmallVector<Operation *> &closure : closures)
    for (Operation *op : closure)
      ++users[op];
  bool entangled = llvm::any_of(users, [](auto entry) {
    return entry.second > 1 &&
           (isSharedState(entry.first) || isKernel(entry.first));
  });
  if (kernels.empty() || entangled || !onlySymbols)
    closures = {llvm::to_vector(
        llvm::make_pointer_range(module.getBody()->getOperations()))};
  return closures;
}
