//===- GuardAllocationSizes.cpp - quilt-guard-allocation-sizes ------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "Conversion/Utils/OperandChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTGUARDALLOCATIONSIZES
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltGuardAllocationSizesPass
    : public quilt::impl::QuiltGuardAllocationSizesBase<
          QuiltGuardAllocationSizesPass> {
  void runOnOperation() override {
    if (failed(ukernel::guardAllocationSizes(getOperation())))
      signalPassFailure();
  }
};

} // namespace
