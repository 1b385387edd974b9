//===- BufferDeallocation.cpp - quilt-buffer-deallocation -----------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTBUFFERDEALLOCATION
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltBufferDeallocationPass
    : public quilt::impl::QuiltBufferDeallocationBase<
          QuiltBufferDeallocationPass> {
  using Base::Base;

  void runOnOperation() override {
    bufferization::DeallocationOptions options;
    options.privateFuncDynamicOwnership = privateFuncDynamicOwnership;
    SymbolTableCollection symbolTables;
    WalkResult status = getOperation().walk([&](func::FuncOp function) {
      if (function->removeAttr(quilt::kManagesItsMemoryAttrName) ||
          function.isExternal())
        return WalkResult::skip();
      if (failed(bufferization::deallocateBuffersOwnershipBased(
              function, options, symbolTables)))
        return WalkResult::interrupt();
      return WalkResult::skip();
    });
    if (status.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
