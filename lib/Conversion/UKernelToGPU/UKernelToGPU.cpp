//===- UKernelToGPU.cpp - The convert-ukernel-to-gpu pass -----------------===//
//
// Part of the Quilt project. Checks every dispatch first, so that a module
// is either converted as a whole or left untouched with diagnostics; guards
// each with run-time checks of its operands (Conversion/Utils/
// OperandChecks.cpp); then builds one kernel per candidate in a gpu.module
// per vendor (KernelBuilder.cpp, MatrixEngines.cpp, Staging.cpp), replaces
// each dispatch by run-time selection and launches (LaunchExpansion.cpp), and
// finishes like every code generator (Conversion/Utils/FinishLowering.cpp):
// selects to the runtime call, math functions to polynomials so kernels need no
// device math library.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "GpuKernel.h"

#include "Conversion/Utils/FinishLowering.h"
#include "Conversion/Utils/OperandChecks.h"
#include "Conversion/Utils/Views.h"
#include "CostModel/KernelConfig.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace quilt {
#define GEN_PASS_DEF_CONVERTUKERNELTOGPU
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using namespace mlir::ukernel;

namespace {

bool hasStridedLayout(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.isStrided();
}

/// Why the GPU code generator cannot lower `op`, as a diagnostic.
LogicalResult checkDispatch(DispatchOp op) {
  if (op.getResult() || !isa<MemRefType>(op.getInit().getType()))
    return op.emitOpError("convert-ukernel-to-gpu expects dispatches on "
                          "memrefs: bufferize first");
  TargetAttr target = op.getEffectiveTarget();
  if (!target)
    return op.emitOpError("has no target: run ukernel-attach-target first");
  if (target.getVendor() == Vendor::cpu)
    return op.emitOpError("convert-ukernel-to-gpu generates GPU code, but "
                          "the target '")
           << target.getName() << "' is a CPU: use quilt-lower-to-host";
  for (Value operand : op->getOperands())
    if (isa<MemRefType>(operand.getType()) &&
        !hasStridedLayout(operand.getType()))
      return op.emitOpError("operand layouts must be strided, got ")
             << operand.getType();
  ContractionKind kind = op.getKind();
  bool conv = kind == ContractionKind::conv2d_nhwc ||
              kind == ContractionKind::conv2d_nchw;
  // The kernels read a convolution's filter as a matrix, collapsed on the
  // host (memref.collapse_shape needs a contiguous buffer); copying it into
  // one on the device is left to the caller.
  if (conv && !hasIdentityLayout(op.getRhs()))
    return op.emitOpError("the filter of a convolution must be a contiguous "
                          "buffer (identity layout) on GPU targets, where "
                          "it is read as a matrix; got ")
           << op.getRhs().getType();
  return success();
}

struct ConvertUKernelToGPUPass
    : public quilt::impl::ConvertUKernelToGPUBase<ConvertUKernelToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<DispatchOp> dispatches;
    bool ok = true;
    module.walk([&](DispatchOp op) {
      if (tmaLoads && !nativeWgmma) {
        op.emitOpError("cannot be converted with option 'tma' alone: TMA "
                       "loads the tiles of native wgmma kernels, add "
                       "'native-wgmma'");
        ok = false;
      } else if (failed(checkDispatch(op))) {
        ok = false;
      }
      dispatches.push_back(op);
    });
    if (!ok || failed(guardDispatchOperands(module)))
      return signalPassFailure();

    gpucg::GpuKernelCache kernels(module, nativeWgmma, tmaLoads);
    for (DispatchOp op : dispatches)
      if (failed(gpucg::expandDispatch(op, kernels)))
        return signalPassFailure();
    if (failed(finishDispatchLowering(module)))
      return signalPassFailure();
  }
};

} // namespace
