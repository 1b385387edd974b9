//===- UKernelToHost.cpp - The convert-ukernel-to-host pass ---------------===//
//
// Part of the Quilt project. Checks every dispatch first, so that a module
// is either converted as a whole or left untouched with diagnostics, guards
// each with run-time checks of its operands (Conversion/Utils/
// OperandChecks.cpp), then expands the dispatches (DispatchExpansion.cpp;
// kernel functions from HostKernelGen.cpp, Packing.cpp and MicroKernel.cpp),
// then finishes like every code generator (Conversion/Utils/
// FinishLowering.cpp): selects to the runtime call, math functions to
// polynomials so the kernels need no libm.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "HostKernel.h"

#include "Conversion/Utils/FinishLowering.h"
#include "Conversion/Utils/OperandChecks.h"

#include "CostModel/KernelConfig.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace quilt {
#define GEN_PASS_DEF_CONVERTUKERNELTOHOST
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using namespace mlir::ukernel;

namespace {

bool hasStridedLayout(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.isStrided();
}

/// Why the host code generator cannot lower `op`, as a diagnostic.
LogicalResult checkDispatch(DispatchOp op) {
  if (op.getResult() || !isa<MemRefType>(op.getInit().getType()))
    return op.emitOpError("convert-ukernel-to-host expects dispatches on "
                          "memrefs: bufferize first");
  TargetAttr target = op.getEffectiveTarget();
  if (!target)
    return op.emitOpError("has no target: run ukernel-attach-target first");
  if (target.getVendor() != Vendor::cpu)
    return op.emitOpError("convert-ukernel-to-host generates CPU code, but "
                          "the target '")
           << target.getName() << "' is a "
           << stringifyVendor(target.getVendor())
           << " GPU: use its GPU pipeline";
  for (Value operand : op->getOperands())
    if (isa<MemRefType>(operand.getType()) &&
        !hasStridedLayout(operand.getType()))
      return op.emitOpError("operand layouts must be strided, got ")
             << operand.getType();
  for (auto [index, attr] : llvm::enumerate(op.getCandidates())) {
    auto config = cast<ConfigAttr>(attr);
    if (config.getInstruction() != InstructionKind::cpu_fma)
      return op.emitOpError("candidate #")
             << index << " (" << toKernelConfig(config).str() << ") uses '"
             << stringifyInstructionKind(config.getInstruction())
             << "'; the host code generator only emits cpu_fma micro-kernels";
    int64_t lanes = config.getVectorWidth();
    int64_t nr = config.getThreadTile()[1];
    if (lanes < 1 || nr % lanes != 0)
      return op.emitOpError("candidate #")
             << index << " (" << toKernelConfig(config).str()
             << "): the register block's N (" << nr
             << ") must be a multiple of the vector width (" << lanes << ")";
  }
  return success();
}

struct ConvertUKernelToHostPass
    : public quilt::impl::ConvertUKernelToHostBase<ConvertUKernelToHostPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (threads < 0) {
      module.emitError() << "convert-ukernel-to-host: threads must be 1 "
                            "(sequential), N > 1 or 0 (the OpenMP default), "
                            "got "
                         << static_cast<int64_t>(threads);
      return signalPassFailure();
    }
    SmallVector<DispatchOp> dispatches;
    bool ok = true;
    module.walk([&](DispatchOp op) {
      if (failed(checkDispatch(op)))
        ok = false;
      dispatches.push_back(op);
    });
    if (!ok || failed(guardDispatchOperands(module)))
      return signalPassFailure();

    host::KernelCache kernels(module);
    for (DispatchOp op : dispatches)
      host::expandDispatch(op, kernels, threads);
    if (failed(finishDispatchLowering(module)))
      return signalPassFailure();
  }
};

} // namespace
