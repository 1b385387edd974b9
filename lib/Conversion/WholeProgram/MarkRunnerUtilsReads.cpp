//===- MarkRunnerUtilsReads.cpp - quilt-mark-runner-utils-reads -----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTMARKRUNNERUTILSREADS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

/// MLIR's runner utilities that take memrefs and only read them
/// (mlir/ExecutionEngine/RunnerUtils.h, CRunnerUtils.h): printMemrefF32,
/// printMemrefShapeI8, verifyMemRefF64, ...
bool isReadOnlyRunnerUtility(StringRef name) {
  return name.starts_with("printMemref") || name.starts_with("verifyMemRef");
}

struct QuiltMarkRunnerUtilsReadsPass
    : public quilt::impl::QuiltMarkRunnerUtilsReadsBase<
          QuiltMarkRunnerUtilsReadsPass> {
  void runOnOperation() override {
    StringRef access = bufferization::BufferizationDialect::kBufferAccessAttrName;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isExternal() || !isReadOnlyRunnerUtility(func.getName()))
        continue;
      for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type) && !func.getArgAttr(index, access))
          func.setArgAttr(index, access,
                          StringAttr::get(&getContext(), "read"));
    }
  }
};

} // namespace
