//===- MergeGpuModules.cpp - The quilt-merge-gpu-modules pass -------------===//
//
// Part of the Quilt project. One gpu.module per program: what ptxas,
// ld.lld and the runtime each take one of.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTMERGEGPUMODULES
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltMergeGpuModulesPass
    : public quilt::impl::QuiltMergeGpuModulesBase<QuiltMergeGpuModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.size() < 2)
      return;
    // Quilt's kernel module has the target the others lack.
    gpu::GPUModuleOp into = gpuModules.front();
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      if (gpuModule.getName().starts_with("quilt_")) {
        into = gpuModule;
        break;
      }
    SymbolTable intoSymbols(into);

    // (module, symbol) -> the symbol's name in `into`.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> moved;
    for (gpu::GPUModuleOp from : gpuModules) {
      if (from == into)
        continue;
      ArrayAttr targets = from.getTargetsAttr();
      if (targets && !targets.empty() && targets != into.getTargetsAttr()) {
        from.emitError("has other targets than @")
            << into.getName() << ": device code for two chips cannot be one "
            << "module";
        return signalPassFailure();
      }
      SymbolTable fromSymbols(from);
      for (Operation &op :
           llvm::make_early_inc_range(from.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        StringAttr oldName = symbol ? symbol.getNameAttr() : StringAttr();
        // A colliding name is renamed in its module first, with its uses.
        if (symbol && intoSymbols.lookup(oldName)) {
          std::string fresh;
          for (unsigned i = 1;; ++i) {
            fresh = (oldName.getValue() + "_" + Twine(i)).str();
            if (!intoSymbols.lookup(fresh) && !fromSymbols.lookup(fresh))
              break;
          }
          if (failed(fromSymbols.rename(
                  &op, StringAttr::get(&getContext(), fresh)))) {
            op.emitError("cannot be renamed to join @") << into.getName();
            return signalPassFailure();
          }
        }
        op.moveBefore(into.getBody(), into.getBody()->end());
        if (symbol) {
          intoSymbols.insert(&op);
          moved[{from.getNameAttr(), oldName}] = symbol.getNameAttr();
        }
      }
    }

    // Launches name their kernel as @module::@kernel.
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto it =
          moved.find({kernel.getRootReference(), kernel.getLeafReference()});
      if (it == moved.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          into.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUModuleOp from : gpuModules)
      if (from != into)
        from.erase();
  }
};

} // namespace
