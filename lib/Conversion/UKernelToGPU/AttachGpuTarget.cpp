//===- AttachGpuTarget.cpp - The quilt-attach-gpu-target pass -------------===//
//
// Part of the Quilt project. Every gpu.module of a program is compiled for
// one chip: the one Quilt's kernels were generated for, unless overridden.
//
//===----------------------------------------------------------------------===//

#include "ChipCheck.h"
#include "Conversion/Passes.h"
#include "GpuKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTATTACHGPUTARGET
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltAttachGpuTargetPass
    : public quilt::impl::QuiltAttachGpuTargetBase<QuiltAttachGpuTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;

    ArrayAttr targets;
    if (!chip.empty()) {
      Attribute target =
          ukernel::gpucg::binaryTargetForChip(&getContext(), chip);
      if (!target) {
        module.emitError("quilt-attach-gpu-target: unknown chip '")
            << chip << "' (expected sm_* for NVIDIA or gfx* for AMD)";
        return signalPassFailure();
      }
      targets = ArrayAttr::get(&getContext(), {target});
    } else {
      // The targets of Quilt's kernel modules, else of any module with one.
      for (gpu::GPUModuleOp gpuModule : gpuModules) {
        ArrayAttr existing = gpuModule.getTargetsAttr();
        if (!existing || existing.empty())
          continue;
        if (!targets || gpuModule.getName().starts_with("quilt_"))
          targets = existing;
      }
      // A program without contractions: the target's own chip.
      if (!targets && !targetChip.empty())
        if (Attribute target =
                ukernel::gpucg::binaryTargetForChip(&getContext(), targetChip))
          targets = ArrayAttr::get(&getContext(), {target});
    }
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      ArrayAttr existing = gpuModule.getTargetsAttr();
      if (!chip.empty() || !existing || existing.empty()) {
        if (!targets) {
          gpuModule.emitError("has no target chip: generate its kernels "
                              "with convert-ukernel-to-gpu or pass chip=");
          return signalPassFailure();
        }
        gpuModule.setTargetsAttr(targets);
      }
      // A chip given by the user must run what the kernels use.
      if (!chip.empty() &&
          failed(ukernel::gpucg::checkChipRunsModule(gpuModule, chip, "chip")))
        return signalPassFailure();
      if (failed(checkVendor(gpuModule)))
        return signalPassFailure();
    }
  }

  /// The module's target is the vendor the pipeline lowers for: the other
  /// vendor's device code would fail deep in its lowering (NVPTX's
  /// instruction selection on AMD kernels aborts).
  LogicalResult checkVendor(gpu::GPUModuleOp gpuModule) {
    if (vendor.empty())
      return success();
    for (Attribute target : gpuModule.getTargetsAttr()) {
      StringRef found;
      std::string foundChip;
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target)) {
        found = "nvidia";
        foundChip = nvvm.getChip().str();
      } else if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(target)) {
        found = "amd";
        foundChip = rocdl.getChip().str();
      }
      if (found.empty() || found == vendor)
        continue;
      bool wantsAmd = vendor == "amd";
      return gpuModule.emitError()
             << (pipeline.empty() ? std::string("this pipeline")
                                  : "'" + std::string(pipeline) + "'")
             << " compiles for " << (wantsAmd ? "AMD" : "NVIDIA")
             << " GPUs, but the kernels are for " << foundChip << " ("
             << (wantsAmd ? "NVIDIA" : "AMD") << "): use "
             << (wantsAmd ? "quilt-lower-to-nvvm" : "quilt-lower-to-rocdl")
             << ", or an " << (wantsAmd ? "AMD target (mi300x, mi250x, ...)"
                                        : "NVIDIA target (h100, a100, ...)");
    }
    return success();
  }
};

} // namespace
